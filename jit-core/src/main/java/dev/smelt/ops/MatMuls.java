// SPDX-License-Identifier: Apache-2.0
package dev.smelt.ops;

import dev.smelt.driver.Kernels;
import dev.smelt.ir.DType;
import dev.smelt.ir.Node;
import dev.smelt.ir.Shape;
import dev.smelt.ir.SmeltException;
import java.util.ArrayList;
import java.util.List;

/// NumPy `matmul` semantics on top of the IR's batched [Node.MatMul]: a 1-D left operand is a row
/// vector and a 1-D right operand a column vector (their unit axes removed from the result), and
/// leading batch axes broadcast.
public final class MatMuls {
    private MatMuls() {}

    static Node build(Builder b, Node a, Node c) {
        Shape sa = a.shape(), sc = c.shape();
        if (sa.rank() == 0 || sc.rank() == 0)
            throw SmeltException.of("matmul", "operands must have at least one axis, got %s and %s; use mul for scalars", sa, sc);
        if (!a.dtype().isFloating() || !c.dtype().isFloating())
            throw SmeltException.of("matmul", "needs float operands, got %s and %s; convert with .to(DType.F32)", a.dtype(), c.dtype());
        DType dtype = DType.promote(a.dtype(), c.dtype());
        Node left = sa.rank() == 1 ? b.reshape(a, Shape.of(1, sa.dim(0))) : a;
        Node right = sc.rank() == 1 ? b.reshape(c, Shape.of(sc.dim(0), 1)) : c;
        int k = last(left.shape(), 1), kRight = last(right.shape(), 2);
        if (k != kRight)
            throw SmeltException.of("matmul", "cannot multiply %s by %s: the left has %d columns but the right has %d rows", sa, sc, k, kRight);
        Shape batch = Builder.broadcastShapes("matmul", batch(left.shape()), batch(right.shape()));
        left = b.broadcast(b.cast(left, dtype), with(batch, last(left.shape(), 2), k));
        right = b.broadcast(b.cast(right, dtype), with(batch, k, last(right.shape(), 1)));
        Node product = b.matmul(left, right);
        Kernels.expectMatMul(dtype, (long) product.shape().count() * k);
        var dims = new ArrayList<>(batch.dims());
        if (sa.rank() > 1) dims.add(last(product.shape(), 2));
        if (sc.rank() > 1) dims.add(last(product.shape(), 1));
        return b.reshape(product, new Shape(dims));
    }

    private static int last(Shape shape, int fromEnd) { return shape.dim(shape.rank() - fromEnd); }

    private static Shape batch(Shape matrix) { return new Shape(matrix.dims().subList(0, matrix.rank() - 2)); }

    private static Shape with(Shape batch, int rows, int columns) {
        var dims = new ArrayList<>(batch.dims());
        dims.addAll(List.of(rows, columns));
        return new Shape(dims);
    }
}
