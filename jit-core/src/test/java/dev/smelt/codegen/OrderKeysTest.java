// SPDX-License-Identifier: Apache-2.0
package dev.smelt.codegen;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.smelt.ir.DType;
import java.util.SplittableRandom;
import jdk.incubator.vector.FloatVector;
import org.junit.jupiter.api.Test;

/// The keys a vector `max` or `min` reduction folds (computed inline by [VectorFolds], turned back
/// by [OrderKeys]) must give `Math.max` and `Math.min` bit for bit: NaN of either sign wins, -0 <
/// +0, and the identity (-∞ for `max`, +∞ for `min`) is the smallest key. Rows of random bit
/// patterns and specials, through a compiled vector kernel: `KernelEmitterTest` plants each special
/// at each place of a row; here every lane of a row may be any float.
class OrderKeysTest {
    private static final int LANES = FloatVector.SPECIES_PREFERRED.length();
    private static final int[] FLOAT_SPECIALS = {0, 0x8000_0000, 0x7f80_0000, 0xff80_0000, 0x7fc0_0000, 0xffc0_0000, 0x7f80_0001,
            0xff80_0001, 0x7fff_ffff, 0xffff_ffff, 1, 0x8000_0001, 0x007f_ffff, 0x807f_ffff, 0x0080_0000, 0x7f7f_ffff, 0xff7f_ffff,
            Float.floatToRawIntBits(1), Float.floatToRawIntBits(-1)};
    private static final long[] DOUBLE_SPECIALS = {0, 0x8000_0000_0000_0000L, 0x7ff0_0000_0000_0000L, 0xfff0_0000_0000_0000L,
            0x7ff8_0000_0000_0000L, 0xfff8_0000_0000_0000L, 0x7ff0_0000_0000_0001L, 0xfff0_0000_0000_0001L, -1L, Long.MAX_VALUE, 1,
            0x8000_0000_0000_0001L, 0x7fef_ffff_ffff_ffffL, 0xffef_ffff_ffff_ffffL, Double.doubleToRawLongBits(1), Double.doubleToRawLongBits(-1)};

    @Test
    void floatRowsOfAnyBitsFoldAsMathMaxAndMin() {
        var random = new SplittableRandom(7);
        int rows = 400, columns = 2 * LANES + 1;
        float[] input = new float[rows * columns];
        for (int i = 0; i < input.length; i++) {
            int bits = random.nextInt(3) == 0 ? FLOAT_SPECIALS[random.nextInt(FLOAT_SPECIALS.length)] : random.nextInt();
            input[i] = Float.intBitsToFloat(bits);
        }
        float[] max = new float[rows], min = new float[rows];
        Compiled.of(Kernels.maxAndMin(rows, columns, DType.F32), Variant.VECTOR).function().run(new Object[] {input, max, min}, 0, rows);
        for (int r = 0; r < rows; r++) {
            float wantMax = Float.NEGATIVE_INFINITY, wantMin = Float.POSITIVE_INFINITY;
            for (int c = 0; c < columns; c++) {
                wantMax = Math.max(wantMax, input[r * columns + c]);
                wantMin = Math.min(wantMin, input[r * columns + c]);
            }
            int row = r;
            assertEquals(bits(wantMax), bits(max[r]), () -> "max of row " + row);
            assertEquals(bits(wantMin), bits(min[r]), () -> "min of row " + row);
        }
    }

    @Test
    void doubleRowsOfAnyBitsFoldAsMathMaxAndMin() {
        var random = new SplittableRandom(11);
        int rows = 400, columns = 2 * LANES + 1;
        double[] input = new double[rows * columns];
        for (int i = 0; i < input.length; i++) {
            long bits = random.nextInt(3) == 0 ? DOUBLE_SPECIALS[random.nextInt(DOUBLE_SPECIALS.length)] : random.nextLong();
            input[i] = Double.longBitsToDouble(bits);
        }
        double[] max = new double[rows], min = new double[rows];
        Compiled.of(Kernels.maxAndMin(rows, columns, DType.F64), Variant.VECTOR).function().run(new Object[] {input, max, min}, 0, rows);
        for (int r = 0; r < rows; r++) {
            double wantMax = Double.NEGATIVE_INFINITY, wantMin = Double.POSITIVE_INFINITY;
            for (int c = 0; c < columns; c++) {
                wantMax = Math.max(wantMax, input[r * columns + c]);
                wantMin = Math.min(wantMin, input[r * columns + c]);
            }
            int row = r;
            assertEquals(bits(wantMax), bits(max[r]), () -> "max of row " + row);
            assertEquals(bits(wantMin), bits(min[r]), () -> "min of row " + row);
        }
    }

    /// NaN compares as one value whatever its payload; other floats by their bits.
    private static long bits(float value) { return Float.isNaN(value) ? 0x7fc0_0000 : Float.floatToRawIntBits(value); }

    private static long bits(double value) { return Double.isNaN(value) ? 0x7ff8_0000_0000_0000L : Double.doubleToRawLongBits(value); }
}
