// SPDX-License-Identifier: Apache-2.0
package dev.smelt.codegen;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import jdk.incubator.vector.DoubleVector;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.IntVector;
import jdk.incubator.vector.LongVector;
import jdk.incubator.vector.VectorOperators;
import org.junit.jupiter.api.Test;

/// The keys a `max` or `min` reduction folds must give `Math.max` and `Math.min` bit for bit: NaN
/// of either sign wins, -0 < +0, and the identity (-∞ for `max`, +∞ for `min`) is the smallest key.
class OrderKeysTest {
    private static final int[] FLOAT_SPECIALS = {0, 0x8000_0000, 0x7f80_0000, 0xff80_0000, 0x7fc0_0000, 0xffc0_0000, 0x7f80_0001,
            0xff80_0001, 0x7fff_ffff, 0xffff_ffff, 1, 0x8000_0001, 0x007f_ffff, 0x807f_ffff, 0x0080_0000, 0x7f7f_ffff, 0xff7f_ffff,
            Float.floatToRawIntBits(1), Float.floatToRawIntBits(-1)};
    private static final long[] DOUBLE_SPECIALS = {0, 0x8000_0000_0000_0000L, 0x7ff0_0000_0000_0000L, 0xfff0_0000_0000_0000L,
            0x7ff8_0000_0000_0000L, 0xfff8_0000_0000_0000L, 0x7ff0_0000_0000_0001L, 0xfff0_0000_0000_0001L, -1L, Long.MAX_VALUE, 1,
            0x8000_0000_0000_0001L, 0x7fef_ffff_ffff_ffffL, 0xffef_ffff_ffff_ffffL, Double.doubleToRawLongBits(1), Double.doubleToRawLongBits(-1)};

    @Test
    void floatKeysFoldAsMathMaxAndMin() {
        var species = FloatVector.SPECIES_PREFERRED;
        var random = new SplittableRandom(7);
        List<Integer> values = new ArrayList<>();
        for (int bits : FLOAT_SPECIALS) values.add(bits);
        while (values.size() < 4 * species.length() + FLOAT_SPECIALS.length) values.add(random.nextInt());
        float[] lanes = new float[species.length()];
        for (int a : values) {
            for (int k = 0; k < lanes.length; k++) lanes[k] = Float.intBitsToFloat(k == 0 ? a : values.get(random.nextInt(values.size())));
            var x = FloatVector.fromArray(species, lanes, 0);
            float max = Float.NEGATIVE_INFINITY, min = Float.POSITIVE_INFINITY;
            for (float lane : lanes) { max = Math.max(max, lane); min = Math.min(min, lane); }
            IntVector identity = OrderKeys.maxKeys(FloatVector.broadcast(species, Float.NEGATIVE_INFINITY));
            assertEquals(Integer.MIN_VALUE, identity.reduceLanes(VectorOperators.MIN), "the key of -∞ is the smallest");
            int maxKey = identity.max(OrderKeys.maxKeys(x)).reduceLanes(VectorOperators.MAX);
            int minKey = OrderKeys.minKeys(FloatVector.broadcast(species, Float.POSITIVE_INFINITY)).max(OrderKeys.minKeys(x))
                    .reduceLanes(VectorOperators.MAX);
            assertEquals(bits(max), bits(OrderKeys.fromMaxKey(maxKey)), () -> "max of " + x);
            assertEquals(bits(min), bits(OrderKeys.fromMinKey(minKey)), () -> "min of " + x);
        }
    }

    @Test
    void doubleKeysFoldAsMathMaxAndMin() {
        var species = DoubleVector.SPECIES_PREFERRED;
        var random = new SplittableRandom(11);
        List<Long> values = new ArrayList<>();
        for (long bits : DOUBLE_SPECIALS) values.add(bits);
        while (values.size() < 8 * species.length() + DOUBLE_SPECIALS.length) values.add(random.nextLong());
        double[] lanes = new double[species.length()];
        for (long a : values) {
            for (int k = 0; k < lanes.length; k++) lanes[k] = Double.longBitsToDouble(k == 0 ? a : values.get(random.nextInt(values.size())));
            var x = DoubleVector.fromArray(species, lanes, 0);
            double max = Double.NEGATIVE_INFINITY, min = Double.POSITIVE_INFINITY;
            for (double lane : lanes) { max = Math.max(max, lane); min = Math.min(min, lane); }
            LongVector identity = OrderKeys.maxKeys(DoubleVector.broadcast(species, Double.NEGATIVE_INFINITY));
            assertEquals(Long.MIN_VALUE, identity.reduceLanes(VectorOperators.MIN), "the key of -∞ is the smallest");
            long maxKey = identity.max(OrderKeys.maxKeys(x)).reduceLanes(VectorOperators.MAX);
            long minKey = OrderKeys.minKeys(DoubleVector.broadcast(species, Double.POSITIVE_INFINITY)).max(OrderKeys.minKeys(x))
                    .reduceLanes(VectorOperators.MAX);
            assertEquals(bits(max), bits(OrderKeys.fromMaxKey(maxKey)), () -> "max of " + x);
            assertEquals(bits(min), bits(OrderKeys.fromMinKey(minKey)), () -> "min of " + x);
        }
    }

    /// Every pair of specials, one lane each: the key order is the order `Math.max` picks by.
    @Test
    void keysOfEveryPairOfSpecialsOrderAsMathMax() {
        var species = FloatVector.SPECIES_PREFERRED;
        for (int a : FLOAT_SPECIALS) {
            for (int b : FLOAT_SPECIALS) {
                float x = Float.intBitsToFloat(a), y = Float.intBitsToFloat(b);
                int keyA = OrderKeys.maxKeys(FloatVector.broadcast(species, x)).lane(0), keyB = OrderKeys.maxKeys(FloatVector.broadcast(species, y)).lane(0);
                assertEquals(bits(Math.max(x, y)), bits(OrderKeys.fromMaxKey(Math.max(keyA, keyB))), () -> "max(" + x + ", " + y + ")");
                int minA = OrderKeys.minKeys(FloatVector.broadcast(species, x)).lane(0), minB = OrderKeys.minKeys(FloatVector.broadcast(species, y)).lane(0);
                assertEquals(bits(Math.min(x, y)), bits(OrderKeys.fromMinKey(Math.max(minA, minB))), () -> "min(" + x + ", " + y + ")");
            }
        }
    }

    /// NaN compares as one value whatever its payload; other floats by their bits.
    private static long bits(float value) { return Float.isNaN(value) ? 0x7fc0_0000 : Float.floatToRawIntBits(value); }

    private static long bits(double value) { return Double.isNaN(value) ? 0x7ff8_0000_0000_0000L : Double.doubleToRawLongBits(value); }
}
