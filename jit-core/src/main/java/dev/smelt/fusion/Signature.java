// SPDX-License-Identifier: Apache-2.0
package dev.smelt.fusion;

import dev.smelt.ir.Node;
import dev.smelt.ir.Shape;
import java.util.ArrayList;
import java.util.List;

/// The loop structure of a kernel. Pointwise: the space is a value's shape. A row kernel is anchored
/// by a reduction over `axes` of a value of shape `reduced` (or a matmul, whose virtual operand is
/// `[batch…, M, N, K]` reduced over K): its space lists the kept axes, then the reduced ones.
/// `product`: the anchor is a matmul, whose operand exists only as the loop, so every value its
/// kernel writes is a row value (the epilogue, once per `[m, n]`).
record Signature(Shape space, int reducedRank, Shape operand, int[] kernelAxisOf, boolean product) {
    static Signature pointwise(Shape shape) {
        int[] identity = new int[shape.rank()];
        for (int axis = 0; axis < identity.length; axis++) identity[axis] = axis;
        return new Signature(shape, 0, shape, identity, false);
    }

    /// The rows of `reduce(x, axes)`: kept axes of `operand` first, then the reduced ones.
    static Signature rows(Shape operand, List<Integer> axes) { return rows(operand, axes, false); }

    private static Signature rows(Shape operand, List<Integer> axes, boolean product) {
        var dims = new ArrayList<Integer>();
        int[] kernelAxisOf = new int[operand.rank()];
        for (int pass = 0; pass < 2; pass++)
            for (int axis = 0; axis < operand.rank(); axis++)
                if (axes.contains(axis) == (pass == 1)) {
                    kernelAxisOf[axis] = dims.size();
                    dims.add(operand.dim(axis));
                }
        return new Signature(new Shape(dims), axes.size(), operand, kernelAxisOf, product);
    }

    static Signature of(Node anchor) {
        return switch (anchor) {
            case Node.Reduce r -> rows(r.x().shape(), r.axes());
            case Node.MatMul m -> rows(matmulSpace(m), List.of(m.shape().rank()), true);
            default -> pointwise(anchor.shape());
        };
    }

    /// `[batch…, M, N, K]`: the product `a[…, m, k]·b[…, k, n]` before summing over K.
    static Shape matmulSpace(Node.MatMul m) {
        var dims = new ArrayList<>(m.shape().dims());
        int rank = m.a().shape().rank();
        dims.add(m.a().shape().dim(rank - (m.transposeA() ? 2 : 1)));
        return new Shape(dims);
    }

    boolean isRow() { return reducedRank > 0; }

    /// Whether a root of `shape` is computed at every point of the loop (else once per row).
    boolean atEveryPoint(Shape shape) { return !isRow() || !product && shape.equals(operand); }

    /// The mapping from kernel points to the anchor operand's indices.
    Mapping operandMapping() { return Mapping.axes(operand, kernelAxisOf, space.rank()); }

    /// The mapping from kernel points to the indices of a value of `shape` computed per row: the
    /// operand's shape with reduced axes as 1 (keepDims), or without them; null if neither.
    Mapping rowMapping(Shape shape) {
        if (!isRow()) return null;
        int kept = space.rank() - reducedRank;
        int[] axisOf = new int[shape.rank()];
        if (shape.equals(operand.reduced(reducedAxes()))) {
            for (int axis = 0; axis < operand.rank(); axis++) axisOf[axis] = kernelAxisOf[axis] < kept ? kernelAxisOf[axis] : -1;
            return Mapping.axes(shape, axisOf, space.rank());
        }
        if (shape.dims().equals(space.dims().subList(0, kept))) {
            for (int axis = 0; axis < kept; axis++) axisOf[axis] = axis;
            return Mapping.axes(shape, axisOf, space.rank());
        }
        return null;
    }

    List<Integer> reducedAxes() {
        var axes = new ArrayList<Integer>();
        for (int axis = 0; axis < operand.rank(); axis++)
            if (kernelAxisOf[axis] >= space.rank() - reducedRank) axes.add(axis);
        return axes;
    }

    /// Kernels of equal keys can share one loop nest.
    String key() { return space + "/" + reducedRank; }
}
