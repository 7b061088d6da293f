// SPDX-License-Identifier: Apache-2.0
package dev.smelt;

import dev.smelt.ir.SmeltException;
import dev.smelt.ops.IndexOps;
import dev.smelt.ops.Sorting;
import java.util.List;

/// [Tensor]'s indexing: gather and index select, scatter, functional updates, sorting. Only `Tensor`
/// implements it; the methods live here to keep `Tensor`'s file to its core. Indices are `i32` and
/// must lie in `0..n-1` (negative ones are out of range, as in PyTorch's `gather` and
/// `index_select`); one out of range throws [SmeltException], eagerly and from compiled code alike.
/// Updates are functional: they return a new tensor, which a compiled function writes in place into
/// a donated argument (`Compiled.applyUpdating`), so a KV cache grows without a copy.
public sealed interface TensorIndexing permits Tensor {
    /// `torch.gather`: `out[p] = this[p with p[axis] = index[p]]`; `index` has this tensor's rank and
    /// is no larger off `axis`; the result has its shape.
    default Tensor gather(int axis, Tensor index) { return Tensor.wrap(IndexOps.gather(((Tensor) this).value(), axis, Tensor.value(index))); }
    /// `torch.index_select`: the slices `index[0], index[1], …` (a 1-d `i32` tensor) of `axis`, in
    /// that order, repeats allowed. An embedding lookup is `weight.indexSelect(0, tokens)`.
    default Tensor indexSelect(int axis, Tensor index) { return Tensor.wrap(IndexOps.indexSelect(((Tensor) this).value(), axis, Tensor.value(index))); }
    /// `torch.scatter_add`, functional: a copy with each `src[p]` added at `p` with `p[axis] = index[p]`;
    /// `index` and `src` have one shape, no larger than this tensor off `axis`. Repeated indices sum in
    /// row-major order of `p`, the same bits on every call. `src` converts to this tensor's dtype.
    default Tensor scatterAdd(int axis, Tensor index, Tensor src) { return Tensor.wrap(IndexOps.scatter("scatterAdd", ((Tensor) this).value(), axis, Tensor.value(index), Tensor.value(src), true)); }
    /// `torch.scatter`, functional: as [#scatterAdd] but writing; a repeated index keeps the last `src` (row-major).
    default Tensor scatter(int axis, Tensor index, Tensor src) { return Tensor.wrap(IndexOps.scatter("scatter", ((Tensor) this).value(), axis, Tensor.value(index), Tensor.value(src), false)); }
    /// `x[..., index, ...] = values` along `axis` (`torch.index_copy`, the one-index case of `index_put`),
    /// functional: `index` is 1-d `i32`, `values` broadcasts to this shape with `axis` of `index.size()`;
    /// a repeated index keeps the last slice.
    default Tensor indexPut(int axis, Tensor index, Tensor values) { return Tensor.wrap(IndexOps.indexPut(((Tensor) this).value(), axis, Tensor.value(index), Tensor.value(values))); }
    /// `x[..., start:start+n, ...] = value` along `axis`, functional (`n = value.dim(axis)`; sizes
    /// elsewhere equal; a negative `start` counts from the end).
    default Tensor sliceUpdate(int axis, int start, Tensor value) { return Tensor.wrap(IndexOps.sliceUpdate(((Tensor) this).value(), axis, start, Tensor.value(value))); }
    /// [#sliceUpdate(int, int, Tensor)] at a position held by a 0-d `i32` tensor, which may change from call
    /// to call without recompiling (a decode step's KV-cache position); it must lie in `0..dim(axis) - n`.
    default Tensor sliceUpdate(int axis, Tensor start, Tensor value) { return Tensor.wrap(IndexOps.sliceUpdate(((Tensor) this).value(), axis, Tensor.value(start), Tensor.value(value))); }
    /// The `i32` indices that sort each line along `axis`, stably (`torch.argsort(stable=True)`); NaN
    /// sorts last ascending, first descending; -0 equals +0. Compiled as a sort kernel of its own.
    default Tensor argsort(int axis, boolean descending) { return Tensor.wrap(Sorting.argsort(((Tensor) this).value(), axis, descending)); }
    /// The `k` largest values along `axis`, largest first, ties in index order, and their `i32`
    /// indices, as `torch.topk`: `List.of(values, indices)` (a descending argsort, then a gather: the
    /// values have a gradient).
    default List<Tensor> topk(int k, int axis) { return Tensor.wrap(Sorting.topk(((Tensor) this).value(), k, axis)); }
}
