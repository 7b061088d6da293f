// SPDX-License-Identifier: Apache-2.0
package dev.smelt.kernel;

import dev.smelt.ir.DType;
import dev.smelt.ir.Node;
import dev.smelt.ir.Storage;

/// Evaluates one expression at the current point for the [KernelInterpreter], with the graph
/// interpreter's rules: double arithmetic rounded once per op, `int` arithmetic for `i32`. Each
/// distinct node is evaluated once per call (expressions are pure), so a DAG costs its size.
record Evaluator(Kernel kernel, Storage[] buffers, int[] index, double[] accumulated) {
    double evaluate(Expr expr) { return evaluate(expr, new java.util.IdentityHashMap<>(), new java.util.HashMap<>()); }

    /// `known` holds each node's value, `bound` each [Expr.Let] variable's.
    private double evaluate(Expr expr, java.util.Map<Expr, Double> known, java.util.Map<Expr.Var, Double> bound) {
        if (Expr.isLeaf(expr) && !(expr instanceof Expr.Element)) return compute(expr, known, bound);
        Double value = known.get(expr);
        if (value == null) known.put(expr, value = compute(expr, known, bound));
        return value;
    }

    private double compute(Expr expr, java.util.Map<Expr, Double> known, java.util.Map<Expr.Var, Double> bound) {
        java.util.function.ToDoubleFunction<Expr> evaluate = operand -> evaluate(operand, known, bound);
        return switch (expr) {
            case Expr.Load load -> buffers[load.input()].get(kernel.inputs().get(load.input()).map().at(index));
            case Expr.Constant c -> c.value();
            case Expr.Index i -> i.dtype().round(index[i.axis()]);
            case Expr.Unary u -> u.dtype() == DType.I32 ? u.op().applyInt((int) evaluate.applyAsDouble(u.x())) : u.dtype().round(u.op().apply(evaluate.applyAsDouble(u.x())));
            case Expr.Binary b -> binary(b, evaluate);
            case Expr.Where w -> evaluate.applyAsDouble(w.condition()) != 0 ? evaluate.applyAsDouble(w.ifTrue()) : evaluate.applyAsDouble(w.ifFalse());
            case Expr.Cast c -> c.dtype().round(evaluate.applyAsDouble(c.x()));
            case Expr.Fma f -> f.dtype() == DType.F32
                    ? Math.fma((float) evaluate.applyAsDouble(f.a()), (float) evaluate.applyAsDouble(f.b()), (float) evaluate.applyAsDouble(f.c()))
                    : Math.fma(evaluate.applyAsDouble(f.a()), evaluate.applyAsDouble(f.b()), evaluate.applyAsDouble(f.c()));
            case Expr.Bits b -> b.dtype() == DType.I32 ? Float.floatToRawIntBits((float) evaluate.applyAsDouble(b.x())) : Float.intBitsToFloat((int) evaluate.applyAsDouble(b.x()));
            case Expr.Bitwise b -> bitwise(b.op(), (int) evaluate.applyAsDouble(b.left()), (int) evaluate.applyAsDouble(b.right()));
            case Expr.Let let -> {
                bound.put(let.variable(), evaluate.applyAsDouble(let.value()));
                yield evaluate.applyAsDouble(let.body());
            }
            case Expr.Var v -> bound.get(v);
            case Expr.Fallback f -> evaluate.applyAsDouble(f.inRange()) != 0 ? evaluate.applyAsDouble(f.value()) : f.dtype().round(f.op().apply(evaluate.applyAsDouble(f.x())));
            case Expr.Accumulated a -> accumulated[a.reduction()];
            case Expr.Element e -> evaluate.applyAsDouble(kernel.reductions().get(e.reduction()).value());
            case Expr.Shared shared -> evaluate.applyAsDouble(shared.value());
            case Expr.Gather g -> buffers[g.input()].get(kernel.inputs().get(g.input()).map().at(index) + (int) evaluate.applyAsDouble(g.index()) * g.stride());
            case Expr.Random r -> r.dtype().round(r.distribution().sample(
                    Node.Random.key((int) evaluate.applyAsDouble(r.keyHigh()), (int) evaluate.applyAsDouble(r.keyLow())), (int) evaluate.applyAsDouble(r.position()), r.dtype()));
        };
    }

    private static int bitwise(Expr.Bitwise.BitOp op, int left, int right) {
        return switch (op) {
            case AND -> left & right;
            case OR -> left | right;
            case XOR -> left ^ right;
            case SHL -> left << right;
            case SHR -> left >>> right;
        };
    }

    private double binary(Expr.Binary b, java.util.function.ToDoubleFunction<Expr> evaluate) {
        double left = evaluate.applyAsDouble(b.left()), right = evaluate.applyAsDouble(b.right());
        if (b.left().dtype() == DType.I32 && !b.op().isComparison()) return b.op().applyInt((int) left, (int) right);
        return b.dtype().round(b.op().apply(left, right));
    }
}
