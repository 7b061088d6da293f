// SPDX-License-Identifier: Apache-2.0
package dev.smelt.benchmarks;

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

/// What a first call at a new batch size costs an MLP forward
/// (`softmax(relu(x·W1 + b1)·W2 + b2)`, 128 → 64 → 10, batches of 1 to 100), and what the mark costs
/// a call at a cached size.
///
/// - `newBatchDynamic`: the batch marked dynamic, a size not seen (or no longer cached): trace
///   and plan for that size, every kernel from the kernel cache, then run.
/// - `newBatchStatic`: the same without the mark: a recompile, but since kernels are cached by
///   their [row-extent representative](dev.smelt.codegen.RowExtent), it reuses them as well.
/// - `newKernels`: a function whose kernels were never generated (a fresh constant in its last
///   kernel): what each batch size cost before kernels took their row count at run time, the
///   classes defined and run in the bytecode interpreter until C2 gets to them.
/// - `alternate64and65Dynamic` / `Static`: calls alternating between two cached batch sizes; the
///   mark costs a second signature lookup per call.
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Fork(value = 1, jvmArgsAppend = {"--add-modules", "jdk.incubator.vector"})
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
public class DynamicBench {
    /// More sizes than a dynamic signature keeps (32) and than a function keeps signatures (64),
    /// so that cycling through them always misses.
    static final int SIZES = 100;

    @State(Scope.Benchmark)
    public static class Model {
        Tensor w1, b1, w2, b2;
        Tensor[] batches = new Tensor[SIZES];
        Tensor x64, x65;
        Compiled dynamic, fixed;
        int next;
        float constant = 1f;

        Tensor forward(Tensor x) { return scaled(x, 1f); }

        Tensor scaled(Tensor x, float scale) { return x.matmul(w1).add(b1).relu().matmul(w2).add(b2).mul(scale).softmax(-1); }

        @Setup
        public void kernelsAgree() {
            var generator = new Generator(11);
            w1 = Tensor.randn(generator, 128, 64).mul(0.1f);
            b1 = Tensor.randn(generator, 64);
            w2 = Tensor.randn(generator, 64, 10).mul(0.1f);
            b2 = Tensor.randn(generator, 10);
            for (int i = 0; i < SIZES; i++) batches[i] = Tensor.randn(generator, 1 + i, 128);
            x64 = batches[63];
            x65 = batches[64];
            dynamic = Jit.compile(this::forward).dynamic(0, 0);
            fixed = Jit.compile(this::forward).withRecompileLimit(Integer.MAX_VALUE);
            for (Tensor x : new Tensor[] {x64, x65, batches[0]}) {
                var expected = Jit.trace(this::forward, x).interpret(x).getFirst().toFloatArray();
                Tolerance.ROW_REDUCTION.check("dynamic vs interpreter at " + x.shape(), expected, dynamic.apply(x).toFloatArray());
                Tolerance.ROW_REDUCTION.check("static vs interpreter at " + x.shape(), expected, fixed.apply(x).toFloatArray());
            }
            if (!dynamic.recompiles().isEmpty()) throw new AssertionError("dynamic batch recompiled: " + dynamic.recompiles());
        }

        Tensor nextBatch() {
            next = (next + 1) % SIZES;
            return batches[next];
        }
    }

    /// A first call at a batch size the function does not hold: trace and plan for it, then run
    /// on kernels C2 compiled long ago.
    @Benchmark
    @BenchmarkMode(Mode.SampleTime)
    public Tensor newBatchDynamic(Model model) { return model.dynamic.apply(model.nextBatch()); }

    /// The same without the mark: a recompile, whose kernels come from the cache all the same.
    @Benchmark
    @BenchmarkMode(Mode.SampleTime)
    public Tensor newBatchStatic(Model model) { return model.fixed.apply(model.nextBatch()); }

    /// A first call whose kernels are new: compile, then run on classes that start in the bytecode
    /// interpreter, as every batch size did before kernels were shared across row counts.
    @Benchmark
    @BenchmarkMode(Mode.SampleTime)
    public Tensor newKernels(Model model) {
        float scale = model.constant = Math.nextUp(model.constant);
        return Jit.compile((Tensor x) -> model.scaled(x, scale)).apply(model.nextBatch());
    }

    @Benchmark
    @BenchmarkMode(Mode.AverageTime)
    public Tensor alternate64and65Dynamic(Model model) {
        model.dynamic.apply(model.x64);
        return model.dynamic.apply(model.x65);
    }

    @Benchmark
    @BenchmarkMode(Mode.AverageTime)
    public Tensor alternate64and65Static(Model model) {
        model.fixed.apply(model.x64);
        return model.fixed.apply(model.x65);
    }
}
