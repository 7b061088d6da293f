// SPDX-License-Identifier: Apache-2.0
package dev.smelt.benchmarks;

import dev.smelt.models.llama.Llama2Config;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorSpecies;

/// A decode's matrix-vector products written by hand, without Smelt: per token a Llama shape's
/// GEMVs in a decode step's order (per layer wq, wk, wv, wo, w1, w3, w2, then the classifier), each
/// matrix its own `float[]` as the checkpoint reader makes them, in a Vector API row loop, each
/// product's input written from the one before. On two threads each product is cut into two
/// contiguous halves, one for the caller and one for a helper thread that spins between products
/// (never parks), and the caller waits for the helper's half: the cheapest split there is. The
/// ceiling of a decode's products on this machine, for [GemvChainBench] and `LlamaBench`.
final class HandGemvChain implements AutoCloseable {
    private static final VectorSpecies<Float> F = FloatVector.SPECIES_PREFERRED;
    private static final int L = F.length();

    private final float[][] matrices;
    private final int lead; // where each matrix starts in its array
    private final int[] rows, depths;
    private final float[] x, y;
    private final int threads;
    private final Thread helper;
    private volatile int posted, finished;
    private volatile boolean stop;
    private int current; // the product the helper works on, published by `posted`

    /// `aligned`: each matrix starts on a 64-byte line (its rows then do too), as Smelt's f32 GEMV
    /// reads W; a large array's elements start 16 bytes past a line under G1 (12 with compact
    /// object headers), so a matrix stored from element 12 (13) of its array is line-aligned. Without
    /// it every 64-byte load of W straddles two lines. `threads`: 1 or 2.
    HandGemvChain(Llama2Config config, int threads, boolean aligned) {
        if (threads != 1 && threads != 2) throw new IllegalArgumentException("one or two threads, not " + threads);
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
        this.threads = threads;
        helper = threads == 2 ? Thread.ofPlatform().daemon().name("gemv-chain-helper").start(this::help) : null;
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

    @Override
    public void close() throws InterruptedException {
        stop = true;
        if (helper != null) helper.join();
    }

    /// `tokens` tokens' products; returns an output so that the JIT keeps them.
    float decode(int tokens) {
        for (int token = 0; token < tokens; token++)
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
