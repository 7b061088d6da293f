// SPDX-License-Identifier: Apache-2.0
package dev.smelt.codegen;

import static org.objectweb.asm.Opcodes.*;

import dev.smelt.ir.DType;
import dev.smelt.kernel.Kernel;
import java.util.List;
import java.util.function.Consumer;
import org.objectweb.asm.Type;

/// [ColumnEmitter]'s blocked column sums ([SumOrder#blocked]): each row of a tile adds its running
/// `f32` sum to its `double` of finished blocks after every [SumOrder#COLUMN_BLOCK] points, as the
/// scalar twin does ([BlockedSums#flushColumn]), and the tile's end adds the two. The doubles of
/// a tile are an array in the slot row loops keep their lanes in, which column kernels do not use.
final class ColumnTileBlocks {
    private final Code code;
    private final Kernel kernel;
    private final KernelLayout layout;
    private final int row, point;
    private final Consumer<Runnable> overTileRows;

    /// `row`: the slot of the tile's row index `j`; `point`: the reduced axis' `i1`;
    /// `overTileRows`: a loop over the tile's rows, one at a time.
    ColumnTileBlocks(Code code, Kernel kernel, KernelLayout layout, int row, int point, Consumer<Runnable> overTileRows) {
        this.code = code;
        this.kernel = kernel;
        this.layout = layout;
        this.row = row;
        this.point = point;
        this.overTileRows = overTileRows;
    }

    /// ```
    /// if (((i1 + 1) & (COLUMN_BLOCK - 1)) == 0 && i1 + 1 != dim1)
    ///     for (j = -accumulatorLine; j < tileEnd; j++) { blocks0[accumulatorLine + j] += (double) acc0[accumulatorLine + j]; acc0[accumulatorLine + j] = 0f; }
    /// ```
    /// Not after the last point, where the scalar twin's flush leaves `(float) (blocks + 0f)`, the
    /// same value as [#finish] gives without it.
    void flush(List<Integer> blocked) {
        code.loadInt(point);
        code.pushInt(1);
        code.op(IADD);
        code.pushInt(SumOrder.COLUMN_BLOCK - 1);
        code.op(IAND);
        code.loadInt(point);
        code.pushInt(kernel.rowLength() - 1);
        code.bool(IF_ICMPNE);
        code.op(IOR);
        code.ifThen(IFNE, () -> overTileRows.accept(() -> blocked.forEach(k -> {
            int blocks = layout.laneArrays().get(k), acc = layout.vectorAccumulators().get(k);
            pushRow(blocks);
            code.op(DUP2);
            code.op(DALOAD);
            pushRow(acc);
            code.op(FALOAD);
            code.op(F2D);
            code.op(DADD);
            code.op(DASTORE);
            pushRow(acc);
            code.pushConstant(DType.F32, 0);
            code.op(FASTORE);
        })));
    }

    /// ```
    /// for (j = -accumulatorLine; j < tileEnd; j++) {
    ///     acc0[accumulatorLine + j] = (float) (blocks0[accumulatorLine + j] + (double) acc0[accumulatorLine + j]);
    ///     blocks0[accumulatorLine + j] = 0.0;   // ready for the next tile: the array starts as zeros
    /// }
    /// ```
    void finish(List<Integer> blocked) {
        overTileRows.accept(() -> blocked.forEach(k -> {
            int blocks = layout.laneArrays().get(k), acc = layout.vectorAccumulators().get(k);
            pushRow(acc);
            pushRow(blocks);
            code.op(DALOAD);
            pushRow(acc);
            code.op(FALOAD);
            code.op(F2D);
            code.op(DADD);
            code.op(D2F);
            code.op(FASTORE);
            pushRow(blocks);
            code.pushConstant(DType.F64, 0);
            code.op(DASTORE);
        }));
    }

    // <array>, accumulatorLine + j   (the current row's place in a tile's array)
    private void pushRow(int array) {
        code.load(Type.getType(Object.class), array);
        code.loadInt(layout.accumulatorLine());
        code.loadInt(row);
        code.op(IADD);
    }
}
