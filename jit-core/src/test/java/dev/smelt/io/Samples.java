// SPDX-License-Identifier: Apache-2.0
package dev.smelt.io;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.smelt.Tensor;
import dev.smelt.ir.DType;
import dev.smelt.ir.Shape;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.Random;

/// Random tensors for round trips, each with its little-endian bytes as a file holds them. Float
/// elements are random bit patterns (NaNs with payloads, quiet and signalling, subnormals) mixed
/// with the special values; shapes include rank 0 and size-0 axes.
final class Samples {
    private Samples() {}

    static final float[] FLOAT_SPECIALS = {0f, -0f, Float.NaN, Float.intBitsToFloat(0x7f800001), Float.intBitsToFloat(0xffc12345),
            Float.POSITIVE_INFINITY, Float.NEGATIVE_INFINITY, Float.MIN_VALUE, -Float.MIN_NORMAL / 3, Float.MAX_VALUE};
    static final double[] DOUBLE_SPECIALS = {0.0, -0.0, Double.NaN, Double.longBitsToDouble(0x7ff0000000000001L), Double.longBitsToDouble(0xfff8dead00000000L),
            Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY, Double.MIN_VALUE, -Double.MIN_NORMAL / 3, Double.MAX_VALUE};

    /// A tensor with the bytes a file stores for it.
    record Sample(Tensor tensor, byte[] bytes) {
        void assertSameAs(Tensor actual, String where) {
            assertEquals(tensor.dtype(), actual.dtype(), where + ": dtype");
            assertEquals(tensor.shape(), actual.shape(), where + ": shape");
            assertArrayEquals(bytes, Samples.bytes(actual), where + ": bytes");
        }
    }

    static Sample random(Random random) {
        DType dtype = DType.values()[random.nextInt(DType.values().length)];
        int rank = random.nextInt(5);
        int[] dims = new int[rank];
        for (int axis = 0; axis < rank; axis++) dims[axis] = random.nextInt(8) == 0 ? 0 : 1 + random.nextInt(rank > 2 ? 4 : 9);
        int size = Shape.of(dims).size();
        Tensor tensor = switch (dtype) {
            case F32 -> {
                float[] values = new float[size];
                for (int i = 0; i < size; i++) values[i] = random.nextBoolean() ? FLOAT_SPECIALS[random.nextInt(FLOAT_SPECIALS.length)] : Float.intBitsToFloat(random.nextInt());
                yield Tensor.of(values, dims);
            }
            case F64 -> {
                double[] values = new double[size];
                for (int i = 0; i < size; i++) values[i] = random.nextBoolean() ? DOUBLE_SPECIALS[random.nextInt(DOUBLE_SPECIALS.length)] : Double.longBitsToDouble(random.nextLong());
                yield Tensor.of(values, dims);
            }
            case I32 -> Tensor.of(random.ints(size).toArray(), dims);
            case BOOL -> {
                boolean[] values = new boolean[size];
                for (int i = 0; i < size; i++) values[i] = random.nextBoolean();
                yield Tensor.of(values, dims);
            }
        };
        return new Sample(tensor, bytes(tensor));
    }

    /// A dense tensor's elements as little-endian bytes, bits unchanged.
    static byte[] bytes(Tensor tensor) {
        var buffer = ByteBuffer.allocate(tensor.size() * tensor.dtype().bytes()).order(ByteOrder.LITTLE_ENDIAN);
        switch (tensor.dtype()) {
            case F32 -> { for (float value : tensor.toFloatArray()) buffer.putInt(Float.floatToRawIntBits(value)); }
            case F64 -> { for (double value : tensor.toDoubleArray()) buffer.putLong(Double.doubleToRawLongBits(value)); }
            case I32 -> { for (int value : tensor.toIntArray()) buffer.putInt(value); }
            case BOOL -> { for (boolean value : tensor.toBooleanArray()) buffer.put((byte) (value ? 1 : 0)); }
        }
        return buffer.array();
    }

    static String safetensorsName(DType dtype) { return dtype == DType.BOOL ? "BOOL" : dtype.name(); }

    static long[] dims(Shape shape) { return Arrays.stream(shape.toArray()).asLongStream().toArray(); }
}
