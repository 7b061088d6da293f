// SPDX-License-Identifier: Apache-2.0
package dev.smelt;

import dev.smelt.ir.BinaryOp;
import dev.smelt.ir.DType;
import dev.smelt.ir.Node;
import dev.smelt.ir.Shape;
import java.util.List;

/// `tril` and `triu` over the last two axes: a `where` on row and column indices (iota), which
/// fuses into whatever reads it, so a causal mask never reaches memory.
final class Triangles {
    private Triangles() {}

    /// Keeps the elements on and below diagonal `k` (column − row ≤ k) when `lower`, on and above it
    /// (column − row ≥ k) otherwise; the rest become 0.
    static Tensor keep(String op, Tensor x, int k, boolean lower) {
        Ops.nonNull(op, x);
        if (x.rank() < 2) throw SmeltException.of(op, "needs at least 2 axes (a matrix or a batch of them), got %s", x.shape());
        return Dispatch.apply(op, List.of(x), (b, in) -> {
            Node value = in.getFirst();
            Shape shape = value.shape();
            int rank = shape.rank();
            Node rows = b.iota(shape, rank - 2, DType.I32), columns = b.iota(shape, rank - 1, DType.I32);
            // column − row against k, as column against row + k: no overflow for any k within ±2^31 − sizes
            Node shifted = b.binary(BinaryOp.ADD, rows, b.constant(k, shape, DType.I32));
            Node inside = b.binary(lower ? BinaryOp.LE : BinaryOp.GE, columns, shifted);
            return b.where(inside, value, b.constant(0, shape, value.dtype()));
        });
    }
}
