// SPDX-License-Identifier: Apache-2.0
package dev.smelt.fusion;

import dev.smelt.ir.Node;

/// Operand mappings of a matmul lowered as a reduction over the space `[batch…, M, N, K]`:
/// `a[…, m, k]` (or `a[…, k, m]` when transposed) and `b[…, k, n]` (or `b[…, n, k]`).
final class MatMuls {
    private MatMuls() {}

    static Mapping left(Node.MatMul m, Signature signature) {
        return operand(m.a().shape().rank(), signature, m.transposeA(), 0);
    }

    static Mapping right(Node.MatMul m, Signature signature) {
        return operand(m.b().shape().rank(), signature, m.transposeB(), 1);
    }

    // Batch axes map to themselves; the two matrix axes to (M or N) and K, swapped if transposed.
    private static Mapping operand(int rank, Signature signature, boolean transposed, int which) {
        int batch = rank - 2, k = rank, free = batch + which;
        int[] axisOf = new int[rank];
        for (int axis = 0; axis < batch; axis++) axisOf[axis] = axis;
        boolean freeFirst = which == 0 != transposed;
        axisOf[batch] = freeFirst ? free : k;
        axisOf[batch + 1] = freeFirst ? k : free;
        var shape = new dev.smelt.ir.Shape(java.util.stream.IntStream.range(0, rank)
                .mapToObj(axis -> signature.space().dim(axisOf[axis])).toList());
        return Mapping.axes(shape, axisOf, signature.space().rank());
    }
}
