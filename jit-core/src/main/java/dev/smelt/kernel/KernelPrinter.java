// SPDX-License-Identifier: Apache-2.0
package dev.smelt.kernel;


/// A kernel as text, for `explain()`, golden tests and class names (`Kernel$<hash of this text>`):
/// ```
/// kernel [1024,768] reduce 1 {
///   in0: f32[786432] @0[768,1]
///   r0 = max(in0)
///   r1 = sum(exp(sub(in0, r0)))
///   out0: f32[786432] @0[768,1] = div(e1, r1)
/// }
/// ```
/// `r1` is reduction 1's result for the row, `e1` the value it folds at the current point, and
/// `t0=sin(in0)` a value computed once per point and kept in local `t0`: printed in full where the
/// kernel's text first reaches it and as `t0` after, so the text stays linear in the kernel's
/// size however often the value is read, and still says everything the generated code depends on.
public final class KernelPrinter {
    private KernelPrinter() {}

    public static String print(Kernel kernel) {
        var text = new StringBuilder("kernel ").append(kernel.space());
        if (kernel.reducedRank() > 0) text.append(" reduce ").append(kernel.reducedRank());
        text.append(" {\n");
        // Plain appends, not String.format: this text is every kernel's cache key, and Formatter's
        // first use costs a cold JVM tens of milliseconds.
        appendInputs(text, kernel.inputs());
        var writer = new Writer(text, Long.MAX_VALUE);
        for (int k = 0; k < kernel.reductions().size(); k++) {
            var reduction = kernel.reductions().get(k);
            text.append("  r").append(k).append(" = ").append(reduction.op()).append('(');
            writer.write(reduction.value());
            text.append(")\n");
        }
        appendOutputs(text, kernel.outputs(), writer);
        return text.append("}\n").toString();
    }

    /// A matmul kernel, its product printed as the reduction `r0` (the epilogue reads it as `r0`):
    /// ```
    /// matmul [128,256,784] of in0 · in1 {
    ///   in0: f32[100352] @0[784,0,1]
    ///   in1: f32[200704] @0[0,1,256]
    ///   in2: f32[256] @0[0,1,0]
    ///   out0 (row): f32[32768] @0[256,1,0] = relu(add(r0, in2))
    /// }
    /// ```
    public static String print(MatMulKernel kernel) {
        var text = new StringBuilder("matmul ").append(kernel.space()).append(" of in").append(kernel.left()).append(" · in").append(kernel.right()).append(" {\n");
        appendInputs(text, kernel.inputs());
        appendOutputs(text, kernel.outputs(), new Writer(text, Long.MAX_VALUE));
        return text.append("}\n").toString();
    }

    private static void appendInputs(StringBuilder text, java.util.List<Kernel.Input> inputs) {
        for (int i = 0; i < inputs.size(); i++) {
            var input = inputs.get(i);
            text.append("  in").append(i).append(": ").append(input.dtype()).append('[').append(input.size()).append("] ").append(input.map()).append('\n');
        }
    }

    private static void appendOutputs(StringBuilder text, java.util.List<Kernel.Output> outputs, Writer writer) {
        for (int i = 0; i < outputs.size(); i++) {
            var output = outputs.get(i);
            text.append("  out").append(i).append(output.perRow() ? " (row)" : "").append(": ").append(output.dtype())
                    .append('[').append(output.size()).append("] ").append(output.map()).append(" = ");
            writer.write(output.value());
            text.append('\n');
        }
    }

    /// `div(exp(sub(in0, r0)), r1)`; constants print with their dtype (`2.0f32`).
    public static String expression(Expr expr) { return expression(expr, Long.MAX_VALUE); }

    /// [#expression(Expr)] cut after about `limit` characters (then ending in `…`): a value that is
    /// not yet shared unfolds to a tree that can be exponentially larger than its DAG.
    public static String expression(Expr expr, long limit) {
        var text = new StringBuilder();
        new Writer(text, limit).write(expr);
        if (text.length() > limit) {
            text.setLength((int) limit);
            text.append('…');
        }
        return text.toString();
    }

    /// Appends expressions to `text`, each shared value in full once, and nothing past `limit`.
    private static final class Writer {
        private final StringBuilder text;
        private final long limit;
        private final java.util.Set<Integer> shared = new java.util.HashSet<>();

        Writer(StringBuilder text, long limit) {
            this.text = text;
            this.limit = limit == Long.MAX_VALUE ? limit : text.length() + limit;
        }

        void write(Expr expr) {
            if (text.length() > limit) return;
            switch (expr) {
                case Expr.Load load -> text.append("in").append(load.input());
                case Expr.Constant c -> text.append(c.value()).append(c.dtype());
                case Expr.Index index -> text.append("index").append(index.axis()).append(':').append(index.dtype());
                case Expr.Unary unary -> call(unary.op().toString(), unary.x());
                case Expr.Binary binary -> call(binary.op().toString(), binary.left(), binary.right());
                case Expr.Where where -> call("where", where.condition(), where.ifTrue(), where.ifFalse());
                case Expr.Cast cast -> call("cast<" + cast.dtype() + ">", cast.x());
                case Expr.Random r -> call(r.distribution() + "<" + r.dtype() + ">", r.position(), r.keyHigh(), r.keyLow());
                case Expr.Gather g -> call("in" + g.input() + "@" + g.stride(), g.index());
                case Expr.Fma fma -> call("fma", fma.a(), fma.b(), fma.c());
                case Expr.Bits bits -> call("bits<" + bits.dtype() + ">", bits.x());
                case Expr.Bitwise bitwise -> call(bitwise.op().name().toLowerCase(java.util.Locale.ROOT), bitwise.left(), bitwise.right());
                case Expr.Let let -> call("let v" + let.variable().id(), let.value(), let.body());
                case Expr.Var variable -> text.append('v').append(variable.id());
                case Expr.Fallback fallback -> call("fallback<" + fallback.op() + ">", fallback.x(), fallback.inRange(), fallback.value());
                case Expr.Accumulated acc -> text.append('r').append(acc.reduction());
                case Expr.Element element -> text.append('e').append(element.reduction());
                case Expr.Shared s -> {
                    text.append('t').append(s.id());
                    if (shared.add(s.id())) {
                        text.append('=');
                        write(s.value());
                    }
                }
            }
        }

        private void call(String name, Expr... operands) {
            text.append(name).append('(');
            for (int i = 0; i < operands.length; i++) {
                if (i > 0) text.append(", ");
                write(operands[i]);
            }
            text.append(')');
        }
    }
}
