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
///
/// A batch of matrices times one matrix (`x[b…, m, k] · w[k, n]`, a linear layer on a batch of
/// sequences) is one product of `b…·m` rows, as PyTorch's `matmul` folds it: the right operand is
/// packed once instead of once per batch entry, and the weight's gradient becomes one product whose
/// K runs over the whole batch instead of a product per entry and a sum over the batch.
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
        int m = last(left.shape(), 2), n = last(right.shape(), 1);
        Node product;
        // x[b…, m, k] · w[k, n] as x[b…·m, k] · w. Only a right operand given as a matrix folds, as in
        // PyTorch: a batch of size-1 axes on it is how hand-written grouped-query attention shares one
        // key head, which attention fusion matches. k > 0 bounds b…·m by the left operand's count, so
        // the product of three cannot overflow.
        if (left.shape().rank() > 2 && right.shape().rank() == 2 && k > 0 && batch.count() * m * n <= Value.MAX_SIZE)
            product = b.matmul(b.reshape(b.cast(left, dtype), Shape.of((int) batch.count() * m, k)), b.cast(right, dtype));
        else
            product = b.matmul(b.broadcast(b.cast(left, dtype), with(batch, m, k)), b.broadcast(b.cast(right, dtype), with(batch, k, n)));
        Kernels.expectMatMul(dtype, (long) product.shape().count() * k);
        var dims = new ArrayList<>(batch.dims());
        if (sa.rank() > 1) dims.add(m);
        if (sc.rank() > 1) dims.add(n);
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
