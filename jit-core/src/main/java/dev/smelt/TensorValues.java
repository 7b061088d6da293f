// SPDX-License-Identifier: Apache-2.0
package dev.smelt;

import dev.smelt.ops.Copies;
import dev.smelt.ops.Values;

/// [Tensor]'s element access: reading values out and writing them in. Only `Tensor` implements it; the
/// methods live here to keep `Tensor`'s file to its core (each family of its API has a file).
/// Concrete tensors only: reading a traced tensor's values throws.
public sealed interface TensorValues permits Tensor {
    /// Element at `index` (negative indices count from the end), as a double.
    default double get(int... index) { return Values.get(((Tensor) this).value(), index); }
    /// Stores `value` (rounded to the dtype) at `index` in place, seen by views and by compiled functions that
    /// read this tensor at their next call; `t.set(0.01)` sets a 0-d tensor such as a hyper-parameter.
    default void set(double value, int... index) { Values.set(((Tensor) this).value(), value, index); }
    /// Overwrites every element with `source`'s (same shape and dtype; bits unchanged) in place, as [#set]
    /// does one, and returns this tensor. A broadcast view (`expand`) cannot be written: elements share storage.
    default Tensor copyFrom(Tensor source) { return Tensor.wrap(Copies.copyFrom(((Tensor) this).value(), Tensor.value(source))); }
    /// Overwrites every element with `values` in row-major order; their count must be [Tensor#size].
    /// Into `f32` bit for bit or `f64` exactly; not into `i32`.
    default Tensor copyFrom(float[] values) { return Tensor.wrap(Copies.copyFrom(((Tensor) this).value(), values)); }
    /// Into `f64` only: rounding to `f32` would change the values (copy from `Tensor.of(values).to(DType.F32)` to round).
    default Tensor copyFrom(double[] values) { return Tensor.wrap(Copies.copyFrom(((Tensor) this).value(), values)); }
    /// Into `i32`, or `f64`, which holds every `int` exactly.
    default Tensor copyFrom(int[] values) { return Tensor.wrap(Copies.copyFrom(((Tensor) this).value(), values)); }
    /// Into `bool` only.
    default Tensor copyFrom(boolean[] values) { return Tensor.wrap(Copies.copyFrom(((Tensor) this).value(), values)); }
    /// The only element of a one-element tensor.
    default double item() { return Values.item(((Tensor) this).value()); }
    /// The elements in row-major order as a new `float[]` (other dtypes converted).
    default float[] toFloatArray() { return Values.floats(((Tensor) this).value()); }
    /// The elements in row-major order as a new `double[]`.
    default double[] toDoubleArray() { return Values.doubles(((Tensor) this).value()); }
    /// The elements of an `i32` or `bool` tensor as a new `int[]`; floats throw (convert with [Tensor#to]).
    default int[] toIntArray() { return Values.ints(((Tensor) this).value()); }
    /// The elements of a `bool` tensor as a new `boolean[]`; other dtypes throw.
    default boolean[] toBooleanArray() { return Values.booleans(((Tensor) this).value()); }
    /// `torch.allclose`: `|a - b| ≤ atol + rtol·|b|` everywhere after broadcasting, NaN never close,
    /// with `rtol = 1e-5` and `atol = 1e-8`.
    default boolean allClose(Tensor other) { return Values.allClose(((Tensor) this).value(), Tensor.value(other), 1e-5, 1e-8, false); }
    /// [#allClose(Tensor)] with the given tolerances; with `equalNan`, NaN is close to NaN.
    default boolean allClose(Tensor other, double rtol, double atol, boolean equalNan) { return Values.allClose(((Tensor) this).value(), Tensor.value(other), rtol, atol, equalNan); }
}
