// SPDX-License-Identifier: Apache-2.0
package dev.smelt.stress;

import dev.smelt.ir.DType;
import dev.smelt.ir.Shape;
import dev.smelt.stress.Program.Scalar;
import dev.smelt.stress.Program.Value;
import java.util.List;

/// Elementwise calls for [ProgramGenerator]: unary functions, binary ones against a tensor that
/// broadcasts or a Java scalar (weakly typed, special values included), `where` and casts.
final class ElementwiseCalls {
    private ElementwiseCalls() {}

    static final List<String> UNARY = List.of("neg", "abs", "exp", "expm1", "log", "log1p", "sqrt", "rsqrt", "reciprocal",
            "square", "sin", "cos", "tanh", "sigmoid", "relu", "gelu", "geluTanh", "silu", "softplus", "sign");
    static final List<String> ARITHMETIC = List.of("add", "sub", "mul", "div", "pow", "maximum", "minimum");
    static final List<String> COMPARISONS = List.of("eq", "ne", "lt", "le", "gt", "ge");
    /// Java scalars: `Integer`s are integral (they keep an `i32` tensor `i32`, and wrap), `Double`s floating.
    static final List<Number> SCALARS = List.of(0, 1, 2, -1, 3, -7, 100, Integer.MAX_VALUE, Integer.MIN_VALUE,
            0.0, -0.0, 0.5, 1.0, 2.0, -1.5, 3.0, 1e-3, 1e6, 1e30, 1e39, Double.NaN, Double.POSITIVE_INFINITY,
            Double.NEGATIVE_INFINITY, (double) Float.MIN_VALUE, 1e-40, Double.MAX_VALUE, Double.MIN_VALUE);

    static void unary(ProgramGenerator g) { g.call(g.any(UNARY), new Value(g.pick())); }

    static void binary(ProgramGenerator g) {
        int x = g.pick();
        String op = g.random.nextInt(4) == 0 ? g.any(COMPARISONS) : g.any(ARITHMETIC);
        Object partner = partner(g, x);
        if (partner == null) return;
        if (g.random.nextBoolean()) g.call(op, new Value(x), partner);
        else g.call(op, partner, new Value(x));
    }

    static void scalar(ProgramGenerator g) {
        String op = g.random.nextInt(4) == 0 ? g.any(COMPARISONS) : g.any(ARITHMETIC);
        int x = g.pick();
        Number scalar = g.any(SCALARS);
        // an integer to a negative Java integer is refused, as PyTorch refuses it (ErrorsTest)
        if (op.equals("pow") && !g.dtype(x).isFloating() && scalar instanceof Integer i && i < 0) scalar = i == Integer.MIN_VALUE ? Integer.MAX_VALUE : -i;
        g.call(op, new Value(x), new Scalar(scalar));
    }

    /// `Tensor.where(condition, a, b)` with a bool condition that broadcasts (made by comparing if
    /// none is at hand), each branch a tensor or, on one side, a Java scalar.
    static void where(ProgramGenerator g) {
        int x = g.pick();
        int condition = g.find(i -> g.dtype(i) == DType.BOOL && Shapes.broadcast(g.shape(i), g.shape(x)) != null);
        if (condition < 0) condition = g.call(g.any(COMPARISONS), new Value(x), new Scalar(g.any(SCALARS)));
        if (condition < 0) return;
        Shape shape = Shapes.broadcast(g.shape(condition), g.shape(x));
        Object a = new Value(x), b = partner(g, x, shape);
        if (b == null) return;
        int roll = g.random.nextInt(4);
        if (roll == 0) b = new Scalar(g.any(SCALARS));
        else if (roll == 1) a = new Scalar(g.any(SCALARS));
        g.callStatic("where", new Value(condition), a, b);
    }

    static void cast(ProgramGenerator g) { g.call("to", new Value(g.pick()), g.any(List.of(DType.values()))); }

    /// An operand that broadcasts against `x` within the element budget: a value at hand, a slice
    /// or a reduction of `x` with size 1 on an axis, `x` itself, a range along the last axis
    /// (`arange`, `linspace`), or a captured constant (a [Program.Constant]); null if the call
    /// making it was dropped.
    static Object partner(ProgramGenerator g, int x) { return partner(g, x, g.shape(x)); }

    /// An operand that broadcasts against `target`, which `x` broadcasts against.
    static Object partner(ProgramGenerator g, int x, Shape target) {
        Shape shape = g.shape(x);
        int found = g.find(i -> fits(g, Shapes.broadcast(g.shape(i), target)));
        if (found >= 0 && g.random.nextInt(4) > 0) return new Value(found);
        int roll = g.random.nextInt(6);
        int axis = shape.rank() == 0 ? -1 : g.random.nextInt(shape.rank());
        if (roll == 0 && axis >= 0 && shape.dim(axis) > 0) return operand(g.call("slice", new Value(x), axis, 0, 1));
        if (roll == 1 && shape.rank() > 0)
            return operand(g.call(g.any(List.of("sum", "mean", "prod")), new Value(x), Shapes.axes(g.random, shape.rank(), true), true));
        if (roll == 2) return new Value(x);
        if (roll == 3 && target.rank() > 0 && !g.smooth()) return operand(range(g, target.dim(target.rank() - 1)));
        DType dtype = g.random.nextBoolean() ? g.dtype(x) : Shapes.dtype(g.random);
        return g.constant(dtype, Shapes.broadcastable(g.random, target));
    }

    /// `n` numbers in a row: `Tensor.arange` (`i32`, steps of either sign; or `f32`, the end placed
    /// half a step past the last) or `Tensor.linspace`.
    private static int range(ProgramGenerator g, int n) {
        int start = g.random.nextInt(21) - 10, step = g.random.nextBoolean() ? 1 + g.random.nextInt(3) : -1 - g.random.nextInt(3);
        double from = start * 0.75, by = step * 0.3;
        return switch (g.random.nextInt(4)) {
            case 0 -> g.callStatic("arange", n);
            case 1 -> g.callStatic("arange", start, start + n * step, step);
            case 2 -> g.callStatic("arange", from, n == 0 ? from : from + (n - 0.5) * by, by);
            default -> g.callStatic("linspace", from, from + n * by, n);
        };
    }

    /// The operand for a value's index, null for a dropped call (-1).
    static Value operand(int index) { return index < 0 ? null : new Value(index); }

    private static boolean fits(ProgramGenerator g, Shape broadcast) { return broadcast != null && g.fits(broadcast); }
}
