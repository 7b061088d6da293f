// SPDX-License-Identifier: Apache-2.0
package dev.smelt.benchmarks;

import dev.smelt.Compile;
import dev.smelt.Compiled;
import dev.smelt.Generator;
import dev.smelt.Jit;
import dev.smelt.Tensor;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/// What a call costs beyond its kernel, on eight elements: a [Compile] method of a model with three
/// tensor fields (`method`: the subclass's call, the check that no field was given another tensor,
/// the signature) against the same function from [Jit#compile] reading the same fields (`lambda`).
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(value = 1, jvmArgsAppend = {"--add-modules", "jdk.incubator.vector", "-Dsmelt.threads=1"})
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
public class CompileMethodBench {
    /// A model whose non-final tensor fields a compiled method reads.
    public static class Model {
        public Tensor w = Tensor.ones(8), b = Tensor.zeros(8);
        protected Tensor scale = Tensor.full(2.0, 8);

        public Model() {}

        @Compile
        public Tensor forward(Tensor x) { return x.mul(w).add(b).mul(scale); }
    }

    @State(Scope.Benchmark)
    public static class Calls {
        Model model;
        Compiled lambda;
        Tensor x;

        @Setup
        public void compile() {
            model = Jit.instance(Model.class);
            Model fields = model;
            lambda = Jit.compile((Tensor t) -> t.mul(fields.w).add(fields.b).mul(fields.scale));
            x = Tensor.randn(new Generator(1), 8);
            if (!model.forward(x).allClose(lambda.apply(x))) throw new IllegalStateException("the two calls disagree");
        }
    }

    @Benchmark
    public Tensor method(Calls calls) { return calls.model.forward(calls.x); }

    @Benchmark
    public Tensor lambda(Calls calls) { return calls.lambda.apply(calls.x); }
}
