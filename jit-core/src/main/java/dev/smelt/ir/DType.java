// SPDX-License-Identifier: Apache-2.0
package dev.smelt.ir;

/// Element types. Ordered by promotion: a binary op on two dtypes computes in the later one.
///
/// Promotion follows PyTorch's categories, bool < integer < floating: two tensors promote to the
/// higher dtype (`i32 + f32 -> f32`, `f32 + f64 -> f64`). A Java scalar is weak: it never widens a
/// tensor of its own category or higher (`f32 tensor + 2.5 -> f32`, `i32 tensor + 2 -> i32`) and
/// otherwise gives its category's default (`i32 tensor + 2.5 -> f32`, `bool tensor + 2 -> i32`).
public enum DType {
    /// Comparison results and masks, stored one byte per element as 0 or 1.
    BOOL("bool", 1),
    /// Indices (argmax, class labels) and integer arithmetic, which wraps around like Java's `int`.
    /// Converting a float to `i32` truncates toward zero and saturates like Java's `(int)` cast
    /// (NaN gives 0), which is also what vectorised kernels compute.
    I32("i32", 4),
    F32("f32", 4),
    F64("f64", 8);

    private final String text;
    private final int bytes;

    DType(String text, int bytes) {
        this.text = text;
        this.bytes = bytes;
    }

    /// Size of one element in bytes.
    public int bytes() { return bytes; }

    /// Whether this is `F32` or `F64`.
    public boolean isFloating() { return this == F32 || this == F64; }

    /// The dtype two tensors of these dtypes compute in.
    public static DType promote(DType a, DType b) {
        return a.ordinal() >= b.ordinal() ? a : b;
    }

    /// The dtype of `tensor op scalar` for a Java scalar of `scalarKind` (BOOL, I32 or F32).
    public static DType promoteWithScalar(DType tensor, DType scalarKind) {
        return category(scalarKind) > category(tensor) ? scalarKind : tensor;
    }

    private static int category(DType dtype) {
        return switch (dtype) {
            case BOOL -> 0;
            case I32 -> 1;
            case F32, F64 -> 2;
        };
    }

    /// Rounds a value computed in double to this dtype, as storing it would.
    public double round(double value) {
        return switch (this) {
            case BOOL -> value != 0 ? 1 : 0;
            case I32 -> (int) value;
            case F32 -> (float) value;
            case F64 -> value;
        };
    }

    /// The name the IR text uses: `f32`, `f64`, `i32`, `bool`.
    @Override
    public String toString() { return text; }

    /// The dtype the IR text calls `text` (`f32`, `f64`, `i32`, `bool`); anything else throws
    /// `IllegalArgumentException`.
    public static DType parse(String text) {
        for (var dtype : values())
            if (dtype.text.equals(text)) return dtype;
        throw new IllegalArgumentException("unknown dtype '" + text + "'; expected f32, f64, i32 or bool");
    }
}
