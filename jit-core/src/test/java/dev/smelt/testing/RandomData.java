// SPDX-License-Identifier: Apache-2.0
package dev.smelt.testing;

import dev.smelt.ir.DType;
import dev.smelt.ir.Storage;
import dev.smelt.kernel.Kernel;
import java.util.Random;

/// Buffers for a kernel, the same for the same seed: inputs with special values among ordinary
/// ones, outputs filled with random values so that an element the kernel must not write is noticed.
///
/// Each floating-point buffer draws from one profile: Gaussian with a scale of 1, 4 or 30, small
/// integers (so `pow` and comparisons see ties and exact zeros), or magnitudes log-uniform over
/// 2^-30 … 2^30; and has a special-value rate of 0, 3% or 25%, specials being NaN, ±0, ±∞, the
/// subnormals `±Float.MIN_VALUE` and `Float.MIN_NORMAL / 3`, `±Float.MAX_VALUE`, ±1 and 0.5 (and the
/// `double` extremes for `f64`). `i32` buffers hold small integers and sometimes the extremes.
public final class RandomData {
    static final double[] SPECIAL = {Double.NaN, 0.0, -0.0, Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY,
        Float.MIN_VALUE, -Float.MIN_VALUE, Float.MIN_NORMAL / 3, Float.MAX_VALUE, -Float.MAX_VALUE, 1, -1, 0.5};
    private static final double[] SPECIAL_F64 = {Double.MIN_VALUE, Double.MIN_NORMAL / 3, Double.MAX_VALUE, -Double.MAX_VALUE};

    private RandomData() {}

    public static Object[] buffers(long seed, Kernel kernel) {
        var random = new Random(seed * 31 + 7);
        Object[] buffers = new Object[kernel.bufferCount()];
        for (int i = 0; i < kernel.inputs().size(); i++) buffers[i] = fill(random, kernel.inputs().get(i).dtype(), kernel.inputs().get(i).size());
        for (int i = 0; i < kernel.outputs().size(); i++) buffers[kernel.inputs().size() + i] = fill(random, kernel.outputs().get(i).dtype(), kernel.outputs().get(i).size());
        return buffers;
    }

    /// Deep copies, so two runs start from the same buffers.
    public static Object[] copy(Object[] buffers) {
        Object[] copy = new Object[buffers.length];
        for (int i = 0; i < buffers.length; i++) copy[i] = clone(buffers[i]);
        return copy;
    }

    private static Object clone(Object array) {
        return switch (array) {
            case float[] a -> a.clone();
            case double[] a -> a.clone();
            case int[] a -> a.clone();
            case byte[] a -> a.clone();
            default -> throw new IllegalArgumentException("not a buffer: " + array);
        };
    }

    /// `size` values of `dtype` drawn as [#buffers] draws each buffer (one profile and special-value
    /// rate per call), for tests that build tensors rather than kernel buffers.
    public static Storage values(Random random, DType dtype, int size) { return Storage.wrapArray(fill(random, dtype, size)); }

    private static Object fill(Random random, DType dtype, int size) {
        var storage = Storage.allocate(dtype, size);
        int profile = random.nextInt(5);
        double specials = new double[] {0, 0.03, 0.25}[random.nextInt(3)], scale = new double[] {1, 4, 30}[random.nextInt(3)];
        for (int i = 0; i < size; i++) storage.set(i, element(random, dtype, profile, specials, scale));
        return storage.array();
    }

    private static double element(Random random, DType dtype, int profile, double specials, double scale) {
        return switch (dtype) {
            case BOOL -> random.nextInt(2);
            case I32 -> random.nextInt(50) == 0 ? new int[] {Integer.MIN_VALUE, Integer.MAX_VALUE, 1 << 20, -(1 << 20)}[random.nextInt(4)] : random.nextInt(17) - 8;
            case F32, F64 -> {
                if (random.nextDouble() < specials) {
                    boolean wide = dtype == DType.F64 && random.nextInt(4) == 0;
                    yield wide ? SPECIAL_F64[random.nextInt(SPECIAL_F64.length)] : SPECIAL[random.nextInt(SPECIAL.length)];
                }
                yield switch (profile) {
                    case 0, 1 -> random.nextGaussian() * scale;
                    case 2 -> random.nextInt(9) - 4;
                    case 3 -> Math.scalb(1 + random.nextDouble(), random.nextInt(61) - 30) * (random.nextBoolean() ? 1 : -1);
                    default -> random.nextGaussian();
                };
            }
        };
    }
}
