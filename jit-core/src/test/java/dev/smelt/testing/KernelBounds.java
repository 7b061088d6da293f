// SPDX-License-Identifier: Apache-2.0
package dev.smelt.testing;

import dev.smelt.ir.DType;
import dev.smelt.ir.ReduceOp;
import dev.smelt.ir.Storage;
import dev.smelt.kernel.Expr;
import dev.smelt.kernel.Kernel;
import java.util.ArrayList;
import java.util.List;

/// What a correct vector kernel may write: for each element of each output, a [Bound] on its
/// value, from evaluating the kernel as the `KernelInterpreter` does but on sets of values
/// ([BoundArithmetic]). An element is exact unless an approximate operator of [Tolerance] or a
/// floating-point sum lies on its path; then it is an interval that holds every result those
/// operators' error bounds allow, propagated through the operators after them. The propagation is
/// sound and conservative: where a case is hard (a divisor interval around 0, an infinity in an
/// interval) the bound becomes "anything", so tests should count how many elements stayed checked.
public final class KernelBounds {
    private final Kernel kernel;
    private final Storage[] inputs;

    private KernelBounds(Kernel kernel, Object[] buffers) {
        this.kernel = kernel;
        this.inputs = new Storage[kernel.inputs().size()];
        for (int i = 0; i < inputs.length; i++) inputs[i] = Storage.wrapArray(buffers[i]);
    }

    /// For each output, each element's bound after the whole kernel has run (null: never written).
    public static Bound[][] of(Kernel kernel, Object[] buffers) {
        var bounds = new KernelBounds(kernel, buffers);
        var result = new Bound[kernel.outputs().size()][];
        for (int i = 0; i < result.length; i++) result[i] = new Bound[kernel.outputs().get(i).size()];
        for (int row = 0; row < kernel.workItems(); row++) bounds.row(row, result);
        return result;
    }

    private void row(int row, Bound[][] result) {
        int[] index = new int[kernel.space().rank()];
        unflatten(row, 0, kernel.outerRank(), index);
        var accumulated = new Bound[kernel.reductions().size()];
        for (int k = 0; k < accumulated.length; k++) accumulated[k] = reduce(kernel.reductions().get(k), index, accumulated);
        for (int i = 0; i < kernel.outputs().size(); i++) {
            var output = kernel.outputs().get(i);
            int points = output.perRow() ? 1 : kernel.rowLength();
            for (int point = 0; point < points; point++) {
                unflatten(point, kernel.outerRank(), kernel.space().rank(), index);
                result[i][output.map().at(index)] = evaluate(output.value(), index, accumulated);
            }
        }
    }

    private Bound reduce(Kernel.Reduction reduction, int[] index, Bound[] accumulated) {
        List<Bound> values = new ArrayList<>();
        for (int point = 0; point < kernel.rowLength(); point++) {
            unflatten(point, kernel.outerRank(), kernel.space().rank(), index);
            values.add(evaluate(reduction.value(), index, accumulated));
        }
        return BoundArithmetic.reduce(reduction.op(), reduction.dtype(), values);
    }

    private Bound evaluate(Expr expr, int[] index, Bound[] accumulated) {
        return switch (expr) {
            case Expr.Load load -> Bound.exact(inputs[load.input()].get(kernel.inputs().get(load.input()).map().at(index)));
            case Expr.Constant c -> Bound.exact(c.value());
            case Expr.Index i -> Bound.exact(i.dtype().round(index[i.axis()]));
            case Expr.Unary u -> BoundArithmetic.unary(u.op(), u.dtype(), evaluate(u.x(), index, accumulated));
            case Expr.Binary b -> BoundArithmetic.binary(b.op(), b.left().dtype(), evaluate(b.left(), index, accumulated), evaluate(b.right(), index, accumulated));
            case Expr.Where w -> where(w, index, accumulated);
            case Expr.Cast c -> BoundArithmetic.cast(c.x().dtype(), c.dtype(), evaluate(c.x(), index, accumulated));
            case Expr.Accumulated a -> accumulated[a.reduction()];
            case Expr.Element e -> evaluate(kernel.reductions().get(e.reduction()).value(), index, accumulated);
            case Expr.Shared shared -> evaluate(shared.value(), index, accumulated);
            case Expr.Random r -> random(r, index, accumulated);
            case Expr.Gather g -> gather(g, index, accumulated);
            case Expr.Fma _, Expr.Bits _, Expr.Bitwise _, Expr.Let _, Expr.Var _, Expr.Fallback _ ->
                    throw new IllegalArgumentException("bounds are of kernels as lowered, not as code generation rewrites them: " + expr);
        };
    }

    // Exact where the index is: the element it names.
    private Bound gather(Expr.Gather g, int[] index, Bound[] accumulated) {
        Bound at = evaluate(g.index(), index, accumulated);
        if (!at.exact()) return Bound.any(g.dtype());
        return Bound.exact(inputs[g.input()].get(kernel.inputs().get(g.input()).map().at(index) + (int) at.lo() * g.stride()));
    }

    // Exact where the position and key are: every evaluation computes the same bits.
    private Bound random(Expr.Random r, int[] index, Bound[] accumulated) {
        Bound position = evaluate(r.position(), index, accumulated), high = evaluate(r.keyHigh(), index, accumulated), low = evaluate(r.keyLow(), index, accumulated);
        if (!position.exact() || !high.exact() || !low.exact()) return Bound.any(r.dtype());
        long key = dev.smelt.ir.Node.Random.key((int) high.lo(), (int) low.lo());
        return Bound.exact(r.dtype().round(r.distribution().sample(key, (int) position.lo(), r.dtype())));
    }

    private Bound where(Expr.Where where, int[] index, Bound[] accumulated) {
        var condition = evaluate(where.condition(), index, accumulated);
        if (condition.exact()) return evaluate(condition.lo() != 0 ? where.ifTrue() : where.ifFalse(), index, accumulated);
        return Bound.hull(where.dtype(), evaluate(where.ifTrue(), index, accumulated), evaluate(where.ifFalse(), index, accumulated));
    }

    private void unflatten(int flat, int from, int to, int[] index) {
        for (int axis = to - 1; axis >= from; axis--) {
            int dim = kernel.space().dim(axis);
            index[axis] = dim == 0 ? 0 : flat % dim;
            flat = dim == 0 ? 0 : flat / dim;
        }
    }

    /// Used by [BoundArithmetic] for exact folds: the interpreter's own arithmetic.
    static double exactFold(ReduceOp op, DType dtype, List<Bound> values) {
        if (op.isArg()) {
            double best = op.identity();
            int bestIndex = 0;
            for (int point = 0; point < values.size(); point++) {
                double value = values.get(point).lo();
                if (point == 0 || op.beats(value, best)) {
                    best = value;
                    bestIndex = point;
                }
            }
            return bestIndex;
        }
        if (dtype == DType.I32) {
            int accumulator = op == ReduceOp.SUM ? 0 : op == ReduceOp.PROD ? 1 : op == ReduceOp.MAX ? Integer.MIN_VALUE : Integer.MAX_VALUE;
            for (var value : values) {
                int x = (int) value.lo();
                accumulator = op == ReduceOp.SUM ? accumulator + x : op == ReduceOp.PROD ? accumulator * x : op == ReduceOp.MAX ? Math.max(accumulator, x) : Math.min(accumulator, x);
            }
            return accumulator;
        }
        double accumulator = op.identity();
        for (var value : values) accumulator = op.combine(accumulator, value.lo());
        return dtype.round(accumulator);
    }
}
