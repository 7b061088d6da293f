// SPDX-License-Identifier: Apache-2.0
package dev.smelt.autograd;

import static org.junit.jupiter.api.Assertions.fail;

import dev.smelt.Compiled;
import dev.smelt.Jit;
import dev.smelt.Tensor;
import dev.smelt.Traced;
import dev.smelt.ir.DType;
import java.util.ArrayList;
import java.util.List;

/// Checks a gradient three ways: the compiled joint program against the reference interpreter
/// running the same backward graph (f64, and f32 when asked), and against central differences of
/// the forward in f64. Failure messages name the case, the argument, the element and both values.
final class GradientCheck {
    private GradientCheck() {}

    /// Compiled (pipeline) and interpreted backward graphs agree to a few ulps of the largest gradient
    /// (kernels may sum in another order); central differences agree to 1e-5 relative.
    static void check(String name, Traced forward, List<Tensor> arguments, int... wrt) {
        Traced joint = Autograd.withGradients(forward, wrt, false);
        Tensor[] args = arguments.toArray(Tensor[]::new);
        List<Tensor> compiled = Jit.compile(joint).applyAll(args);
        List<Tensor> interpreted = joint.interpret(args);
        for (int i = 0; i < wrt.length; i++)
            agree(name + ": compiled vs interpreter, gradient of argument " + wrt[i], interpreted.get(i), compiled.get(i), 1e-9);
        if (arguments.stream().allMatch(a -> a.dtype() != DType.F32)) finiteDifferences(name, forward, arguments, wrt, interpreted);
    }

    static void check(String name, Jit.FunctionN f, List<Tensor> arguments, int... wrt) {
        check(name, Jit.trace(f, arguments), arguments, wrt);
    }

    /// The same function and values in f32: compiled against interpreter only (differences are too noisy in f32).
    static void checkF32(String name, Jit.FunctionN f, List<Tensor> arguments, int... wrt) {
        var floats = arguments.stream().map(a -> a.dtype() == DType.F64 ? a.to(DType.F32) : a).toList();
        Traced joint = Autograd.withGradients(Jit.trace(f, floats), wrt, false);
        Tensor[] args = floats.toArray(Tensor[]::new);
        List<Tensor> compiled = Jit.compile(joint).applyAll(args), interpreted = joint.interpret(args);
        for (int i = 0; i < wrt.length; i++)
            agree(name + " (f32): compiled vs interpreter, gradient of argument " + wrt[i], interpreted.get(i), compiled.get(i), 2e-5);
    }

    private static void finiteDifferences(String name, Traced forward, List<Tensor> arguments, int[] wrt, List<Tensor> gradients) {
        for (int w = 0; w < wrt.length; w++) {
            Tensor argument = arguments.get(wrt[w]);
            double[] values = argument.toDoubleArray(), gradient = gradients.get(w).toDoubleArray();
            for (int e = 0; e < values.length; e++) {
                double h = step(values[e]);
                double plus = loss(forward, arguments, wrt[w], values, e, values[e] + h);
                double minus = loss(forward, arguments, wrt[w], values, e, values[e] - h);
                double numeric = (plus - minus) / (2 * h);
                if (!(Math.abs(numeric - gradient[e]) <= tolerance(numeric, plus, minus)))
                    fail("%s: argument %d, element %d (x = %s): vjp gives %s, central differences %s".formatted(name, wrt[w], e, values[e], gradient[e], numeric));
            }
        }
    }

    /// The step of the central difference at `x`: relative for large `x`, so `x ± h` differ from `x`.
    static double step(double x) { return 1e-6 * Math.max(1, Math.abs(x)); }

    /// How far a vjp may be from the central difference `numeric = (plus - minus) / 2h`: 1e-5
    /// relative (the truncation error h²f‴/6), plus 1e-9 of the loss for its rounding, which the
    /// division by 2h magnifies.
    static double tolerance(double numeric, double plus, double minus) {
        return 1e-5 * Math.max(1, Math.abs(numeric)) + 1e-9 * Math.max(Math.abs(plus), Math.abs(minus));
    }

    static double loss(Traced forward, List<Tensor> arguments, int index, double[] values, int element, double value) {
        double[] moved = values.clone();
        moved[element] = value;
        var args = new ArrayList<>(arguments);
        int[] shape = arguments.get(index).shape().toArray();
        args.set(index, shape.length == 0 ? Tensor.of(moved).reshape() : Tensor.of(moved, shape)); // Tensor.of with no dims makes a vector
        return forward.interpret(args.toArray(Tensor[]::new)).getFirst().toDoubleArray()[0];
    }

    /// `|actual - expected| ≤ relative · max(1, max |expected|)` everywhere, NaN only where expected.
    static void agree(String what, Tensor expected, Tensor actual, double relative) {
        double[] e = expected.toDoubleArray(), a = actual.toDoubleArray();
        if (!expected.shape().equals(actual.shape())) fail(what + ": shape " + actual.shape() + ", expected " + expected.shape());
        double scale = 1;
        for (double v : e) if (Double.isFinite(v)) scale = Math.max(scale, Math.abs(v));
        for (int i = 0; i < e.length; i++) {
            boolean ok = Double.isNaN(e[i]) ? Double.isNaN(a[i]) : e[i] == a[i] || Math.abs(e[i] - a[i]) <= relative * scale;
            if (!ok) fail("%s: element %d is %s, expected %s".formatted(what, i, a[i], e[i]));
        }
    }

    /// Compiled gradients of `f` through the public API.
    static List<Tensor> grad(Compiled compiled, Tensor... arguments) { return compiled.applyAll(arguments); }
}
