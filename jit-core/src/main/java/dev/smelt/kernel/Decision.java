// SPDX-License-Identifier: Apache-2.0
package dev.smelt.kernel;

/// One choice the fusion planner made: about what (`subject`, a node as `%3 sin` or a kernel),
/// which `choice`, its estimated `cost` and the `alternative`'s, in nanoseconds per call (NaN when
/// a rule decided, not a cost), and the `reason` in words. `explain()` prints these.
public record Decision(String subject, String choice, double cost, double alternative, String reason) {
    /// A choice a fixed rule made (a concat needs a buffer; the method-size limit).
    public static Decision rule(String subject, String choice, String reason) {
        return new Decision(subject, choice, Double.NaN, Double.NaN, reason);
    }

    public boolean costed() { return !Double.isNaN(cost); }

    /// `%3 sin: materialise (est. 1.2 µs against 3.4 µs to recompute): read by 3 kernels`
    @Override
    public String toString() {
        if (!costed()) return subject + ": " + choice + ": " + reason;
        return "%s: %s (est. %s against %s): %s".formatted(subject, choice, time(cost), time(alternative), reason);
    }

    /// `850 ns`, `12.3 µs`, `4.56 ms`.
    public static String time(double nanos) {
        if (Double.isInfinite(nanos)) return "∞";
        if (nanos < 1e3) return "%.0f ns".formatted(nanos);
        if (nanos < 1e6) return "%.1f µs".formatted(nanos / 1e3);
        return "%.2f ms".formatted(nanos / 1e6);
    }
}
