// SPDX-License-Identifier: Apache-2.0
package dev.smelt.runtime.matmul;

import dev.smelt.kernel.IndexMap;
import java.util.List;

/// Where a matmul operand's element `[batch…, i, j]` lives: `offset(batch) + i·outer + j·inner`.
/// For A, `i` is the row and `j` the step of K; for B, `i` is the step of K and `j` the column. A
/// transposed operand just has `outer == 1`; a broadcast batch axis a stride of 0.
record Operand(int offset, List<Integer> batchStrides, int outer, int inner) {
    /// From a map over the space `[batch…, M, N, K]`: A reads axes M and K, B axes K and N.
    Operand {
        batchStrides = List.copyOf(batchStrides);
    }

    static Operand left(IndexMap map) {
        int rank = map.rank();
        return of(map, map.stride(rank - 3), map.stride(rank - 1));
    }

    static Operand right(IndexMap map) {
        int rank = map.rank();
        return of(map, map.stride(rank - 1), map.stride(rank - 2));
    }

    private static Operand of(IndexMap map, int outer, int inner) {
        return new Operand(map.offset(), map.strides().subList(0, map.rank() - 3), outer, inner);
    }

    /// The position of element `[batch, 0, 0]`, `batch` a row-major index over `dims`.
    int base(int[] dims, int batch) {
        long position = offset;
        for (int axis = dims.length - 1; axis >= 0; axis--) {
            position += (long) (batch % dims[axis]) * batchStrides.get(axis);
            batch /= dims[axis];
        }
        return Math.toIntExact(position);
    }
}
