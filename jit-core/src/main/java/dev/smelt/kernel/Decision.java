// SPDX-License-Identifier: Apache-2.0
package dev.smelt.kernel;

/// One choice the fusion planner made: about what (`subject`), which `choice` (with its
/// particulars in `detail`, empty when it has none), its estimated `cost` and the `alternative`'s,
/// in nanoseconds per call (NaN when a fixed rule decided, not a cost), and the `reason` in words.
/// `explain()` prints these.
public record Decision(Subject subject, Choice choice, String detail, double cost, double alternative, String reason) {
    public Decision {
        if (subject == null || choice == null || detail == null || reason == null) throw new IllegalArgumentException("a decision needs a subject, a choice, a detail and a reason");
    }

    /// A choice a fixed rule made (a concat needs a buffer; the method-size limit).
    public static Decision rule(Subject subject, Choice choice, String reason) {
        return new Decision(subject, choice, "", Double.NaN, Double.NaN, reason);
    }

    /// A choice the cost model made: `cost` is the chosen plan's estimate, `alternative` the other's.
    public static Decision costed(Subject subject, Choice choice, double cost, double alternative, String reason) {
        return new Decision(subject, choice, "", cost, alternative, reason);
    }

    /// The same decision with `detail` (`in each of 3 kernels`) after its choice.
    public Decision withDetail(String detail) { return new Decision(subject, choice, detail, cost, alternative, reason); }

    public boolean costed() { return !Double.isNaN(cost); }

    /// What a decision is about.
    public sealed interface Subject {
        /// Graph node `id`, its number in the printed graph, whose operator is `op`: `%3 sin`.
        record GraphNode(int id, String op) implements Subject {
            @Override
            public String toString() { return "%" + id + " " + op; }
        }

        /// Something a kernel computes or reads that is no graph node of its own: a value of its
        /// loop body (as the kernel prints it), an operand (`A of the matmul`).
        record Value(String text) implements Subject {
            @Override
            public String toString() { return text; }
        }

        /// `what` inside the kernel launched `kernel`-th: `kernel 2 %5 matmul`.
        record InKernel(int kernel, Subject what) implements Subject {
            @Override
            public String toString() { return "kernel " + kernel + " " + what; }
        }
    }

    /// What the planner did with its subject; `text` is how `explain()` says it.
    public enum Choice {
        /// Give a node a buffer of its own: write it once and read it back.
        MATERIALISE("materialise"),
        /// Give a node a buffer of its own to split the kernel that computes it, which spills registers.
        SPLIT("materialise to split its kernel"),
        /// Write a matmul operand out in row-major order before the matmul packs it.
        RELAYOUT("relayout"),
        /// Compute a node inside each kernel that reads it.
        RECOMPUTE("recompute"),
        /// Compute a root in a kernel of its own rather than as a sibling in another of its loop nest.
        OWN_KERNEL("compute in a kernel of its own"),
        /// Compute a value a loop body reads more than once once per point, in a register.
        KEEP_IN_REGISTER("keep in a register"),
        /// Pack a strided matmul operand straight from its buffer.
        PACK_IN_PLACE("pack in place through its strides"),
        /// Run a matmul as a packed, register-blocked matmul with nothing fused.
        PACKED_MATMUL("generate a packed matmul"),
        /// Run a matmul as a packed matmul with its pointwise consumers applied to each block of results.
        FUSE_EPILOGUE("generate a packed matmul; fuse its epilogue"),
        /// Compute attention as one kernel that never writes its scores.
        FUSE_ATTENTION("fuse attention into one kernel");

        private final String text;

        Choice(String text) { this.text = text; }

        @Override
        public String toString() { return text; }
    }

    /// `%3 sin: materialise (est. 1.2 µs against 3.4 µs): computed by 3 kernels; …`
    @Override
    public String toString() {
        String what = detail.isEmpty() ? choice.toString() : choice + " " + detail;
        if (!costed()) return subject + ": " + what + ": " + reason;
        return "%s: %s (est. %s against %s): %s".formatted(subject, what, time(cost), time(alternative), reason);
    }

    /// `850 ns`, `12.3 µs`, `4.56 ms`.
    public static String time(double nanos) {
        if (Double.isInfinite(nanos)) return "∞";
        if (nanos < 1e3) return "%.0f ns".formatted(nanos);
        if (nanos < 1e6) return "%.1f µs".formatted(nanos / 1e3);
        return "%.2f ms".formatted(nanos / 1e6);
    }
}
