// SPDX-License-Identifier: Apache-2.0
package dev.smelt.kernel;

import dev.smelt.ir.BinaryOp;
import dev.smelt.ir.DType;
import dev.smelt.ir.UnaryOp;

/// A scalar expression evaluated at one point of a kernel's iteration space. Trees, not DAGs: a value
/// used twice inside one kernel is either recomputed (the planner decided it is cheap), a [Load]
/// of a buffer another kernel wrote, or, when it is what a reduction folds, that reduction's [Element].
public sealed interface Expr {
    DType dtype();

    /// Calls `visit` on `expr` and every node below it, parents first.
    static void walk(Expr expr, java.util.function.Consumer<Expr> visit) {
        visit.accept(expr);
        switch (expr) {
            case Load _, Constant _, Index _, Accumulated _, Element _ -> { }
            case Unary unary -> walk(unary.x(), visit);
            case Binary binary -> { walk(binary.left(), visit); walk(binary.right(), visit); }
            case Where where -> { walk(where.condition(), visit); walk(where.ifTrue(), visit); walk(where.ifFalse(), visit); }
            case Cast cast -> walk(cast.x(), visit);
        }
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
}
