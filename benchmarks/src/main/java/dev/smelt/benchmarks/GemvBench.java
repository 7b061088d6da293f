// SPDX-License-Identifier: Apache-2.0
package dev.smelt.benchmarks;

import dev.smelt.Compiled;
import dev.smelt.Jit;
import dev.smelt.Tensor;
import dev.smelt.WeightFormat;
import java.util.SplittableRandom;
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

/// One decode-step product `y[1, N] = x[1, K] · Wᵀ` compiled (`Jit.compile((x, w) -> x.matmul(w.t()))`,
/// which runs the GEMV), at the projection shapes of stories110M (dim 768, hidden 2048, vocab 32000)
/// and stories15M (288, 768), with W in f32, bf16 or int8. Each call takes the next of enough copies
/// of W to stream 256 MB of f32 (8× this host's 32 MiB L3), so W comes from memory as in a decode,
/// where each weight is read once per token. Weight bytes per call: N·K·4 (f32), N·K·2 (bf16),
/// N·K·1.125 (int8); against [ReadBandwidthBench]'s GB/s in the same run. Forks with
/// `-Dsmelt.threads=1` and `=2`.
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
public abstract class GemvBench {
    static final long STREAMED_BYTES = 256L << 20;

    @Fork(value = 1, jvmArgsAppend = {"--add-modules", "jdk.incubator.vector", "-Dsmelt.threads=1", "-Xmx3g"})
    public static class OneThread extends GemvBench {}

    @Fork(value = 1, jvmArgsAppend = {"--add-modules", "jdk.incubator.vector", "-Dsmelt.threads=2", "-Xmx3g"})
    public static class TwoThreads extends GemvBench {}

    /// `N×K`: W's rows (outputs) by its columns (inputs).
    @Param({"768x768", "2048x768", "768x2048", "32000x768", "288x288", "768x288", "288x768", "32000x288"})
    public String shape;

    @Param({"F32", "BF16", "INT8"})
    public WeightFormat format;

    private Tensor x;
    private Tensor[] weights;
    private Compiled product;
    private int next;

    /// Makes the copies of W and checks the first one's product against a loop in double on its
    /// rounded values, within f32 accumulation's bound.
    @Setup
    public void setUp() {
        int n = Integer.parseInt(shape.split("x")[0]), k = Integer.parseInt(shape.split("x")[1]);
        var random = new SplittableRandom(21);
        float[] values = new float[n * k], input = new float[k];
        for (int i = 0; i < values.length; i++) values[i] = (float) random.nextGaussian() * 0.02f;
        for (int i = 0; i < k; i++) input[i] = (float) random.nextGaussian();
        x = Tensor.of(input, 1, k);
        weights = new Tensor[(int) Math.max(2, (STREAMED_BYTES + 4L * n * k - 1) / (4L * n * k))];
        for (int c = 0; c < weights.length; c++) weights[c] = Tensor.of(values, n, k).toWeightFormat(format);
        product = Jit.compile((Tensor a, Tensor w) -> a.matmul(w.t()));
        float[] y = product.apply(x, weights[0]).toFloatArray(), rounded = weights[0].toFloatArray();
        for (int row = 0; row < n; row += Math.max(1, n / 64)) {
            double exact = 0, magnitude = 0;
            for (int p = 0; p < k; p++) {
                exact += (double) input[p] * rounded[row * k + p];
                magnitude += Math.abs((double) input[p] * rounded[row * k + p]);
            }
            if (Math.abs(y[row] - exact) > (k + 2) * Math.ulp(1f) * magnitude)
                throw new IllegalStateException("%s %s row %d: %s against %s".formatted(format, shape, row, y[row], exact));
        }
    }

    @Benchmark
    public Tensor gemv() {
        Tensor w = weights[next];
        next = next + 1 == weights.length ? 0 : next + 1;
        return product.apply(x, w);
    }
}
