// SPDX-License-Identifier: Apache-2.0
package dev.smelt.ref;

import dev.smelt.ir.DType;
import dev.smelt.ir.Node.Reduce;
import dev.smelt.ir.ReduceOp;
import dev.smelt.ir.Storage;
import java.util.Arrays;

/// The interpreter's [Reduce]: sums and products accumulate in double (`i32`: in wrapping `int`)
/// and round once; max and min propagate NaN; arg-reductions keep the first extreme index.
final class Reduction {
    private Reduction() {}

    // Each element of x goes to the output offset with stride 0 on the reduced axes, in row-major
    // order, so every output element folds its inputs in index order.
    static Storage evaluate(Reduce reduce, Storage x) {
        int[] strides = reduce.shape().contiguousStrides();
        for (int axis : reduce.axes()) strides[axis] = 0;
        int[] targets = Strides.offsets(reduce.x().shape(), strides, 0);
        var result = Storage.allocate(reduce.dtype(), reduce.shape().size());
        return switch (reduce.op()) {
            case SUM, PROD, MAX, MIN -> reduce.dtype() == DType.I32
                    ? foldInts(reduce.op(), x, targets, result)
                    : foldDoubles(reduce.op(), x, targets, result);
            case ARGMAX, ARGMIN -> argReduce(reduce.op(), x, targets,
                    Strides.coordinates(reduce.x().shape(), reduce.axes().getFirst()), result);
        };
    }

    private static Storage foldDoubles(ReduceOp op, Storage x, int[] targets, Storage result) {
        double[] accumulators = new double[result.size()];
        Arrays.fill(accumulators, op.identity());
        for (int i = 0; i < targets.length; i++)
            accumulators[targets[i]] = op.combine(accumulators[targets[i]], x.get(i));
        for (int i = 0; i < accumulators.length; i++) result.set(i, accumulators[i]);
        return result;
    }

    // i32 folds wrap (ReduceOp.combineInt). The (int) cast saturates, so an empty max is
    // Integer.MIN_VALUE and an empty min Integer.MAX_VALUE.
    private static Storage foldInts(ReduceOp op, Storage x, int[] targets, Storage result) {
        int[] accumulators = result.ints();
        Arrays.fill(accumulators, (int) op.identity());
        for (int i = 0; i < targets.length; i++)
            accumulators[targets[i]] = op.combineInt(accumulators[targets[i]], (int) x.get(i));
        return result;
    }

    // The first extreme element wins, and a NaN beats everything (ReduceOp.beats). An empty axis gives 0.
    private static Storage argReduce(ReduceOp op, Storage x, int[] targets, int[] positions, Storage result) {
        double[] best = new double[result.size()];
        Arrays.fill(best, op.identity());
        for (int i = 0; i < targets.length; i++) {
            if (op.beats(x.get(i), best[targets[i]])) {
                best[targets[i]] = x.get(i);
                result.set(targets[i], positions[i]);
            }
        }
        return result;
    }
}
