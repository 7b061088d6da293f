// SPDX-License-Identifier: Apache-2.0
package dev.smelt.stress;

import dev.smelt.ir.DType;
import dev.smelt.stress.Program.Scalar;
import dev.smelt.stress.Program.Value;
import java.util.List;

/// Calls for programs to differentiate ([ProgramGenerator.Family#DIFFERENTIABLE]): `f64` values,
/// functions kept inside their domain (`log`, `sqrt`, `rsqrt`, `reciprocal`, `log1p`, `div` and
/// `pow` read `x² + c`, never a value that may cross 0), reductions, views, matmuls and the
/// composites. Functions with kinks (`relu`, `abs`, `maximum`, `minimum`, `max`, `where`) are
/// drawn too, rarely: random data almost never sits on a kink, and the check tells a kink from a
/// wrong gradient by the one-sided differences. The program ends in a scalar loss that weighs
/// every otherwise unused value by a captured constant, so each one receives a gradient.
final class SmoothCalls {
    private SmoothCalls() {}

    static final List<String> SMOOTH = List.of("neg", "exp", "expm1", "sin", "cos", "tanh", "sigmoid", "softplus",
            "silu", "gelu", "geluTanh", "square");
    static final List<String> POSITIVE_DOMAIN = List.of("log", "sqrt", "rsqrt", "reciprocal", "log1p");
    static final List<Number> EXPONENTS = List.of(2, 3, -1, 0.5, 1.5, -0.5, 2.5);

    static void any(ProgramGenerator g) {
        int roll = g.random.nextInt(100);
        if (roll < 22) g.call(g.any(SMOOTH), new Value(g.pick()));
        else if (roll < 30) positive(g);
        else if (roll < 46) binary(g);
        else if (roll < 50) kinked(g);
        else if (roll < 54) where(g);
        else if (roll < 66) ReductionCalls.reduce(g);
        else if (roll < 80) ViewCalls.view(g);
        else if (roll < 84) ViewCalls.concat(g);
        else if (roll < 90) ReductionCalls.matmul(g);
        else if (roll < 94) ReductionCalls.composite(g);
        else if (roll < 97) IndexCalls.index(g);
        else ModelCalls.any(g);
    }

    /// `f(x² + c)` for `f` defined on the positive numbers.
    private static void positive(ProgramGenerator g) {
        int shifted = positive(g, g.pick());
        if (shifted >= 0) g.call(g.any(POSITIVE_DOMAIN), new Value(shifted));
    }

    private static int positive(ProgramGenerator g, int x) {
        int square = g.call("square", new Value(x));
        return square < 0 ? -1 : g.call("add", new Value(square), new Scalar(g.any(List.of(0.5, 1.0))));
    }

    private static void binary(ProgramGenerator g) {
        int x = g.pick();
        Object partner = ElementwiseCalls.partner(g, x);
        if (partner == null) return;
        switch (g.random.nextInt(5)) {
            case 0, 1 -> g.call(g.any(List.of("add", "sub", "mul")), new Value(x), partner);
            case 2 -> g.call(g.any(List.of("add", "sub", "mul")), partner, new Value(x));
            case 3 -> {
                int denominator = partner instanceof Value(int index) ? positive(g, index) : -1;
                if (denominator >= 0) g.call("div", new Value(x), new Value(denominator));
            }
            default -> {
                int base = positive(g, x);
                if (base >= 0) g.call("pow", new Value(base), g.random.nextBoolean() ? partner : new Scalar(g.any(EXPONENTS)));
            }
        }
    }

    private static void kinked(ProgramGenerator g) {
        int x = g.pick();
        switch (g.random.nextInt(3)) {
            case 0 -> g.call(g.random.nextBoolean() ? "relu" : "abs", new Value(x));
            default -> {
                Object partner = ElementwiseCalls.partner(g, x);
                if (partner != null) g.call(g.random.nextBoolean() ? "maximum" : "minimum", new Value(x), partner);
            }
        }
    }

    private static void where(ProgramGenerator g) {
        int x = g.pick();
        Object other = ElementwiseCalls.partner(g, x);
        if (other == null) return;
        int condition = g.call(g.any(ElementwiseCalls.COMPARISONS), new Value(x), new Scalar(g.random.nextGaussian()));
        if (condition >= 0) g.callStatic("where", new Value(condition), new Value(x), other);
    }

    /// `Σᵢ (vᵢ · cᵢ).sum()` over the floating values among `values` (argument 0 if there are none),
    /// each `cᵢ` a captured constant of its shape.
    static int loss(ProgramGenerator g, List<Integer> values) {
        var floating = values.stream().filter(v -> g.dtype(v).isFloating()).toList();
        int loss = -1;
        for (int v : floating.isEmpty() ? List.of(0) : floating) {
            int weighted = g.call("mul", new Value(v), g.constant(DType.F64, g.shape(v)));
            int term = g.call("sum", new Value(weighted), new int[0]);
            loss = loss < 0 ? term : g.call("add", new Value(loss), new Value(term));
        }
        return loss;
    }
}
