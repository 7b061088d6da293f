// SPDX-License-Identifier: Apache-2.0
package dev.smelt.runtime.attention;

import dev.smelt.ir.DType;
import dev.smelt.kernel.AttentionKernel;
import jdk.incubator.vector.ByteVector;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorSpecies;

/// Reads an attention mask broadcast over the scores `[batch…, H, T, S]` through its strides: a bool
/// mask (`byte[]`, 1 keeps a score) sets the others to -inf, an added one (`float[]` or `double[]`,
/// the scores' dtype) is added.
final class MaskReader {
    private final boolean bool;
    private final int[] headBase;
    private final int rowStride, columnStride;

    private MaskReader(AttentionKernel kernel) {
        var strides = kernel.maskStrides();
        var scores = kernel.scores();
        int rank = scores.rank(), heads = kernel.batch() * kernel.heads();
        bool = kernel.maskType() == DType.BOOL;
        rowStride = strides.get(rank - 2);
        columnStride = strides.get(rank - 1);
        headBase = new int[heads];
        for (int head = 0; head < heads; head++) {
            int rest = head, base = 0;
            for (int axis = rank - 3; axis >= 0; axis--) {
                base += rest % scores.dim(axis) * strides.get(axis);
                rest /= scores.dim(axis);
            }
            headBase[head] = base;
        }
    }

    /// Whether the mask is added to the scores (not a bool one).
    boolean adds() { return !bool; }

    /// The reader of `kernel`'s mask, or null when it has none.
    static MaskReader of(AttentionKernel kernel) { return kernel.maskType() == null ? null : new MaskReader(kernel); }

    /// Applies the mask of query `t` over keys `j0…j0+cols` to `scores[at…]`.
    void apply(Object mask, int head, int t, int j0, int cols, float[] scores, int at) {
        int from = headBase[head] + t * rowStride + j0 * columnStride;
        for (int c = 0; c < cols; c++) {
            int index = from + c * columnStride;
            if (bool) {
                if (((byte[]) mask)[index] == 0) scores[at + c] = Float.NEGATIVE_INFINITY;
            } else scores[at + c] += ((float[]) mask)[index];
        }
    }

    /// How many of keys `j0…j0+cols`, from the first, hold every key that a query `t0…t0+rows`
    /// keeps: one past the last kept key, 0 when the block drops them all (then it adds nothing to
    /// those rows and is not read, as the causal mask's blocks past the diagonal are not: a KV cache
    /// attended up to its length through a mask costs what its visible rows do); `cols` for an added mask.
    int keptUpTo(Object mask, int head, int t0, int rows, int j0, int cols) {
        if (!bool) return cols;
        byte[] keep = (byte[]) mask;
        int kept = 0;
        for (int r = 0; r < (rowStride == 0 ? 1 : rows) && kept < cols; r++) {
            int from = headBase[head] + (t0 + r) * rowStride + j0 * columnStride, c = cols;
            if (columnStride == 1) c = lastKept(keep, from, kept, cols);
            for (c--; c >= kept; c--)
                if (keep[from + c * columnStride] != 0) {
                    c++;
                    break;
                }
            kept = Math.max(kept, c);
        }
        return kept;
    }

    // One past the last kept key of contiguous keys `kept…cols` at `from`, whole vectors from the
    // end; at most `kept` + a vector's worth left to look at one by one. A decode step's mask drops
    // most of the cache's blocks: one compare a vector, not a load and a branch a key.
    private static int lastKept(byte[] keep, int from, int kept, int cols) {
        int c = cols;
        for (; c - kept >= BYTES.length(); c -= BYTES.length()) {
            int last = ByteVector.fromArray(BYTES, keep, from + c - BYTES.length()).compare(VectorOperators.NE, (byte) 0).lastTrue();
            if (last >= 0) return c - BYTES.length() + last + 1;
        }
        return c;
    }

    private static final VectorSpecies<Byte> BYTES = ByteVector.SPECIES_PREFERRED;

    /// Zeroes the gradient of the scores a bool mask dropped (where's vjp), so that a row it masks
    /// entirely (NaN probabilities) passes no NaN to q and k.
    void zeroDropped(Object mask, int head, int t, int j0, int cols, float[] gradient, int at) {
        if (!bool) return;
        int from = headBase[head] + t * rowStride + j0 * columnStride;
        for (int c = 0; c < cols; c++)
            if (((byte[]) mask)[from + c * columnStride] == 0) gradient[at + c] = 0;
    }

    /// [#zeroDropped(Object, int, int, int, int, float[], int)] for f64.
    void zeroDropped(Object mask, int head, int t, int j0, int cols, double[] gradient, int at) {
        if (!bool) return;
        int from = headBase[head] + t * rowStride + j0 * columnStride;
        for (int c = 0; c < cols; c++)
            if (((byte[]) mask)[from + c * columnStride] == 0) gradient[at + c] = 0;
    }

    /// [#apply(Object, int, int, int, int, float[], int)] for f64 scores.
    void apply(Object mask, int head, int t, int j0, int cols, double[] scores, int at) {
        int from = headBase[head] + t * rowStride + j0 * columnStride;
        for (int c = 0; c < cols; c++) {
            int index = from + c * columnStride;
            if (bool) {
                if (((byte[]) mask)[index] == 0) scores[at + c] = Double.NEGATIVE_INFINITY;
            } else scores[at + c] += ((double[]) mask)[index];
        }
    }
}
