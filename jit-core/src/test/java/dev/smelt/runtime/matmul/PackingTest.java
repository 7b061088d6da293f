// SPDX-License-Identifier: Apache-2.0
package dev.smelt.runtime.matmul;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;

import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.stream.LongStream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/// Packing against its definition, `packed[(i / width)·width·depth + p·width + i % width] =
/// source[start + i·across + p·along]` with the last panel's missing lanes 0, on random blocks
/// taking each of its three loops: lanes contiguous (with scalar and with vector copies, widths no
/// lane count divides), steps contiguous (depths not a multiple of four), neither, and stride 0.
class PackingTest {
    static LongStream seeds() { return LongStream.range(0, 300); }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void packedPanelsFollowTheDefinition(long seed) {
        var random = new Random(seed);
        int count = 1 + random.nextInt(70), depth = 1 + random.nextInt(23), width = List.of(1, 4, 6, 12, 16, 32, 33).get(random.nextInt(7));
        int[] strides = switch (random.nextInt(4)) {
            case 0 -> new int[] {1, count + random.nextInt(5)};     // lanes contiguous: B by rows, a transposed A
            case 1 -> new int[] {depth + random.nextInt(5), 1};     // steps contiguous: A by rows, a transposed B
            case 2 -> new int[] {2 + random.nextInt(3), (2 + random.nextInt(3)) * count * 5};
            default -> random.nextBoolean() ? new int[] {0, 1} : new int[] {1, 0};
        };
        int across = strides[0], along = strides[1], start = random.nextInt(9), panels = (count + width - 1) / width;
        int length = start + Math.max(0, (count - 1) * across) + Math.max(0, (depth - 1) * along) + 1;
        float[] source = new float[length];
        double[] wide = new double[length];
        for (int i = 0; i < length; i++) wide[i] = source[i] = random.nextFloat() - 0.5f;
        float[] expected = new float[panels * width * depth];
        for (int i = 0; i < count; i++)
            for (int p = 0; p < depth; p++) expected[i / width * width * depth + p * width + i % width] = source[start + i * across + p * along];
        String what = "count %d width %d depth %d across %d along %d".formatted(count, width, depth, across, along);
        // Packing reads B as b[base + p·outer + j·inner]: outer is along, inner across.
        var operand = new Operand(0, List.of(), along, across);
        for (boolean vector : new boolean[] {false, true}) {
            float[] packed = garbage(expected.length);
            Packing.right(source, start, operand, 0, depth, 0, count, width, packed, vector);
            assertArrayEquals(expected, Arrays.copyOf(packed, expected.length), what + (vector ? ", vector" : ", scalar"));
            double[] packedWide = new double[expected.length + 3];
            Arrays.fill(packedWide, Double.NaN); // as garbage()
            Packing.right(wide, start, operand, 0, depth, 0, count, width, packedWide, vector);
            for (int i = 0; i < expected.length; i++)
                if (packedWide[i] != expected[i]) throw new AssertionError(what + ", f64, vector " + vector + ": packed[" + i + "] " + packedWide[i] + " != " + expected[i]);
        }
    }

    // A reused buffer holds an earlier block's values: packing must overwrite every lane it owns.
    private static float[] garbage(int length) {
        float[] packed = new float[length + 3];
        Arrays.fill(packed, Float.NaN);
        return packed;
    }
}
