// SPDX-License-Identifier: Apache-2.0
package dev.smelt;

import dev.smelt.ir.SmeltException;
import dev.smelt.ops.Formats;

/// [Tensor]'s weight formats: a weight matrix stored as bf16 or int8 ([WeightFormat]), which the
/// GEMV of `x.matmul(w.t())` reads packed (decoding a language model token by token streams every
/// weight once, so fewer bytes per weight is proportionally faster). Only `Tensor` implements it.
public sealed interface TensorFormats permits Tensor {
    /// This concrete 2-D `f32` matrix `[N, K]` (N outputs, K inputs) stored in `format`, a new
    /// read-only tensor of the rounded values (for [WeightFormat#F32], this tensor). It reads as
    /// any `f32` tensor; a function that captures it whole and multiplies `x.matmul(w.t())` with
    /// at most four rows of x reads it packed, within the bounds [WeightFormat] states. Any other
    /// use (a view captured, a larger product, an elementwise op) reads an `f32` copy of the
    /// rounded values, made once. Writing into it throws.
    default Tensor toWeightFormat(WeightFormat format) {
        if (format == null) throw SmeltException.of("toWeightFormat", "the format is null; expected F32, BF16 or INT8");
        return Tensor.wrap(Formats.convert(((Tensor) this).value(), format.packed()));
    }

    /// [WeightFormat#BF16] or [WeightFormat#INT8] for a tensor made by [#toWeightFormat] (and
    /// views of it), [WeightFormat#F32] for every other tensor.
    default WeightFormat weightFormat() { return WeightFormat.of(Formats.format(((Tensor) this).value())); }
}
