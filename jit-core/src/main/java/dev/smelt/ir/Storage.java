// SPDX-License-Identifier: Apache-2.0
package dev.smelt.ir;

/// A flat, mutable array of one dtype: `float[]`, `double[]`, `int[]`, or `byte[]` of 0/1 for bool.
/// Tensors view it through shape, strides and offset; the interpreter and kernels read and write it.
/// It lives in `ir` because every layer above shares it.
///
/// An `f32` storage may instead hold a [PackedMatrix] (a bf16 or int8 weight): it is read-only, and
/// its `float[]` is made from the packed values only when code asks for [#array] (the matmul kernels
/// that read it packed never do).
public final class Storage {
    private final DType dtype;
    private volatile Object array; // null until first asked for, when packed
    private final int size;
    private final PackedMatrix packed;

    private Storage(DType dtype, Object array, int size) {
        this.dtype = dtype;
        this.array = array;
        this.size = size;
        this.packed = null;
    }

    private Storage(PackedMatrix packed) {
        this.dtype = DType.F32;
        this.size = Math.multiplyExact(packed.rows(), packed.columns());
        this.packed = packed;
    }

    /// A read-only `f32` storage of `packed`'s values, row-major.
    public static Storage packed(PackedMatrix packed) { return new Storage(packed); }

    /// The packed matrix this storage holds, or null for an ordinary array.
    public PackedMatrix packed() { return packed; }

    /// A zero-filled storage of `size` elements.
    public static Storage allocate(DType dtype, int size) { return new Storage(dtype, newArray(dtype, size), size); }

    /// A zero-filled backing array of `size` elements, without the storage around it (a compiled
    /// call's result, wrapped once it is written).
    /// `size` elements of `value`, already rounded to `dtype` (a constant's value).
    public static Storage filled(DType dtype, int size, double value) {
        Object array = newArray(dtype, size);
        if (value != 0 || Double.doubleToRawLongBits(value) != 0)
            switch (dtype) {
                case F32 -> java.util.Arrays.fill((float[]) array, (float) value);
                case F64 -> java.util.Arrays.fill((double[]) array, value);
                case I32 -> java.util.Arrays.fill((int[]) array, (int) value);
                case BOOL -> java.util.Arrays.fill((byte[]) array, (byte) (value != 0 ? 1 : 0));
            }
        return new Storage(dtype, array, size);
    }

    public static Object newArray(DType dtype, int size) {
        return switch (dtype) {
            case BOOL -> new byte[size];
            case I32 -> new int[size];
            case F32 -> new float[size];
            case F64 -> new double[size];
        };
    }

    public static Storage wrap(float[] data) { return new Storage(DType.F32, data, data.length); }

    public static Storage wrap(double[] data) { return new Storage(DType.F64, data, data.length); }

    public static Storage wrap(int[] data) { return new Storage(DType.I32, data, data.length); }

    /// Bool storage over `data`, whose elements must be 0 or 1.
    public static Storage wrapBool(byte[] data) { return new Storage(DType.BOOL, data, data.length); }

    /// Storage over an existing `float[]`, `double[]`, `int[]` or bool `byte[]`, as kernels take them.
    public static Storage wrapArray(Object array) {
        return switch (array) {
            case float[] data -> wrap(data);
            case double[] data -> wrap(data);
            case int[] data -> wrap(data);
            case byte[] data -> wrapBool(data);
            default -> throw new IllegalArgumentException("not a tensor array: " + array.getClass().getSimpleName());
        };
    }

    /// The backing array: `float[]`, `double[]`, `int[]` or `byte[]` per the dtype. A packed
    /// storage's `float[]` is made on the first call and kept; it must not be written.
    public Object array() {
        Object values = array;
        return values != null ? values : materialise();
    }

    private synchronized Object materialise() {
        if (array == null) array = packed.toFloats();
        return array;
    }

    public DType dtype() { return dtype; }

    public int size() { return size; }

    /// Element `index` as a double; exact for every dtype.
    public double get(int index) {
        if (packed != null) return packed.get(index);
        Object array = this.array;
        return switch (dtype) {
            case BOOL -> ((byte[]) array)[index];
            case I32 -> ((int[]) array)[index];
            case F32 -> ((float[]) array)[index];
            case F64 -> ((double[]) array)[index];
        };
    }

    /// Stores `value` rounded to the dtype, as [DType#round] does.
    public void set(int index, double value) {
        if (packed != null) throw new IllegalStateException("a packed " + packed + " storage is read-only");
        Object array = this.array;
        switch (dtype) {
            case BOOL -> ((byte[]) array)[index] = (byte) (value != 0 ? 1 : 0);
            case I32 -> ((int[]) array)[index] = (int) value;
            case F32 -> ((float[]) array)[index] = (float) value;
            case F64 -> ((double[]) array)[index] = value;
        }
    }

    public float[] floats() { return (float[]) array(); }

    public double[] doubles() { return (double[]) array(); }

    public int[] ints() { return (int[]) array(); }

    public byte[] bools() { return (byte[]) array(); }
}
