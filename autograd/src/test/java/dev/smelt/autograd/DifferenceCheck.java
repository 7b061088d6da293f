// SPDX-License-Identifier: Apache-2.0
package dev.smelt.autograd;

import dev.smelt.Tensor;
import dev.smelt.Traced;
import java.util.List;
import java.util.Random;
import java.util.concurrent.atomic.AtomicLong;

/// Gradients against central differences of the forward program (run by the interpreter, in
/// f64), at a random sample of each differentiated argument's elements, under [GradientCheck]'s
/// step and tolerance. Random programs may contain `relu`, `abs`, `maximum` and the like, and where
/// a kink lies within the step the function has no derivative to check. A kink shows as one-sided
/// slopes `(f(x+h) - f(x)) / h` and `(f(x) - f(x-h)) / h` that disagree by more than the
/// tolerance and keep disagreeing at half the step (for a smooth function the gap is h·f″ and
/// halves with h): such elements are counted as kinks instead of compared. Elements whose shifted
/// losses are not finite are counted apart too.
final class DifferenceCheck {
    private DifferenceCheck() {}

    /// Elements compared, skipped at a kink, and skipped as not finite, over every check in this JVM.
    static final AtomicLong COMPARED = new AtomicLong(), KINKS = new AtomicLong(), NOT_FINITE = new AtomicLong();

    /// The first element whose gradient differs from the central difference, or null.
    static String compare(Traced forward, List<Tensor> arguments, int[] wrt, List<Tensor> gradients, double loss, Random random, int sample) {
        for (int w = 0; w < wrt.length; w++) {
            double[] values = arguments.get(wrt[w]).toDoubleArray(), gradient = gradients.get(w).toDoubleArray();
            for (int draw = 0; draw < Math.min(sample, values.length); draw++) {
                int e = values.length <= sample ? draw : random.nextInt(values.length);
                String problem = compare(forward, arguments, wrt[w], values, e, gradient[e], loss);
                if (problem != null) return "argument %d, element %d (x = %s): %s".formatted(wrt[w], e, values[e], problem);
            }
        }
        return null;
    }

    private static String compare(Traced forward, List<Tensor> arguments, int argument, double[] values, int e, double gradient, double loss) {
        double h = GradientCheck.step(values[e]);
        double plus = GradientCheck.loss(forward, arguments, argument, values, e, values[e] + h);
        double minus = GradientCheck.loss(forward, arguments, argument, values, e, values[e] - h);
        if (!Double.isFinite(plus) || !Double.isFinite(minus)) {
            NOT_FINITE.incrementAndGet();
            return null;
        }
        double numeric = (plus - minus) / (2 * h), tolerance = GradientCheck.tolerance(numeric, plus, minus);
        double gap = (plus - loss) / h - (loss - minus) / h;
        if (!(Math.abs(gap) <= 2 * tolerance) && isKink(forward, arguments, argument, values, e, loss, gap)) {
            KINKS.incrementAndGet();
            return null;
        }
        COMPARED.incrementAndGet();
        if (Math.abs(numeric - gradient) <= tolerance) return null;
        return "the vjp gives %s, central differences %s (tolerance %s)".formatted(gradient, numeric, tolerance);
    }

    /// Whether the one-sided slopes' `gap` at step h fails to shrink at step h/2, as it would if
    /// curvature alone made it.
    private static boolean isKink(Traced forward, List<Tensor> arguments, int argument, double[] values, int e, double loss, double gap) {
        double half = GradientCheck.step(values[e]) / 2;
        double plus = GradientCheck.loss(forward, arguments, argument, values, e, values[e] + half);
        double minus = GradientCheck.loss(forward, arguments, argument, values, e, values[e] - half);
        double halfGap = (plus - loss) / half - (loss - minus) / half;
        return !(Math.abs(halfGap) <= 0.75 * Math.abs(gap));
    }
}
