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
import java.util.regex.Pattern;
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

/// Attention forward, `softmax(q·kᵀ/8)·v` over f32 q, k, v `[1, 12, T, 64]` (batch 1, 12 heads,
/// d 64), T = S = 128, 512, 2048, causal or not, with one thread and two (`.OneThread`,
/// `.TwoThreads`): `fused` (one attention kernel), `unfused` (the same graph with `FusionMode.NONE`:
/// the scores `[1, 12, T, T]` written and read by each op) and `forwardBackward` (`valueAndGrad` of
/// `Σ attention ∘ G` for q, k and v: the fused forward and FlashAttention-2's fused backward).
/// GFLOP/s: `4·12·T²·64` flops per forward (half of it under the causal mask). `@Setup` checks
/// fused against unfused and prints both programs' peak memory from their memory plans.
/// Targets: at T = 2048 fused ≥ 3× unfused, peak memory ≤ 1/10; forwardBackward ≤ 3.5× fused.
/// PyTorch 1.13 eager on the same shapes: `benchmarks/attention.py`. Ten warm-up seconds: the
/// attention kernels have no scalar twin, and on a loaded 2-core machine C2 compiles their block
/// products seconds into a fork; a shorter warm-up measures their warm-up.
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 10, time = 1)
@Measurement(iterations = 5, time = 1)
public abstract class AttentionBench {
    @Param({"128", "512", "2048"})
    public int tokens;

    @Param({"false", "true"})
    public boolean causal;

    Tensor q, k, v, g;
    Compiled fused, unfused;
    ValueAndGrad withGradients;

    @Fork(value = 1, jvmArgsAppend = {"--add-modules", "jdk.incubator.vector", "-Dsmelt.threads=1", "-Xmx6g"})
    public static class OneThread extends AttentionBench {}

    @Fork(value = 1, jvmArgsAppend = {"--add-modules", "jdk.incubator.vector", "-Dsmelt.threads=2", "-Xmx6g"})
    public static class TwoThreads extends AttentionBench {}

    @Setup
    public void fusedAgreesWithUnfused() {
        var generator = new Generator(20);
        q = Tensor.randn(generator, 1, 12, tokens, 64);
        k = Tensor.randn(generator, 1, 12, tokens, 64);
        v = Tensor.randn(generator, 1, 12, tokens, 64);
        g = Tensor.randn(generator, 1, 12, tokens, 64);
        boolean mask = causal;
        fused = Jit.compile((Tensor x, Tensor y, Tensor z) -> Tensor.scaledDotProductAttention(x, y, z, mask));
        unfused = fused.withFusion(FusionMode.NONE);
        withGradients = Autograd.valueAndGrad((Jit.FunctionN) a -> List.of(Tensor.scaledDotProductAttention(a.get(0), a.get(1), a.get(2), mask).mul(a.get(3)).sum()), 4, 0, 1, 2);
        new Tolerance(1e-4, 1e-5).check("fused vs unfused", unfused.apply(q, k, v).toFloatArray(), fused().toFloatArray());
        System.out.printf("%nattention T=%d causal=%s peak memory: fused %,d B, unfused %,d B%n", tokens, causal, peak(fused.explain(q, k, v)), peak(unfused.explain(q, k, v)));
    }

    static long peak(String explained) {
        var matcher = Pattern.compile("memory: peak ([0-9,]+) B").matcher(explained);
        if (!matcher.find()) throw new IllegalStateException("no memory plan in explain()");
        return Long.parseLong(matcher.group(1).replace(",", ""));
    }

    @Benchmark
    public Tensor fused() { return fused.apply(q, k, v); }

    @Benchmark
    public Tensor unfused() { return unfused.apply(q, k, v); }

    @Benchmark
    public ValueAndGrad.Result forwardBackward() { return withGradients.apply(q, k, v, g); }
}
