// SPDX-License-Identifier: Apache-2.0
package dev.smelt.runtime.attention;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.smelt.runtime.attention.FloatBlocks.Causal;
import java.util.Random;
import org.junit.jupiter.api.Test;

/// Attention's block arithmetic against its definition: the transpose of a block of keys (in 8 × 8
/// register tiles and value by value), and the block products that skip, on a causal mask's
/// diagonal, what the mask zeroes (`Causal`): the skipped terms are zero in `a` and the skipped
/// columns are not read, so on the rest the product is the full one, to the bit.
class FloatBlocksTest {
    @Test
    void transposeIsTheDefinition() {
        var random = new Random(30);
        for (int trial = 0; trial < 200; trial++) {
            int features = 1 + random.nextInt(80), count = 1 + random.nextInt(64), width = count + random.nextInt(4), step = features + random.nextInt(5), from = random.nextInt(9);
            float[] source = new float[from + count * step + 1];
            for (int i = 0; i < source.length; i++) source[i] = random.nextFloat();
            int at = random.nextInt(5);
            float[] packed = new float[at + features * width];
            java.util.Arrays.fill(packed, Float.NaN);
            FloatTranspose.transpose(source, from, step, features, count, width, packed, at);
            for (int i = 0; i < features; i++)
                for (int c = 0; c < width; c++)
                    assertEquals(c < count ? source[from + c * step + i] : 0f, packed[at + i * width + c], "features %d, count %d, width %d: [%d, %d]".formatted(features, count, width, i, c));
        }
    }

    /// A decode step's scores, L keys summed together, are each key's [FloatBlocks#dot] to the bit,
    /// at depths of whole vectors (the grouped sums) and not, and counts with keys left over; so are
    /// the dot products of two matrices' rows (the backward's `rowsum(dO ∘ O)`, `qRow` > 0).
    @Test
    void dotsOfManyKeysAreEachKeysDot() {
        var random = new Random(32);
        int lanes = FloatBlocks.laneCount();
        for (int trial = 0; trial < 300; trial++) {
            int depth = random.nextBoolean() ? lanes * (1 + random.nextInt(9)) : 1 + random.nextInt(100), count = 1 + random.nextInt(70);
            int kRow = depth + random.nextInt(3), qRow = trial % 3 == 0 ? 0 : depth + random.nextInt(3), kAt = random.nextInt(5), qAt = random.nextInt(5), at = random.nextInt(3);
            float[] q = new float[qAt + (count - 1) * qRow + depth], k = new float[kAt + count * kRow], scores = new float[at + count];
            for (int i = 0; i < q.length; i++) q[i] = (float) random.nextGaussian();
            for (int i = 0; i < k.length; i++) k[i] = (float) random.nextGaussian();
            FloatBlocks.dots(q, qAt, qRow, k, kAt, kRow, depth, count, scores, at, new float[lanes * lanes]);
            for (int c = 0; c < count; c++)
                assertEquals(FloatBlocks.dot(q, qAt + c * qRow, k, kAt + c * kRow, depth), scores[at + c], 0f, "depth %d, count %d, qRow %d: key %d".formatted(depth, count, qRow, c));
        }
    }

    /// A row's lane sums are added in one fixed tree (lane i takes lane i + half, half = L/2 … 1),
    /// to the bit, with NaN, ±∞, ±0 and the extremes among the lanes.
    @Test
    void laneSumsFollowTheTree() {
        var random = new Random(33);
        int lanes = FloatBlocks.laneCount();
        float[] specials = {Float.NaN, Float.POSITIVE_INFINITY, Float.NEGATIVE_INFINITY, -0f, 0f, Float.MAX_VALUE, -Float.MAX_VALUE, Float.MIN_VALUE};
        for (int trial = 0; trial < 3000; trial++) {
            float[] sums = new float[lanes + 3];
            for (int i = 0; i < sums.length; i++)
                sums[i] = trial % 100 == 0 ? -0f : random.nextInt(8) == 0 ? specials[random.nextInt(specials.length)] : (float) random.nextGaussian() * (1 << random.nextInt(24));
            int at = random.nextInt(4);
            float[] tree = java.util.Arrays.copyOfRange(sums, at, at + lanes);
            for (int half = lanes / 2; half > 0; half /= 2)
                for (int i = 0; i < half; i++) tree[i] += tree[i + half];
            float sum = FloatBlocks.lanes(sums, at);
            assertEquals(Float.floatToIntBits(tree[0]), Float.floatToIntBits(sum), "lanes %s: %s, expected %s".formatted(java.util.Arrays.toString(sums), sum, tree[0]));
        }
    }

    /// Once C2 has compiled them, a row's lane sum and a dot product allocate nothing (the sum once
    /// went through `toArray`, an array C2 kept: 80 bytes a sum). The calls run in a method of
    /// their own, which C2 compiles with them inlined, as an attention loop is: inlined into this
    /// test's own loop, which C1 compiles, the vectors they make would be boxed by C1.
    @Test
    void laneSumsAndDotsAllocateNothingOnceCompiled() {
        var threads = (com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory.getThreadMXBean();
        int lanes = FloatBlocks.laneCount();
        float[] x = new float[13 * lanes + 3], y = new float[x.length + 1], sums = new float[lanes];
        for (int i = 0; i < x.length; i++) { x[i] = i * 0.25f - 3; y[i] = 1 - i * 0.125f; }
        for (int i = 0; i < lanes; i++) sums[i] = i - 2.5f;
        long allocated = Long.MAX_VALUE, deadline = System.nanoTime() + 120_000_000_000L; // C2 may queue behind other tests' compiles
        float sink = 0;
        while (allocated > 0 && System.nanoTime() < deadline) {
            for (int i = 0; i < 500; i++) sink += sumsAndDots(sums, x, y, 20);
            long before = threads.getCurrentThreadAllocatedBytes();
            sink += sumsAndDots(sums, x, y, 100);
            allocated = threads.getCurrentThreadAllocatedBytes() - before;
        }
        assertEquals(0, allocated, "bytes allocated by 100 lane sums and dot products after warm-up (sink %s)".formatted(sink));
    }

    private static float sumsAndDots(float[] sums, float[] x, float[] y, int count) {
        float sink = 0;
        for (int i = 0; i < count; i++) sink += FloatBlocks.lanes(sums, 0) + FloatBlocks.dot(x, 0, y, 1, x.length);
        return sink;
    }

    @Test
    void causalProductsAreTheFullProductWhereTheMaskKeeps() {
        var random = new Random(31);
        for (int trial = 0; trial < 300; trial++) {
            Causal causal = Causal.values()[1 + trial % 3];
            int rows = 1 + random.nextInt(70), inner = 1 + random.nextInt(70), cols = 1 + random.nextInt(130), diagonal = random.nextInt(41) - 20;
            boolean transposed = random.nextBoolean(), accumulate = random.nextBoolean();
            float[] a = new float[rows * inner], b = new float[inner * cols], start = new float[rows * cols];
            for (int r = 0; r < rows; r++)
                for (int i = 0; i < inner; i++) {
                    boolean zero = causal == Causal.INNER_UP_TO ? i > r + diagonal : causal == Causal.INNER_FROM && i < r + diagonal;
                    a[transposed ? i * rows + r : r * inner + i] = zero ? 0 : random.nextFloat() - 0.5f;
                }
            for (int i = 0; i < b.length; i++) b[i] = random.nextFloat() - 0.5f;
            for (int i = 0; i < start.length; i++) start[i] = random.nextFloat();
            float[] full = start.clone(), skipping = start.clone();
            int aRow = transposed ? 1 : inner, aCol = transposed ? rows : 1;
            FloatBlocks.product(a, 0, aRow, aCol, b, 0, cols, full, 0, cols, rows, inner, cols, accumulate);
            FloatBlocks.product(a, 0, aRow, aCol, b, 0, cols, skipping, 0, cols, rows, inner, cols, accumulate, causal, diagonal);
            for (int r = 0; r < rows; r++)
                for (int c = 0; c < cols; c++)
                    if (causal != Causal.COLUMNS || c <= r + diagonal)
                        assertEquals(full[r * cols + c], skipping[r * cols + c], 0f, "%s, diagonal %d, %d × %d × %d: [%d, %d]".formatted(causal, diagonal, rows, inner, cols, r, c));
        }
    }
}
