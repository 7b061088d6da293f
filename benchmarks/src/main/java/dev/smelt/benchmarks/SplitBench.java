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
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/// Whether splitting a mid-size kernel across threads pays: `sin(x·y + z)` into a tensor, one
/// kernel, at sizes around `Executor.PARALLEL_THRESHOLD` (2^17 elements), forked with
/// `-Dsmelt.threads=1` and `=2`. `backToBack` calls it in a loop, as a training step's kernels
/// follow each other, so the other thread is still awake; `afterIdle` first sleeps 1 ms, so the
/// worker has parked and the split pays for waking it (the sleep is in the time: compare the two
/// forks, not the two methods). `report.py` prints two threads / one for each.
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 5, time = 1)
public abstract class SplitBench {
    @Param({"65536", "131072", "262144", "1048576"})
    public int size;
    Tensor x, y, z, out;
    final Compiled chain = Jit.compile((Tensor a, Tensor b, Tensor c) -> a.mul(b).add(c).sin());

    @Fork(value = 1, jvmArgsAppend = {"--add-modules", "jdk.incubator.vector", "-Dsmelt.threads=1"})
    public static class OneThread extends SplitBench {}

    @Fork(value = 1, jvmArgsAppend = {"--add-modules", "jdk.incubator.vector", "-Dsmelt.threads=2"})
    public static class TwoThreads extends SplitBench {}

    @Setup
    public void agree() {
        var generator = new Generator(11);
        x = Tensor.randn(generator, size / 1024, 1024);
        y = Tensor.randn(generator, size / 1024, 1024);
        z = Tensor.randn(generator, size / 1024, 1024);
        out = chain.apply(x, y, z);
        float[] a = x.toFloatArray(), b = y.toFloatArray(), c = z.toFloatArray(), expected = new float[size];
        for (int i = 0; i < size; i++) expected[i] = (float) Math.sin(a[i] * b[i] + c[i]);
        Tolerance.ELEMENTWISE.check("sin(x·y + z) against Math.sin", expected, backToBack().toFloatArray());
    }

    @Benchmark
    public Tensor backToBack() { return chain.applyInto(out, x, y, z); }

    @Benchmark
    public Tensor afterIdle() throws InterruptedException {
        Thread.sleep(1);
        return chain.applyInto(out, x, y, z);
    }
}
