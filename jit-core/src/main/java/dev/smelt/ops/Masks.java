// SPDX-License-Identifier: Apache-2.0
package dev.smelt.ops;

import dev.smelt.ir.BinaryOp;
import dev.smelt.ir.DType;
import dev.smelt.ir.IndexBounds;
import dev.smelt.ir.Node;
import dev.smelt.ir.Shape;
import dev.smelt.ir.SmeltException;
import java.util.ArrayList;
import java.util.List;

/// Masks made of index comparisons (iota), which fuse into whatever reads them, so that a causal
/// mask or a one-hot matrix never reaches memory on its own: `tril` and `triu` over the last two
/// axes, and `oneHot`.
public final class Masks {
    private Masks() {}

    /// Keeps the elements on and below diagonal `k` (column − row ≤ k) when `lower`, on and above it
    /// (column − row ≥ k) otherwise; the rest become 0.
    public static Value keep(String op, Value x, int k, boolean lower) {
        Ops.nonNull(op, x);
        if (x.rank() < 2) throw SmeltException.of(op, "needs at least 2 axes (a matrix or a batch of them), got %s", x.shape());
        return Dispatch.apply(op, List.of(x), (b, in) -> {
            Node value = in.getFirst();
            Shape shape = value.shape();
            int rank = shape.rank();
            Node rows = b.iota(shape, rank - 2, DType.I32), columns = b.iota(shape, rank - 1, DType.I32);
            // column − row against k, as column against row + k. column − row lies in
            // [1 − rows, columns − 1], so k clamped to [−rows, columns] keeps the same elements, and
            // row + k cannot wrap (tril(Integer.MAX_VALUE) keeps everything, as PyTorch's).
            int bounded = Math.clamp(k, -shape.dim(rank - 2), shape.dim(rank - 1));
            Node shifted = b.binary(BinaryOp.ADD, rows, b.constant(bounded, shape, DType.I32));
            Node inside = b.binary(lower ? BinaryOp.LE : BinaryOp.GE, columns, shifted);
            return b.where(inside, value, b.constant(0, shape, value.dtype()));
        });
    }

    /// Row `[..., c]` is 1 where c is the index, checked to lie in `[0, classes)` before any kernel
    /// runs (an index check, as crossEntropy's labels).
    public static Value oneHot(Value indices, int classes) {
        Ops.nonNull("oneHot", indices);
        if (indices.dtype() != DType.I32) throw SmeltException.of("oneHot", "indices must be i32, not %s", indices.dtype());
        if (classes <= 0) throw SmeltException.of("oneHot", "the number of classes must be positive, got %d", classes);
        var dims = new ArrayList<>(indices.shape().dims());
        dims.add(classes);
        Shape shape = new Shape(dims); // past Tensor.MAX_SIZE, the iota node refuses it
        var column = new ArrayList<>(indices.shape().dims());
        column.add(1);
        return Dispatch.apply("oneHot", List.of(indices), (b, in) -> {
            Node checked = b.indexCheck(in.getFirst(), new IndexBounds("oneHot", "index", classes));
            Node spread = b.broadcast(b.reshape(checked, new Shape(column)), shape);
            return b.cast(b.binary(BinaryOp.EQ, b.iota(shape, shape.rank() - 1, DType.I32), spread), DType.I32);
        });
    }
}
