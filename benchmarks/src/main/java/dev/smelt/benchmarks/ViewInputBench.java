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
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/// What a view costs as a program input, one thread. A compiled program takes dense storages, so
/// a view it captures or is passed is copied on each call. `capturedSlice`: `x[1, 768] · wᵀ` with
/// w a row slice `[1:2049]` of a 2049×768 f32 weight (rows contiguous, offset 768); `capturedWhole`:
/// the same product on a dense copy of that slice (the floor: the GEMV alone); `sliceToArray`: the
/// slice's values read out (`toFloatArray`), the copy alone. Alternate with a jar from before
/// 26bd464, which copied views element by element.
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"--add-modules", "jdk.incubator.vector", "-Dsmelt.threads=1"})
public class ViewInputBench {
    Tensor x, slice;
    Compiled sliced, whole;

    @Setup
    public void productsAgree() {
        Tensor w = Tensor.randn(new Generator(1), 2049, 768);
        slice = w.slice(0, 1, 2049);
        Tensor dense = Tensor.of(slice.toFloatArray(), 2048, 768);
        x = Tensor.randn(new Generator(2), 1, 768);
        sliced = Jit.compile((Tensor a) -> a.matmul(slice.t()));
        whole = Jit.compile((Tensor a) -> a.matmul(dense.t()));
        if (!Arrays.equals(sliced.apply(x).toFloatArray(), whole.apply(x).toFloatArray())) throw new AssertionError("a slice's product differs from its copy's");
    }

    @Benchmark
    public Tensor capturedSlice() { return sliced.apply(x); }

    @Benchmark
    public Tensor capturedWhole() { return whole.apply(x); }

    @Benchmark
    public float[] sliceToArray() { return slice.toFloatArray(); }
}
