// SPDX-License-Identifier: Apache-2.0
package dev.smelt.kernel;

import dev.smelt.ir.DType;
import dev.smelt.ir.Storage;

/// Evaluates one expression at the current point for the [KernelInterpreter], with the graph
/// interpreter's rules: double arithmetic rounded once per op, `int` arithmetic for `i32`.
record Evaluator(Kernel kernel, Storage[] buffers, int[] index, double[] accumulated) {
    double evaluate(Expr expr) {
        return switch (expr) {
            case Expr.Load load -> buffers[load.input()].get(kernel.inputs().get(load.input()).map().at(index));
            case Expr.Constant c -> c.value();
            case Expr.Index i -> i.dtype().round(index[i.axis()]);
            case Expr.Unary u -> u.dtype() == DType.I32 ? u.op().applyInt((int) evaluate(u.x())) : u.dtype().round(u.op().apply(evaluate(u.x())));
            case Expr.Binary b -> binary(b);
            case Expr.Where w -> evaluate(w.condition()) != 0 ? evaluate(w.ifTrue()) : evaluate(w.ifFalse());
            case Expr.Cast c -> c.dtype().round(evaluate(c.x()));
            case Expr.Accumulated a -> accumulated[a.reduction()];
            case Expr.Element e -> evaluate(kernel.reductions().get(e.reduction()).value());
            case Expr.Shared shared -> evaluate(shared.value());
        };
    }

    private double binary(Expr.Binary b) {
        double left = evaluate(b.left()), right = evaluate(b.right());
        if (b.left().dtype() == DType.I32 && !b.op().isComparison()) return b.op().applyInt((int) left, (int) right);
        return b.dtype().round(b.op().apply(left, right));
    }
}
