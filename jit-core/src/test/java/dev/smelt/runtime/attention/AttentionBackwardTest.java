// SPDX-License-Identifier: Apache-2.0
package dev.smelt.runtime.attention;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.smelt.ir.AttentionPart;
import dev.smelt.ir.DType;
import dev.smelt.ir.Shape;
import dev.smelt.kernel.AttentionKernel;
import dev.smelt.kernel.KernelFunction;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/// The backward kernel run directly, against its definition in double, on random shapes (T and S
/// of 1, primes, around and past the 64-row blocks, causal with S > T so that some keys meet no
/// query, grouped-query, bool and added masks, some gradients not asked for; f32 and f64): its
/// gradients are written, not added to what the output arrays held (they start as NaN), and a
/// second call, which reuses the thread's scratch, gives the same bits.
class AttentionBackwardTest {
    @Test
    void gradientsAreTheDefinitionWhateverTheOutputsHeld() {
        var random = new Random(29);
        int[] lengths = {1, 2, 5, 31, 64, 67, 97, 130, 131};
        for (int trial = 0; trial < 60; trial++) {
            int kvHeads = 1 + random.nextInt(2), heads = kvHeads * (1 + random.nextInt(2)), batch = 1 + random.nextInt(2);
            int tokens = lengths[random.nextInt(lengths.length)], sources = trial % 5 == 0 ? tokens + 64 + random.nextInt(70) : lengths[random.nextInt(lengths.length)];
            int d = random.nextBoolean() ? 64 : 1 + random.nextInt(20), dv = random.nextBoolean() ? d : 1 + random.nextInt(20), maskKind = random.nextInt(3);
            boolean causal = random.nextInt(3) == 0;
            DType dtype = trial % 4 == 3 ? DType.F64 : DType.F32;
            var parts = new ArrayList<>(List.of(AttentionPart.GRAD_Q, AttentionPart.GRAD_K, AttentionPart.GRAD_V));
            if (trial % 6 == 5) parts.remove(random.nextInt(3));
            var scores = Shape.of(batch, heads, tokens, sources);
            var kernel = new AttentionKernel(parts, scores, kvHeads, d, dv, causal, 1 / Math.sqrt(d), dtype, maskKind == 0 ? null : maskKind == 1 ? DType.BOOL : dtype,
                    maskKind == 0 ? List.of() : List.of(0, 0, sources, 1));
            String name = "%s %s kv %d d %d dv %d causal %s mask %d parts %s".formatted(dtype, scores, kvHeads, d, dv, causal, maskKind, parts);
            var problem = new Problem(random, kernel, maskKind);
            double[][] expected = problem.gradients();
            KernelFunction function = AttentionFunctions.of(kernel);
            Object[] first = problem.buffers(Double.NaN), second = problem.buffers(Double.NaN);
            function.run(first, 0, kernel.workItems());
            function.run(second, 0, kernel.workItems());
            int inputs = kernel.inputs().size();
            for (int p = 0; p < parts.size(); p++) {
                double[] actual = doubles(first[inputs + p]);
                assertArrayEquals(actual, doubles(second[inputs + p]), name + ": repeated call, " + parts.get(p));
                double[] wanted = expected[parts.get(p).ordinal() - AttentionPart.GRAD_Q.ordinal()];
                for (int i = 0; i < wanted.length; i++)
                    assertEquals(wanted[i], actual[i], (dtype == DType.F32 ? 2e-4 : 1e-10) * (1 + Math.abs(wanted[i])), name + ": " + parts.get(p) + " [" + i + "]");
            }
        }
    }

    private static double[] doubles(Object array) {
        if (array instanceof double[] a) return a;
        float[] f = (float[]) array;
        double[] result = new double[f.length];
        for (int i = 0; i < f.length; i++) result[i] = f[i];
        return result;
    }

    /// Random q, k, v, dO, a mask `[T, S]` that keeps each query's first key, the output and the
    /// logsumexp they imply, in the kernel's dtype (the definition reads the rounded values too).
    private static final class Problem {
        final AttentionKernel kernel;
        final int batchHeads, group, tokens, sources, d, dv, maskKind;
        final double[] q, k, v, dOut, mask, out, lse;
        final double scale;

        Problem(Random random, AttentionKernel kernel, int maskKind) {
            this.kernel = kernel;
            this.maskKind = maskKind;
            batchHeads = kernel.batch() * kernel.heads();
            group = kernel.heads() / kernel.kvHeads();
            tokens = kernel.tokens();
            sources = kernel.sources();
            d = kernel.depth();
            dv = kernel.valueDepth();
            scale = kernel.scale();
            q = fill(random, batchHeads * tokens * d);
            k = fill(random, batchHeads / group * sources * d);
            v = fill(random, batchHeads / group * sources * dv);
            dOut = fill(random, batchHeads * tokens * dv);
            mask = new double[tokens * sources];
            for (int i = 0; i < mask.length; i++) mask[i] = maskKind == 1 ? (i % sources == 0 || random.nextInt(4) > 0 ? 1 : 0) : round(random.nextGaussian());
            out = new double[batchHeads * tokens * dv];
            lse = new double[batchHeads * tokens];
            for (int h = 0; h < batchHeads; h++)
                for (int t = 0; t < tokens; t++) {
                    double[] s = scores(h, t);
                    double max = Arrays.stream(s).max().orElseThrow(), sum = 0;
                    for (double x : s) sum += Math.exp(x - max);
                    lse[h * tokens + t] = round(max + Math.log(sum));
                    for (int j = 0; j < sources; j++)
                        for (int c = 0; c < dv; c++) out[(h * tokens + t) * dv + c] += Math.exp(s[j] - max) / sum * v[(kv(h) * sources + j) * dv + c];
                }
            for (int i = 0; i < out.length; i++) out[i] = round(out[i]);
        }

        private double round(double x) { return kernel.dtype() == DType.F32 ? (float) x : x; }

        private double[] fill(Random random, int size) {
            double[] values = new double[size];
            for (int i = 0; i < size; i++) values[i] = round(random.nextGaussian());
            return values;
        }

        private int kv(int head) { return head / kernel.heads() * kernel.kvHeads() + head % kernel.heads() / group; }

        // Query t's scores over all keys: masked ones -inf.
        private double[] scores(int h, int t) {
            double[] s = new double[sources];
            for (int j = 0; j < sources; j++) {
                double dot = 0;
                for (int i = 0; i < d; i++) dot += round(q[(h * tokens + t) * d + i] * scale) * k[(kv(h) * sources + j) * d + i];
                boolean dropped = causal() && j > t || maskKind == 1 && mask[t * sources + j] == 0;
                s[j] = dropped ? Double.NEGATIVE_INFINITY : dot + (maskKind == 2 ? mask[t * sources + j] : 0);
            }
            return s;
        }

        private boolean causal() { return kernel.causal(); }

        /// dq, dk, dv by their definition (`AttentionPart`'s comments), in double.
        double[][] gradients() {
            double[] dq = new double[q.length], dk = new double[k.length], dvGrad = new double[v.length];
            for (int h = 0; h < batchHeads; h++)
                for (int t = 0; t < tokens; t++) {
                    double[] s = scores(h, t);
                    double rowDot = 0;
                    for (int c = 0; c < dv; c++) rowDot += dOut[(h * tokens + t) * dv + c] * out[(h * tokens + t) * dv + c];
                    for (int j = 0; j < sources; j++) {
                        double p = Math.exp(s[j] - lse[h * tokens + t]), dp = 0;
                        int key = kv(h) * sources + j;
                        for (int c = 0; c < dv; c++) {
                            dp += dOut[(h * tokens + t) * dv + c] * v[key * dv + c];
                            dvGrad[key * dv + c] += p * dOut[(h * tokens + t) * dv + c];
                        }
                        double ds = p * (dp - rowDot) * scale;
                        for (int i = 0; i < d; i++) {
                            dq[(h * tokens + t) * d + i] += ds * k[key * d + i];
                            dk[key * d + i] += ds * q[(h * tokens + t) * d + i];
                        }
                    }
                }
            return new double[][] {dq, dk, dvGrad};
        }

        /// The kernel's buffers: inputs in its dtype, outputs filled with `start`.
        Object[] buffers(double start) {
            var buffers = new ArrayList<Object>(List.of(typed(q), typed(k), typed(v), typed(out), typed(lse), typed(dOut)));
            if (maskKind == 1) {
                byte[] bool = new byte[mask.length];
                for (int i = 0; i < mask.length; i++) bool[i] = (byte) mask[i];
                buffers.add(bool);
            } else if (maskKind == 2) buffers.add(typed(mask));
            for (var output : kernel.outputs()) {
                double[] filled = new double[output.size()];
                Arrays.fill(filled, start);
                buffers.add(typed(filled));
            }
            return buffers.toArray();
        }

        private Object typed(double[] values) {
            if (kernel.dtype() == DType.F64) return values.clone();
            float[] f = new float[values.length];
            for (int i = 0; i < values.length; i++) f[i] = (float) values[i];
            return f;
        }
    }
}
