// SPDX-License-Identifier: Apache-2.0
package dev.smelt.codegen;

import static org.objectweb.asm.Opcodes.*;

import dev.smelt.ir.DType;
import dev.smelt.kernel.Kernel;
import java.util.List;
import org.objectweb.asm.Type;

/// The blocks in which [LoopEmitter]'s row loops add up long sums ([SumOrder]), so that no running
/// value in the dtype adds more than a block's points: a sum in lanes adds its lanes to its
/// accumulator every [SumOrder#BLOCK] points of a line, and a blocked column sum (the scalar twin
/// of [ColumnTileBlocks]) its running `f32` value to a `double` every [SumOrder#COLUMN_BLOCK].
final class BlockedSums {
    private final Code code;
    private final Kernel kernel;
    private final LoopSpace space;
    private final KernelLayout layout;
    private final SumOrder order;
    private final ScalarFolds folds;
    private final VectorEmitter vector;
    private final VectorPlan plan;

    BlockedSums(Code code, Kernel kernel, LoopSpace space, KernelLayout layout, SumOrder order, ScalarFolds folds, VectorEmitter vector, VectorPlan plan) {
        this.code = code;
        this.kernel = kernel;
        this.space = space;
        this.layout = layout;
        this.order = order;
        this.folds = folds;
        this.vector = vector;
        this.plan = plan;
    }

    // if (((<index> + step) & (block - 1)) == 0) <body>
    static void atBlockEnd(Code code, int index, int step, int block, Runnable body) {
        code.loadInt(index);
        code.pushInt(step);
        code.op(IADD);
        code.pushInt(block - 1);
        code.op(IAND);
        code.ifThen(IFNE, body);
    }

    /// A sum in lanes adds its lanes to its accumulator at the end of every [SumOrder#BLOCK]
    /// points of a line, and starts them again from 0, so that no lane adds more than a block's
    /// share of the line in its dtype (in one chain of lanes, a 10⁷-point `f32` sum was off by
    /// 2.7·10⁻³). Vector code checks after each pair of vectors, scalar code after each point, both
    /// at the same points:
    /// ```
    /// if (((j + LANES) & (BLOCK - 1)) == 0) { acc = acc + (double) total(vacc.add(vacc2)); vacc = vacc2 = 0 }   // vector code, j at the second vector
    /// if (((j + 1) & (BLOCK - 1)) == 0) { acc = acc + (double) LaneSums.sum(lanes0); Arrays.fill(lanes0, 0f) } // scalar code
    /// ```
    void flushLanes(List<Integer> pass, boolean vectorized) {
        var striped = pass.stream().filter(k -> order.striped(kernel, space, k)).toList();
        if (striped.isEmpty() || space.dim(space.inner()) < SumOrder.BLOCK) return;
        atBlockEnd(code, layout.axis(space.inner()), vectorized ? plan.lanes() : 1, SumOrder.BLOCK, () -> {
            for (int k : striped) {
                var reduction = kernel.reductions().get(k);
                int lanes = layout.vectorAccumulators().get(k), second = layout.secondAccumulators().get(k);
                folds.addLanes(k, vectorized ? () -> vector.folds.sumLanes(reduction, lanes, second, plan.lanes()) : null);
                if (vectorized) {
                    vector.folds.initAccumulator(reduction, lanes);
                    vector.folds.initAccumulator(reduction, second);
                } else folds.fillLanes(k);
            }
        });
    }

    /// A blocked column sum ([SumOrder#blocked]) adds its running `f32` sum to a `double` after every
    /// [SumOrder#COLUMN_BLOCK] points, as the column lanes do ([ColumnTileBlocks]):
    /// ```
    /// if (((j + 1) & (COLUMN_BLOCK - 1)) == 0) { blocks = blocks + (double) acc; acc = 0f; }
    /// ```
    void flushColumn(List<Integer> pass) {
        var blocked = pass.stream().filter(k -> order.blocked(kernel, k)).toList();
        if (blocked.isEmpty()) return;
        atBlockEnd(code, layout.axis(space.inner()), 1, SumOrder.COLUMN_BLOCK, () -> {
            for (int k : blocked) {
                int blocks = layout.blockSums().get(k), acc = layout.accumulators().get(k);
                code.load(Type.DOUBLE_TYPE, blocks);
                code.load(Type.FLOAT_TYPE, acc);
                code.op(F2D);
                code.op(DADD);
                code.store(Type.DOUBLE_TYPE, blocks);
                code.pushConstant(DType.F32, 0);
                code.store(Type.FLOAT_TYPE, acc);
            }
        });
    }

    // blocks = 0.0   (a blocked column sum, at the row's start)
    void startColumn(int k) {
        if (!order.blocked(kernel, k)) return;
        code.pushConstant(DType.F64, 0);
        code.store(Type.DOUBLE_TYPE, layout.blockSums().get(k));
    }

    // acc = (float) (blocks + (double) acc)   (a blocked column sum, at the row's end)
    void endColumn(int k) {
        if (!order.blocked(kernel, k)) return;
        code.load(Type.DOUBLE_TYPE, layout.blockSums().get(k));
        code.load(Type.FLOAT_TYPE, layout.accumulators().get(k));
        code.op(F2D);
        code.op(DADD);
        code.op(D2F);
        code.store(Type.FLOAT_TYPE, layout.accumulators().get(k));
    }
}
