// SPDX-License-Identifier: Apache-2.0
package dev.smelt.benchmarks;

import dev.smelt.Compiled;
import dev.smelt.Jit;
import dev.smelt.Tensor;
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

/// Where the GEMV stops paying: `x[M, 768] · Wᵀ` with f32 W [768, 768] streamed from memory as in
/// [GemvBench], one thread, M = 1…16, through the GEMV (`.Gemv`, every M up to 16 allowed) and
/// through the packed matmul (`.Packed`, none allowed), set with `-Dsmelt.gemvRows`. Sets
/// `Gemv.MAX_ROWS`.
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
public abstract class GemvRowsBench {
    @Fork(value = 1, jvmArgsAppend = {"--add-modules", "jdk.incubator.vector", "-Dsmelt.threads=1", "-Dsmelt.gemvRows=16", "-Xmx2g"})
    public static class Gemv extends GemvRowsBench {}

    @Fork(value = 1, jvmArgsAppend = {"--add-modules", "jdk.incubator.vector", "-Dsmelt.threads=1", "-Dsmelt.gemvRows=0", "-Xmx2g"})
    public static class Packed extends GemvRowsBench {}

    @Param({"1", "2", "4", "6", "8", "12", "16"})
    public int rows;

    private Tensor x;
    private Tensor[] weights;
    private Compiled product;
    private int next;

    @Setup
    public void setUp() {
        int n = 768, k = 768;
        var random = new SplittableRandom(3);
        float[] values = new float[n * k], input = new float[rows * k];
        for (int i = 0; i < values.length; i++) values[i] = (float) random.nextGaussian() * 0.02f;
        for (int i = 0; i < input.length; i++) input[i] = (float) random.nextGaussian();
        x = Tensor.of(input, rows, k);
        weights = new Tensor[(int) (GemvBench.STREAMED_BYTES / (4L * n * k))];
        for (int c = 0; c < weights.length; c++) weights[c] = Tensor.of(values, n, k);
        product = Jit.compile((Tensor a, Tensor w) -> a.matmul(w.t()));
        float[] y = product.apply(x, weights[0]).toFloatArray();
        for (int row = 0; row < n; row += 97) {
            double exact = 0, magnitude = 0;
            for (int p = 0; p < k; p++) {
                exact += (double) input[p] * values[row * k + p];
                magnitude += Math.abs((double) input[p] * values[row * k + p]);
            }
            if (Math.abs(y[row] - exact) > (k + 2) * Math.ulp(1f) * magnitude) throw new IllegalStateException("row %d: %s against %s".formatted(row, y[row], exact));
        }
    }

    @Benchmark
    public Tensor product() {
        Tensor w = weights[next];
        next = next + 1 == weights.length ? 0 : next + 1;
        return product.apply(x, w);
    }
}
