// SPDX-License-Identifier: Apache-2.0
package dev.smelt.benchmarks;

import dev.smelt.Compiled;
import dev.smelt.Generator;
import dev.smelt.Jit;
import dev.smelt.Tensor;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/// Dropout (p = 0.1) over f32[1M]: `compiled`, one fused kernel that draws the mask in registers
/// and never writes it; `eager`, op by op (the mask drawn in Java, compared, multiplied twice);
/// `precomputedMask`, a compiled multiply by a mask drawn once, the lower bound of any dropout that
/// must also draw. `uniform` and `normal` write `rand` and `randn` values alone, which prices a
/// draw for `CalibratedCosts.UNIFORM_NS` and `NORMAL_NS` (the time per element less the write).
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"--add-modules", "jdk.incubator.vector", "-Dsmelt.threads=1"})
public class DropoutBench {
    static final double P = 0.1;

    @Param("1048576")
    public int size;

    Tensor x, mask;
    Generator generator;
    Compiled dropout, masked, uniform, normal;

    @Setup
    public void kernelsAgree() {
        x = Tensor.randn(new Generator(1), size);
        generator = new Generator(2);
        dropout = Jit.compile(t -> t.dropout(P, generator));
        masked = Jit.compile((t, m) -> t.mul(m));
        uniform = Jit.compile(t -> Tensor.rand(generator, size));
        normal = Jit.compile(t -> Tensor.randn(generator, size));
        mask = Tensor.ones(size).dropout(P, new Generator(3));
        for (int call = 0; call < 3; call++) {  // the vector variant takes over after the first calls
            var eager = new Generator(generator.seed());
            Tensor.rand(eager, (int) generator.position()); // the compiled function's position
            if (!Arrays.equals(x.dropout(P, eager).toFloatArray(), dropout.apply(x).toFloatArray()))
                throw new AssertionError("compiled dropout draws another mask than eager dropout");
        }
        if (!Arrays.equals(x.mul(mask).toFloatArray(), masked.apply(x, mask).toFloatArray()))
            throw new AssertionError("compiled mask multiply differs from eager");
    }

    @Benchmark
    public Tensor compiled() { return dropout.apply(x); }

    @Benchmark
    public Tensor eager() { return x.dropout(P, generator); }

    @Benchmark
    public Tensor precomputedMask() { return masked.apply(x, mask); }

    @Benchmark
    public Tensor uniform() { return uniform.apply(x); }

    @Benchmark
    public Tensor normal() { return normal.apply(x); }
}
