// SPDX-License-Identifier: Apache-2.0
package dev.smelt.ir;

/// A matrix `[rows, columns]` of `f32` values kept in a compact format, the storage of a weight
/// that a matmul reads as `x · Wᵀ` (rows are the outputs, columns the reduced K axis). Its values
/// are exactly the `f32` numbers [#get] returns; only their storage is narrower:
///
/// - [Format#BF16]: each value the upper half of its `f32` bits, rounded to nearest even, in a `short[]`.
/// - [Format#Q8_0]: llama2.c's `runq.c` scheme. Each row is cut into groups of [#GROUP] columns (the
///   last group of a row is shorter when `columns` is not a multiple of 32); a group keeps one `f32`
///   scale `max|w| / 127` and per value `q = round(w / scale)` in a `byte[]`, so a value is `q · scale`
///   (0 for an all-zero group).
///
/// Immutable once built. Lives in `ir` beside [Storage], which may hold one instead of an array.
public final class PackedMatrix {
    /// Values per scale in [Format#Q8_0], along a row.
    public static final int GROUP = 32;

    /// How the values are stored.
    public enum Format { BF16, Q8_0 }

    private final Format format;
    private final int rows, columns;
    private final short[] halves;  // BF16: rows · columns upper halves
    private final byte[] quants;   // Q8_0: rows · columns quantised values
    private final float[] scales;  // Q8_0: rows · groups() scales

    private PackedMatrix(Format format, int rows, int columns, short[] halves, byte[] quants, float[] scales) {
        this.format = format;
        this.rows = rows;
        this.columns = columns;
        this.halves = halves;
        this.quants = quants;
        this.scales = scales;
    }

    /// `values` (row-major `[rows, columns]`) rounded to bf16, to nearest even (NaN stays NaN).
    public static PackedMatrix bf16(float[] values, int rows, int columns) {
        short[] halves = new short[rows * columns];
        for (int i = 0; i < halves.length; i++) halves[i] = toBf16(values[i]);
        return new PackedMatrix(Format.BF16, rows, columns, halves, null, null);
    }

    /// `values` (row-major `[rows, columns]`, all finite: the caller checks) quantised to int8 in
    /// groups of [#GROUP] along each row.
    public static PackedMatrix q8(float[] values, int rows, int columns) {
        int groups = groups(columns);
        byte[] quants = new byte[rows * columns];
        float[] scales = new float[rows * groups];
        for (int r = 0; r < rows; r++)
            for (int g = 0; g < groups; g++) {
                int from = r * columns + g * GROUP, to = r * columns + Math.min(columns, (g + 1) * GROUP);
                float max = 0;
                for (int i = from; i < to; i++) max = Math.max(max, Math.abs(values[i]));
                float scale = max / 127;
                scales[r * groups + g] = scale;
                if (scale != 0) for (int i = from; i < to; i++) quants[i] = (byte) Math.round(values[i] / scale);
            }
        return new PackedMatrix(Format.Q8_0, rows, columns, null, quants, scales);
    }

    /// Groups of [#GROUP] per row of `columns` values, the last one possibly shorter.
    public static int groups(int columns) { return (int) ((columns + GROUP - 1L) / GROUP); }

    /// The bf16 nearest to `value` (ties to even), as its 16 bits.
    public static short toBf16(float value) {
        int bits = Float.floatToRawIntBits(value);
        if (Float.isNaN(value)) return (short) ((bits >>> 16) | 0x40); // quiet, whatever the low bits held
        return (short) ((bits + 0x7FFF + ((bits >>> 16) & 1)) >>> 16);
    }

    /// The `f32` value of bf16 bits `half`.
    public static float fromBf16(short half) { return Float.intBitsToFloat(half << 16); }

    public Format format() { return format; }

    public int rows() { return rows; }

    public int columns() { return columns; }

    /// BF16's bits, row-major; the array itself, which callers must not write.
    public short[] halves() { return halves; }

    /// Q8_0's quantised values, row-major; the array itself, which callers must not write.
    public byte[] quants() { return quants; }

    /// Q8_0's scales, `[rows, groups(columns)]`; the array itself, which callers must not write.
    public float[] scales() { return scales; }

    /// Element `[row, column]`, at row-major position `index`.
    public float get(int index) {
        return switch (format) {
            case BF16 -> fromBf16(halves[index]);
            case Q8_0 -> {
                int row = index / columns;
                yield quants[index] * scales[row * groups(columns) + (index - row * columns) / GROUP];
            }
        };
    }

    /// Every value as `f32`, row-major: what [Storage] materialises for code that reads the matrix
    /// as an ordinary array.
    public float[] toFloats() {
        float[] values = new float[rows * columns];
        for (int i = 0; i < values.length; i++) values[i] = get(i);
        return values;
    }

    /// Bytes the values take: 2 per value for BF16, 1 per value and 4 per group for Q8_0.
    public long bytes() {
        return format == Format.BF16 ? 2L * rows * columns : (long) rows * columns + 4L * rows * groups(columns);
    }

    @Override
    public String toString() { return format.name().toLowerCase(java.util.Locale.ROOT) + "[" + rows + ", " + columns + "]"; }
}
