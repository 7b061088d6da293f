// SPDX-License-Identifier: Apache-2.0
package dev.smelt.ir;

import java.util.Optional;
import java.util.Set;

/// A user error at Smelt's API boundary: which op, which shapes or values, what was expected, and
/// the caller's source line (the first stack frame outside Smelt), for example
/// `add: cannot broadcast f32[2,3] with f32[4] (axis 1: 3 vs 4); expected equal sizes or 1 (at Model.forward(Model.java:12))`.
/// It lives here, beside [DType] and [Shape], rather than in `dev.smelt`: every layer below the API
/// (the ops, the driver, autograd) raises it, and the API package sits above them all.
public final class SmeltException extends IllegalArgumentException {
    private static final Set<String> INTERNAL = Set.of("dev.smelt", "dev.smelt.ir", "dev.smelt.trace", "dev.smelt.ops",
            "dev.smelt.ref", "dev.smelt.pass", "dev.smelt.kernel", "dev.smelt.fusion", "dev.smelt.plan", "dev.smelt.codegen",
            "dev.smelt.runtime", "dev.smelt.runtime.matmul", "dev.smelt.runtime.attention", "dev.smelt.driver", "dev.smelt.io",
            "dev.smelt.autograd", "dev.smelt.nn", "dev.smelt.optim", "dev.smelt.data", "dev.smelt.models.gpt", "dev.smelt.models.llama",
            "dev.smelt.spark");
    private static final StackWalker WALKER = StackWalker.getInstance(StackWalker.Option.RETAIN_CLASS_REFERENCE);

    /// The operation that refused its input (part of the serialized form).
    private final String op;

    private SmeltException(String op, String message) {
        super(message);
        this.op = op;
    }

    /// An error in `op`, whose message is `op: <formatted detail> (at <caller>)`.
    public static SmeltException of(String op, String format, Object... args) {
        String site = callSite().map(frame -> " (at " + frame + ")").orElse("");
        return new SmeltException(op, op + ": " + format.formatted(args) + site);
    }

    /// An index check of a program (eager or compiled) that failed, as its op's error.
    public static SmeltException of(IndexOutOfRange failure) { return of(failure.op(), "%s", failure.getMessage()); }

    /// `cause` raised while tracing `function`, which the message now names first.
    public static SmeltException in(String function, SmeltException cause) {
        var wrapped = new SmeltException(function, function + ": " + cause.getMessage());
        wrapped.initCause(cause);
        return wrapped;
    }

    /// The name of the operation that rejected its input, such as `matmul`.
    public String op() { return op; }

    /// The first frame that is neither Smelt's own main code nor the JDK's.
    static Optional<StackWalker.StackFrame> callSite() {
        return WALKER.walk(frames -> frames.filter(frame -> !isInternal(frame.getDeclaringClass())).findFirst());
    }

    private static boolean isInternal(Class<?> type) {
        String pkg = type.getPackageName();
        if (pkg.startsWith("java.") || pkg.startsWith("jdk.") || pkg.startsWith("sun.")) return true;
        if (!INTERNAL.contains(pkg)) return false;
        var source = type.getProtectionDomain().getCodeSource();
        return source == null || !source.getLocation().getPath().contains("test-classes");
    }
}
