// SPDX-License-Identifier: Apache-2.0
package dev.smelt.kernel;

import dev.smelt.ir.DType;
import dev.smelt.ir.ReduceOp;
import dev.smelt.ir.Storage;

/// Evaluates a [Kernel] point by point with the graph interpreter's arithmetic (double, rounded
/// once per op to the dtype; reductions accumulate in double). It tests lowering apart from
/// bytecode: a graph lowered to kernels and run here must equal the graph interpreter exactly.
public final class KernelInterpreter implements KernelFunction {
    private final Kernel kernel;

    public KernelInterpreter(Kernel kernel) { this.kernel = kernel; }

    /// The reference evaluation of either kernel form.
    public static KernelFunction of(KernelForm kernel) {
        return switch (kernel) {
            case Kernel loops -> new KernelInterpreter(loops);
            case MatMulKernel matmul -> new MatMulInterpreter(matmul);
            case UpdateKernel update -> new UpdateFunction(update);
            case SortKernel sort -> new SortFunction(sort);
            case AttentionKernel attention -> new AttentionInterpreter(attention);
        };
    }

    @Override
    public void run(Object[] buffers, int start, int end) {
        var storages = new Storage[buffers.length];
        for (int i = 0; i < buffers.length; i++) storages[i] = Storage.wrapArray(buffers[i]);
        for (int row = start; row < end; row++) runRow(storages, row);
    }

    private void runRow(Storage[] buffers, int row) {
        var space = kernel.space();
        int[] index = new int[space.rank()];
        unflatten(row, 0, kernel.outerRank(), index);
        double[] accumulated = new double[kernel.reductions().size()];
        var evaluator = new Evaluator(kernel, buffers, index, accumulated);
        for (int k = 0; k < accumulated.length; k++) accumulated[k] = reduce(kernel.reductions().get(k), evaluator, index);
        for (int i = 0; i < kernel.outputs().size(); i++) {
            var output = kernel.outputs().get(i);
            Storage target = buffers[kernel.inputs().size() + i];
            int points = output.perRow() ? 1 : kernel.rowLength();
            for (int point = 0; point < points; point++) {
                unflatten(point, kernel.outerRank(), space.rank(), index);
                target.set(output.map().at(index), evaluator.evaluate(output.value()));
            }
        }
    }

    // Floats fold in double and round once; i32 folds in int, wrapping (ReduceOp.combineInt);
    // arg-reductions keep the first extreme's position.
    private double reduce(Kernel.Reduction reduction, Evaluator evaluator, int[] index) {
        ReduceOp op = reduction.op();
        boolean integer = reduction.dtype() == DType.I32 && !op.isArg();
        double accumulator = op.identity(), best = op.identity();
        int integerAccumulator = (int) op.identity(), bestIndex = 0;
        for (int point = 0; point < kernel.rowLength(); point++) {
            unflatten(point, kernel.outerRank(), kernel.space().rank(), index);
            double value = evaluator.evaluate(reduction.value());
            if (integer) integerAccumulator = op.combineInt(integerAccumulator, (int) value);
            else if (!op.isArg()) accumulator = op.combine(accumulator, value);
            else if (point == 0 || op.beats(value, best)) {
                best = value;
                bestIndex = point;
            }
        }
        if (op.isArg()) return bestIndex;
        return integer ? integerAccumulator : reduction.dtype().round(accumulator);
    }

    /// Writes the row-major multi-index of `flat` over axes `from` until `to` into `index`.
    private void unflatten(int flat, int from, int to, int[] index) {
        for (int axis = to - 1; axis >= from; axis--) {
            int dim = kernel.space().dim(axis);
            index[axis] = dim == 0 ? 0 : flat % dim;
            flat = dim == 0 ? 0 : flat / dim;
        }
    }
}
