// SPDX-License-Identifier: Apache-2.0
package dev.smelt.autograd;

import dev.smelt.Tensor;
import dev.smelt.Traced;
import java.util.List;
import java.util.Random;
import java.util.concurrent.atomic.AtomicLong;

/// Gradients against central differences of the forward program (run by the interpreter, in
/// f64), at a random sample of each differentiated argument's elements, under [GradientCheck]'s
/// step and tolerance. Two kinds of element have no derivative that differences can check, and
/// are counted instead of compared, each recognised by halving the step:
///
/// - a kink within the step (`relu`, `abs`, `maximum`, a `min` switching elements): the one-sided
///   slopes `(f(x+h) - f(x)) / h` and `(f(x) - f(x-h)) / h` disagree by more than the tolerance
///   and keep disagreeing at h/2, where for a smooth function their gap, h·f″, would halve;
/// - a function the step does not resolve (`sin` of 10²³, after nested exponentials): the central
///   differences at h and h/2 disagree by more than the tolerance, so neither is the derivative.
///
/// Elements whose shifted losses are not finite are counted apart too. Half steps are taken only
/// when the first comparison fails, so a passing element costs two forward runs; the gradient then
/// passes if it agrees with the differences extrapolated from both steps, or with those at h
/// within the rounding noise that the loss's evaluation measurably has near `x ± h`.
final class DifferenceCheck {
    private DifferenceCheck() {}

    /// Elements compared, skipped at a kink, and skipped as not finite, over every check in this JVM.
    static final AtomicLong COMPARED = new AtomicLong(), KINKS = new AtomicLong(), UNRESOLVED = new AtomicLong(), NOT_FINITE = new AtomicLong();
    /// Of those compared, the elements that agreed only once the loss's measured rounding noise was allowed for.
    static final AtomicLong WITHIN_NOISE = new AtomicLong();

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

    /// The loss at `x ± step` for one element.
    private record Shifted(double plus, double minus, double step) {
        static Shifted of(Traced forward, List<Tensor> arguments, int argument, double[] values, int e, double step) {
            double x = values[e];
            return new Shifted(GradientCheck.loss(forward, arguments, argument, values, e, x + step),
                    GradientCheck.loss(forward, arguments, argument, values, e, x - step), step);
        }

        double central() { return (plus - minus) / (2 * step); }

        /// The right slope less the left: h·f″ where the function is smooth, the kink's jump where not.
        double gap(double loss) { return (plus - loss) / step - (loss - minus) / step; }
    }

    private static String compare(Traced forward, List<Tensor> arguments, int argument, double[] values, int e, double gradient, double loss) {
        var full = Shifted.of(forward, arguments, argument, values, e, GradientCheck.step(values[e]));
        if (!Double.isFinite(full.plus()) || !Double.isFinite(full.minus())) {
            NOT_FINITE.incrementAndGet();
            return null;
        }
        double numeric = full.central(), tolerance = GradientCheck.tolerance(numeric, full.plus(), full.minus());
        boolean smooth = Math.abs(full.gap(loss)) <= 2 * tolerance, agrees = Math.abs(numeric - gradient) <= tolerance;
        if (smooth && agrees) {
            COMPARED.incrementAndGet();
            return null;
        }
        var half = Shifted.of(forward, arguments, argument, values, e, full.step() / 2);
        if (!smooth && !(Math.abs(half.gap(loss)) <= 0.75 * Math.abs(full.gap(loss)))) {
            KINKS.incrementAndGet();
            return null;
        }
        if (!(Math.abs(half.central() - numeric) <= tolerance)) {
            UNRESOLVED.incrementAndGet();
            return null;
        }
        // A central difference is off by about h²·f‴/6, so h and h/2 give its extrapolation to 0
        // (Richardson's): the estimate for a curvy function (sin of a product of 17 factors, seed
        // 4438) whose error at h exceeds the tolerance while the two steps agree within it.
        double extrapolated = (4 * half.central() - numeric) / 3;
        if (agrees || Math.abs(extrapolated - gradient) <= tolerance) {
            COMPARED.incrementAndGet();
            return null;
        }
        // The loss's own rounding, measured where the differences took it: terms of 1e7 summed to
        // a loss of 1e5 (seed 51213) leave 1e-9 of noise in each shifted loss, 5e-4 in the
        // difference at h = 1e-6 (against 1e-4 at h = 1e-4, where the vjp agrees to 1e-9).
        double x = values[e], noise = (noise(forward, arguments, argument, values, e, x + full.step(), full.step())
                + noise(forward, arguments, argument, values, e, x - full.step(), full.step())) / (2 * full.step());
        if (noise > 1e-3 * Math.max(1, Math.abs(numeric))) { // nothing the differences can tell
            UNRESOLVED.incrementAndGet();
            return null;
        }
        COMPARED.incrementAndGet();
        if (Math.abs(numeric - gradient) <= tolerance + noise) {
            WITHIN_NOISE.incrementAndGet();
            return null;
        }
        return "the vjp gives %s, central differences %s at step %s and %s at half of it, extrapolated %s (tolerance %s, the loss's rounding noise %s)"
                .formatted(gradient, numeric, full.step(), half.central(), extrapolated, tolerance, noise);
    }

    /// The largest second difference of the loss over a few points spaced `step / 64` from `at`:
    /// the slope cancels and the curvature is far below rounding at that spacing, so what is left
    /// is up to four times the noise of one evaluation.
    private static double noise(Traced forward, List<Tensor> arguments, int argument, double[] values, int e, double at, double step) {
        double[] loss = new double[6];
        for (int i = 0; i < loss.length; i++) loss[i] = GradientCheck.loss(forward, arguments, argument, values, e, at + i * step / 64);
        double largest = 0;
        for (int i = 1; i + 1 < loss.length; i++) largest = Math.max(largest, Math.abs(loss[i + 1] - 2 * loss[i] + loss[i - 1]));
        return largest;
    }
}
