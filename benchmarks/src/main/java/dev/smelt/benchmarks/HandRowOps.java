// SPDX-License-Identifier: Apache-2.0
package dev.smelt.benchmarks;

import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorSpecies;

/// `softmax` and `layerNorm` over the rows of a row-major `[rows, cols]` matrix, written by hand
/// with the Vector API: the yardstick for [RowOpsBench]'s generated kernels. Softmax follows
/// PyTorch's vectorised CPU kernel (and oneDNN): per row, the max; then `e = exp(x - max)` stored
/// into the output row while summing; then the row, still in L1, scaled in place by `1 / Σe`.
/// Two accumulators per reduction, so consecutive vectors do not wait on one another.
final class HandRowOps {
    static final VectorSpecies<Float> SPECIES = FloatVector.SPECIES_PREFERRED;
    static final int LANES = SPECIES.length();

    private HandRowOps() {}

    static void softmax(float[] x, float[] out, int rows, int cols) {
        int pairs = cols & -(2 * LANES), vectors = SPECIES.loopBound(cols);
        for (int base = 0; base < rows * cols; base += cols) {
            var max0 = FloatVector.broadcast(SPECIES, Float.NEGATIVE_INFINITY);
            var max1 = max0;
            int j = 0;
            for (; j < pairs; j += 2 * LANES) {
                max0 = max0.max(FloatVector.fromArray(SPECIES, x, base + j));
                max1 = max1.max(FloatVector.fromArray(SPECIES, x, base + j + LANES));
            }
            for (; j < vectors; j += LANES) max0 = max0.max(FloatVector.fromArray(SPECIES, x, base + j));
            float max = max0.max(max1).reduceLanes(VectorOperators.MAX);
            for (; j < cols; j++) max = Math.max(max, x[base + j]);

            var sum0 = FloatVector.zero(SPECIES);
            var sum1 = sum0;
            for (j = 0; j < pairs; j += 2 * LANES) {
                var e0 = FloatVector.fromArray(SPECIES, x, base + j).sub(max).lanewise(VectorOperators.EXP);
                var e1 = FloatVector.fromArray(SPECIES, x, base + j + LANES).sub(max).lanewise(VectorOperators.EXP);
                e0.intoArray(out, base + j);
                e1.intoArray(out, base + j + LANES);
                sum0 = sum0.add(e0);
                sum1 = sum1.add(e1);
            }
            for (; j < vectors; j += LANES) {
                var e = FloatVector.fromArray(SPECIES, x, base + j).sub(max).lanewise(VectorOperators.EXP);
                e.intoArray(out, base + j);
                sum0 = sum0.add(e);
            }
            float sum = sum0.add(sum1).reduceLanes(VectorOperators.ADD);
            for (; j < cols; j++) sum += out[base + j] = (float) Math.exp(x[base + j] - max);

            float scale = 1 / sum;
            for (j = 0; j < vectors; j += LANES) FloatVector.fromArray(SPECIES, out, base + j).mul(scale).intoArray(out, base + j);
            for (; j < cols; j++) out[base + j] *= scale;
        }
    }

    /// `(x - mean) / √(var + eps)` per row, with the variance from the centred values (two reads of
    /// the row, the second from L1), as the generated kernel computes it.
    static void layerNorm(float[] x, float[] out, int rows, int cols, float eps) {
        int vectors = SPECIES.loopBound(cols);
        for (int base = 0; base < rows * cols; base += cols) {
            var sum = FloatVector.zero(SPECIES);
            int j = 0;
            for (; j < vectors; j += LANES) sum = sum.add(FloatVector.fromArray(SPECIES, x, base + j));
            float total = sum.reduceLanes(VectorOperators.ADD);
            for (; j < cols; j++) total += x[base + j];
            float mean = total / cols;

            var squares = FloatVector.zero(SPECIES);
            for (j = 0; j < vectors; j += LANES) {
                var centred = FloatVector.fromArray(SPECIES, x, base + j).sub(mean);
                squares = centred.fma(centred, squares);
            }
            float variance = squares.reduceLanes(VectorOperators.ADD);
            for (; j < cols; j++) variance += (x[base + j] - mean) * (x[base + j] - mean);
            float scale = 1 / (float) Math.sqrt(variance / cols + eps);

            for (j = 0; j < vectors; j += LANES)
                FloatVector.fromArray(SPECIES, x, base + j).sub(mean).mul(scale).intoArray(out, base + j);
            for (; j < cols; j++) out[base + j] = (x[base + j] - mean) * scale;
        }
    }
}
