// SPDX-License-Identifier: Apache-2.0
package dev.smelt.benchmarks;

import dev.smelt.Compiled;
import dev.smelt.Generator;
import dev.smelt.Jit;
import dev.smelt.Tensor;
import dev.smelt.autograd.Autograd;
import dev.smelt.autograd.ValueAndGrad;
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

/// `C = A·B` on f32[n, n], one thread: `forward` alone, and `forwardBackward`, which also computes
/// `dA = G·Bᵀ` and `dB = Aᵀ·G` for an upstream gradient G (`valueAndGrad` of `Σ C∘G`): the backward
/// matmuls are the generated matmul with transpose flags. Target: forwardBackward ≤ 3.2× forward
/// (PyTorch 1.13 here: 64 ms, 3× its forward).
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 3, time = 1)
@Fork(value = 1, jvmArgsAppend = {"--add-modules", "jdk.incubator.vector", "-Dsmelt.threads=1"})
public class MatMulBackwardBench {
    /// `-p n=128` runs it small.
    @Param("1024")
    public int n;

    Tensor a, b, g;
    Compiled forwardOnly;
    ValueAndGrad forwardAndBackward;

    @Setup
    public void gradientsAgree() {
        var generator = new Generator(3);
        a = Tensor.randn(generator, n, n);
        b = Tensor.randn(generator, n, n);
        g = Tensor.randn(generator, n, n);
        forwardOnly = Jit.compile((Tensor x, Tensor y) -> x.matmul(y));
        forwardAndBackward = Autograd.valueAndGrad((x, y, upstream) -> x.matmul(y).mul(upstream).sum(), 0, 1);
        var result = forwardBackward();
        var tolerance = new Tolerance(1e-3, 1e-3);
        tolerance.check("dA vs G·Bᵀ", Jit.compile((Tensor x, Tensor y) -> x.matmul(y.t())).apply(g, b).toFloatArray(), result.gradients().get(0).toFloatArray());
        tolerance.check("dB vs Aᵀ·G", Jit.compile((Tensor x, Tensor y) -> x.t().matmul(y)).apply(a, g).toFloatArray(), result.gradients().get(1).toFloatArray());
    }

    @Benchmark
    public Tensor forward() {
        return forwardOnly.apply(a, b);
    }

    @Benchmark
    public ValueAndGrad.Result forwardBackward() {
        return forwardAndBackward.apply(a, b, g);
    }
}
