// SPDX-License-Identifier: Apache-2.0
package dev.smelt.benchmarks;

import dev.smelt.models.llama.Llama2Config;
import java.util.concurrent.TimeUnit;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorSpecies;
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
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/// The ceiling of a decode's matrix-vector products on this machine, without Smelt: 256 tokens of a
/// Llama shape's GEMVs in a decode step's order (per layer wq, wk, wv, wo, w1, w3, w2, then the
/// classifier), each matrix its own `float[]` as the checkpoint reader makes them, in a hand-written
/// Vector API row loop, each product's input written by the caller from the one before. With `threads` = 2 each product is cut into two contiguous halves, one for
/// the caller and one for a helper thread that spins between products (never parks), and the caller
/// waits for the helper's half: the cheapest split there is. `LlamaBench.decode` reads the same bytes
/// and does attention, norms and the rest besides, so its two-thread gain over one is at most about
/// this one's; compare both in one run.
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = {"--add-modules", "jdk.incubator.vector", "-Xmx3g"})
public class GemvChainBench {
    private static final VectorSpecies<Float> F = FloatVector.SPECIES_PREFERRED;
    private static final int L = F.length();

    @Param({"stories15M", "stories110M"})
    public String shape;

    @Param({"1", "2"})
    public int threads;

    /// Whether each matrix starts on a 64-byte line (its rows then do too), as Smelt's f32 GEMV
    /// reads W: a large array's elements start 16 bytes past a line under G1 (12 with compact
    /// object headers), so a matrix stored from element 12 (13) of its array is line-aligned; with
    /// `false` every 64-byte load of W straddles two lines.
    @Param({"true", "false"})
    public boolean aligned;

    private float[][] matrices;
    private int lead; // where each matrix starts in its array
    private int[] rows;
    private int[] depths;
    private float[] x, y;
    private Thread helper;
    private volatile int posted, finished;
    private volatile boolean stop;
    private int current; // the product the helper works on, published by `posted`

    @Setup
    public void setUp() {
        Llama2Config config = shape.equals("stories15M") ? Llama2Config.STORIES_15M : Llama2Config.STORIES_110M;
        int d = config.dim(), kv = config.kvDim(), h = config.hiddenDim(), layers = config.layers();
        int[][] layer = {{d, d}, {kv, d}, {kv, d}, {d, d}, {h, d}, {h, d}, {d, h}}; // rows, depth
        lead = aligned ? (64 - arrayBase()) / Float.BYTES : 0;
        int count = layers * layer.length + 1;
        matrices = new float[count][];
        rows = new int[count];
        depths = new int[count];
        for (int l = 0; l < layers; l++)
            for (int m = 0; m < layer.length; m++) set(l * layer.length + m, layer[m][0], layer[m][1]);
        set(count - 1, config.vocab(), d);
        x = new float[Math.max(d, h)];
        y = new float[config.vocab()];
        java.util.Arrays.fill(x, 0.5f);
        if (threads == 2) {
            helper = Thread.ofPlatform().daemon().name("gemv-chain-helper").start(this::help);
        }
    }

    private void set(int index, int n, int k) {
        rows[index] = n;
        depths[index] = k;
        matrices[index] = new float[lead + n * k];
        for (int i = 0; i < n * k; i++) matrices[index][lead + i] = ((i * 31) & 15) * 0.0625f - 0.5f;
    }

    // Bytes from a float[]'s start to its first element in HotSpot: 12 with compact object headers, else 16.
    private static int arrayBase() {
        var bean = java.lang.management.ManagementFactory.getPlatformMXBean(com.sun.management.HotSpotDiagnosticMXBean.class);
        return Boolean.parseBoolean(bean.getVMOption("UseCompactObjectHeaders").getValue()) ? 12 : 16;
    }

    @TearDown
    public void tearDown() throws InterruptedException {
        stop = true;
        if (helper != null) helper.join();
    }

    @Benchmark
    public float decode() {
        for (int token = 0; token < LlamaBench.TOKENS; token++)
            for (int p = 0; p < matrices.length; p++) {
                int n = rows[p];
                for (int k = 0; k < depths[p]; k++) x[k] = y[k] * 0x1p-10f + 0.5f; // the next input comes from the last output, as in a decode
                if (threads == 1) {
                    rows(matrices[p], depths[p], 0, n);
                    continue;
                }
                int half = n / 2;
                current = p;
                int ticket = posted + 1;
                posted = ticket; // publishes `current`
                rows(matrices[p], depths[p], 0, half);
                while (finished != ticket) Thread.onSpinWait();
            }
        return y[0];
    }

    private void help() {
        int seen = 0;
        while (!stop) {
            int ticket = posted;
            if (ticket == seen) {
                Thread.onSpinWait();
                continue;
            }
            int p = current, n = rows[p];
            rows(matrices[p], depths[p], n / 2, n);
            seen = ticket;
            finished = ticket;
        }
    }

    // y[r] = W[r, ·] · x for rows [from, to): four accumulators, as the GEMV's row loop.
    private void rows(float[] w, int depth, int from, int to) {
        for (int r = from; r < to; r++) {
            int at = lead + r * depth, k = 0;
            FloatVector s0 = FloatVector.zero(F), s1 = s0, s2 = s0, s3 = s0;
            for (; k + 4 * L <= depth; k += 4 * L) {
                s0 = FloatVector.fromArray(F, w, at + k).fma(FloatVector.fromArray(F, x, k), s0);
                s1 = FloatVector.fromArray(F, w, at + k + L).fma(FloatVector.fromArray(F, x, k + L), s1);
                s2 = FloatVector.fromArray(F, w, at + k + 2 * L).fma(FloatVector.fromArray(F, x, k + 2 * L), s2);
                s3 = FloatVector.fromArray(F, w, at + k + 3 * L).fma(FloatVector.fromArray(F, x, k + 3 * L), s3);
            }
            for (; k + L <= depth; k += L) s0 = FloatVector.fromArray(F, w, at + k).fma(FloatVector.fromArray(F, x, k), s0);
            float s = s0.add(s1).add(s2.add(s3)).reduceLanes(VectorOperators.ADD);
            for (; k < depth; k++) s += w[at + k] * x[k];
            y[r] = s;
        }
    }
}
