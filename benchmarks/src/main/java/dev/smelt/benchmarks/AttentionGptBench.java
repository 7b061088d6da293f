// SPDX-License-Identifier: Apache-2.0
package dev.smelt.benchmarks;

import dev.smelt.Compiled;
import dev.smelt.Generator;
import dev.smelt.Jit;
import dev.smelt.Tensor;
import dev.smelt.autograd.Autograd;
import dev.smelt.autograd.ValueAndGrad;
import dev.smelt.ir.FusionMode;
import java.util.List;
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

/// [AttentionBench] at the shape of one layer of the GPT training step ([GptStepBench]): causal
/// attention over f32 q, k, v `[8, 4, 128, 64]` (batch 8, 4 heads, T = S = 128, d 64), with one
/// thread and two. `fused`: the forward kernel; `forwardBackward`: `valueAndGrad` of
/// `Σ attention ∘ G` for q, k and v (the forward writing its logsumexp, then the fused backward).
/// GFLOP/s as [AttentionBench] counts them: `4·32·128²·64 / 2` = 67.1 MFLOP per forward, and
/// `2.5×` that more for the backward's five products (`forwardBackward`: 235 MFLOP).
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
// 10 s of warm-up: forwardBackward's two programs (and their small kernels) reach C2 only after
// several seconds on a busy 2-core machine; its first timed seconds were 2-4× the steady state.
@Warmup(iterations = 10, time = 1)
@Measurement(iterations = 5, time = 1)
public abstract class AttentionGptBench {
    Tensor q, k, v, g;
    Compiled fused;
    ValueAndGrad withGradients;

    @Fork(value = 1, jvmArgsAppend = {"--add-modules", "jdk.incubator.vector", "-Dsmelt.threads=1"})
    public static class OneThread extends AttentionGptBench {}

    @Fork(value = 1, jvmArgsAppend = {"--add-modules", "jdk.incubator.vector", "-Dsmelt.threads=2"})
    public static class TwoThreads extends AttentionGptBench {}

    @Setup
    public void fusedAgreesWithUnfused() {
        var generator = new Generator(21);
        q = Tensor.randn(generator, 8, 4, 128, 64);
        k = Tensor.randn(generator, 8, 4, 128, 64);
        v = Tensor.randn(generator, 8, 4, 128, 64);
        g = Tensor.randn(generator, 8, 4, 128, 64);
        fused = Jit.compile((Tensor x, Tensor y, Tensor z) -> Tensor.scaledDotProductAttention(x, y, z, true));
        withGradients = Autograd.valueAndGrad((Jit.FunctionN) a -> List.of(Tensor.scaledDotProductAttention(a.get(0), a.get(1), a.get(2), true).mul(a.get(3)).sum()), 4, 0, 1, 2);
        new Tolerance(1e-4, 1e-5).check("fused vs unfused", fused.withFusion(FusionMode.NONE).apply(q, k, v).toFloatArray(), fused().toFloatArray());
    }

    @Benchmark
    public Tensor fused() { return fused.apply(q, k, v); }

    @Benchmark
    public ValueAndGrad.Result forwardBackward() { return withGradients.apply(q, k, v, g); }
}
