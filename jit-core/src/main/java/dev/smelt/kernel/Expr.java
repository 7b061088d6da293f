// SPDX-License-Identifier: Apache-2.0
package dev.smelt.kernel;

import dev.smelt.ir.BinaryOp;
import dev.smelt.ir.DType;
import dev.smelt.ir.UnaryOp;
import java.util.List;

/// A scalar expression evaluated at one point of a kernel's iteration space. Trees, not DAGs: a value
/// used twice inside one kernel is recomputed (the cost model found it cheap), a [Shared] value
/// computed once per point and kept in a local, a [Load] of a buffer another kernel wrote, or, when
/// it is what a reduction folds, that reduction's [Element].
public sealed interface Expr {
    DType dtype();

    /// Calls `visit` on `expr` and every node below it, parents first.
    static void walk(Expr expr, java.util.function.Consumer<Expr> visit) {
        visit.accept(expr);
        switch (expr) {
            case Load _, Constant _, Index _, Accumulated _, Element _ -> { }
            case Shared shared -> walk(shared.value(), visit);
            case Unary unary -> walk(unary.x(), visit);
            case Binary binary -> { walk(binary.left(), visit); walk(binary.right(), visit); }
            case Where where -> { walk(where.condition(), visit); walk(where.ifTrue(), visit); walk(where.ifFalse(), visit); }
            case Cast cast -> walk(cast.x(), visit);
        }
    }

    /// `expr` with each direct operand replaced by `rewrite(operand)`; leaves unchanged.
    static Expr mapOperands(Expr expr, java.util.function.UnaryOperator<Expr> rewrite) {
        return switch (expr) {
            case Load _, Constant _, Index _, Accumulated _, Element _ -> expr;
            case Unary unary -> new Unary(unary.op(), rewrite.apply(unary.x()));
            case Binary binary -> new Binary(binary.op(), rewrite.apply(binary.left()), rewrite.apply(binary.right()));
            case Where where -> new Where(rewrite.apply(where.condition()), rewrite.apply(where.ifTrue()), rewrite.apply(where.ifFalse()));
            case Cast cast -> new Cast(rewrite.apply(cast.x()), cast.dtype());
            case Shared shared -> new Shared(shared.id(), rewrite.apply(shared.value()));
        };
    }

    /// The distinct [Shared] values in `exprs`, each after the shared values it reads: the order in
    /// which a loop body computes them.
    static List<Shared> sharedValues(List<Expr> exprs) {
        var found = new java.util.LinkedHashMap<Integer, Shared>();
        exprs.forEach(expr -> collectShared(expr, found));
        return List.copyOf(found.values());
    }

    private static void collectShared(Expr expr, java.util.Map<Integer, Shared> found) {
        if (expr instanceof Shared shared && found.containsKey(shared.id())) return;
        mapOperands(expr, operand -> { collectShared(operand, found); return operand; });
        if (expr instanceof Shared shared) found.put(shared.id(), shared);
    }

    /// Whether `expr` is a leaf: a load, a constant, an index, or a finished or stored reduction value.
    static boolean isLeaf(Expr expr) {
        return expr instanceof Load || expr instanceof Constant || expr instanceof Index || expr instanceof Accumulated || expr instanceof Element;
    }

    /// Input buffer `input` of the kernel, read through its [IndexMap] at the current point.
    record Load(int input, DType dtype) implements Expr {}

    /// A constant, already rounded to `dtype`.
    record Constant(double value, DType dtype) implements Expr {
        public Constant { value = dtype.round(value); }
    }

    /// The current index along axis `axis` of the iteration space (the graph's iota).
    record Index(int axis, DType dtype) implements Expr {}

    record Unary(UnaryOp op, Expr x) implements Expr {
        public DType dtype() { return x.dtype(); }
    }

    /// Comparisons give `bool`; operands have equal dtypes.
    record Binary(BinaryOp op, Expr left, Expr right) implements Expr {
        public Binary {
            if (left.dtype() != right.dtype())
                throw new IllegalArgumentException(op + ": operand dtypes differ, " + left.dtype() + " vs " + right.dtype());
        }
        public DType dtype() { return op.isComparison() ? DType.BOOL : left.dtype(); }
    }

    record Where(Expr condition, Expr ifTrue, Expr ifFalse) implements Expr {
        public DType dtype() { return ifTrue.dtype(); }
    }

    record Cast(Expr x, DType dtype) implements Expr {}

    /// The finished value of reduction `reduction` for the current row (see [Kernel]).
    record Accumulated(int reduction, DType dtype) implements Expr {}

    /// The value reduction `reduction` folds at the current point: its `value` expression evaluated
    /// here, not the accumulated result. Generated code stores each point's value while it folds
    /// the row and reads it back, so softmax's `div(e1, r1)` computes `exp` once per point.
    record Element(int reduction, DType dtype) implements Expr {}

    /// `value`, computed once per point of a loop and kept in a local: every occurrence of one `id`
    /// in a loop's expressions carries the same `value`, and generated code computes it before the
    /// loop body's stores and reads the local at each occurrence. The cost model chooses this over
    /// recomputation when the value's arithmetic costs more than the register it occupies.
    record Shared(int id, Expr value) implements Expr {
        public Shared {
            if (id < 0) throw new IllegalArgumentException("shared value id " + id);
        }
        public DType dtype() { return value.dtype(); }
    }
}
