// SPDX-License-Identifier: Apache-2.0
package dev.smelt.benchmarks;

import dev.smelt.Compiled;
import dev.smelt.Generator;
import dev.smelt.Jit;
import dev.smelt.Tensor;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/// A small kernel run often: a decode step's up-projection at stories110M's shape with its SiLU
/// gate in the epilogue (`silu(gate) · (x @ wᵀ)`, W 2048 × 768 f32, the gate 2,048 elements) as
/// `gated`, beside the same product without the gate (`plain`), one thread. `.Hot` runs Smelt's
/// defaults, where the gate's kernel becomes hot during warm-up and switches to its vector variant
/// (`runtime.SmallKernel`); `.Scalar` fixes it on scalar code (`-Dsmelt.tier=scalar`), as every
/// kernel under 16,384 elements ran before. The gate's cost is `gated − plain` in each fork, and
/// `gate` is the gate alone.
/// `busy` (from [LoadBench.Load]): threads spinning in another process beside it.
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 5, time = 2)
@Measurement(iterations = 5, time = 1)
public abstract class SmallKernelBench {
    @Fork(value = 1, jvmArgsAppend = {"--add-modules", "jdk.incubator.vector", "-Dsmelt.threads=1", "-Xmx2g"})
    public static class Hot extends SmallKernelBench {}

    @Fork(value = 1, jvmArgsAppend = {"--add-modules", "jdk.incubator.vector", "-Dsmelt.threads=1", "-Xmx2g", "-Dsmelt.tier=scalar"})
    public static class Scalar extends SmallKernelBench {}

    Compiled gated, plain, gateAlone;
    Tensor x, w, gate, up;

    @Setup(Level.Trial)
    public void setUp() {
        var generator = new Generator(5);
        x = Tensor.randn(generator, 1, 768);
        w = Tensor.randn(generator, 2048, 768).mul(0.03);
        gate = Tensor.randn(generator, 1, 2048);
        gated = Jit.compile(a -> List.of(a.get(2).silu().mul(a.get(0).matmul(a.get(1).t()))), 3);
        plain = Jit.compile(a -> List.of(a.get(0).matmul(a.get(1).t())), 2);
        up = Tensor.randn(generator, 1, 2048);
        gateAlone = Jit.compile(a -> List.of(a.get(0).silu().mul(a.get(1))), 2);
    }

    /// The gate as a kernel of its own, in L1: what the switch changes, without the product's memory traffic.
    @Benchmark
    public Tensor gate(LoadBench.Load load) { return gateAlone.apply(gate, up); }

    @Benchmark
    public Tensor gated(LoadBench.Load load) { return gated.apply(x, w, gate); }

    @Benchmark
    public Tensor plain(LoadBench.Load load) { return plain.apply(x, w); }
}
