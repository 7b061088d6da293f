// SPDX-License-Identifier: Apache-2.0
package dev.smelt;

import dev.smelt.ir.PackedMatrix;

/// How a weight matrix `W [N, K]` (outputs × inputs, multiplied as `x.matmul(w.t())`) stores its
/// values: see [TensorFormats#toWeightFormat]. A packed weight holds exactly the `f32` values it
/// was rounded to, so every op reads it as an `f32` tensor; only the GEMV of a compiled or eager
/// `x.matmul(w.t())` with a few rows of x reads it packed, dequantising in registers and
/// accumulating in `f32`.
///
/// Against the `f32` weight it was made from, a product `y = Σ_k x_k·w_k` over K moves by at most
/// (beyond `f32`'s own rounding of the sum):
///
/// - [#BF16]: each weight rounds to 8 significant bits, relative error ≤ 2⁻⁸ (half the spacing
///   2⁻⁷ of bf16 values just above 1), so `|Δy| ≤ 2⁻⁸ · Σ_k |x_k·w_k|`.
/// - [#INT8]: each weight moves by at most half its group's scale, `max|w_group| / 254`, so
///   `|Δy| ≤ Σ_k |x_k| · scale_k / 2`.
public enum WeightFormat {
    /// Ordinary `f32`, 4 bytes per weight.
    F32,
    /// bfloat16, 2 bytes per weight: the upper half of the `f32` bits, rounded to nearest even.
    BF16,
    /// int8 in groups of 32 along K with an `f32` scale per group (llama2.c's `runq.c` Q8_0:
    /// `scale = max|w| / 127`, `q = round(w / scale)`), 1.125 bytes per weight. A K that is not a
    /// multiple of 32 leaves each row's last group shorter, with a scale of its own.
    INT8;

    /// The packed storage format of this one; null for `F32`.
    PackedMatrix.Format packed() {
        return switch (this) {
            case F32 -> null;
            case BF16 -> PackedMatrix.Format.BF16;
            case INT8 -> PackedMatrix.Format.Q8_0;
        };
    }

    /// The format of a packed storage format, `F32` for null.
    static WeightFormat of(PackedMatrix.Format packed) {
        if (packed == null) return F32;
        return switch (packed) {
            case BF16 -> BF16;
            case Q8_0 -> INT8;
        };
    }
}
