// SPDX-License-Identifier: Apache-2.0
package dev.smelt.kernel;

import java.util.stream.Collectors;

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
/// `t0=sin(in0)` a value computed once per point and kept in local `t0` (printed in full at each
/// occurrence, so the text still says everything the generated code depends on).
public final class KernelPrinter {
    private KernelPrinter() {}

    public static String print(Kernel kernel) {
        var text = new StringBuilder("kernel ").append(kernel.space());
        if (kernel.reducedRank() > 0) text.append(" reduce ").append(kernel.reducedRank());
        text.append(" {\n");
        // Plain appends, not String.format: this text is every kernel's cache key, and Formatter's
        // first use costs a cold JVM tens of milliseconds.
        appendInputs(text, kernel.inputs());
        for (int k = 0; k < kernel.reductions().size(); k++) {
            var reduction = kernel.reductions().get(k);
            text.append("  r").append(k).append(" = ").append(reduction.op()).append('(').append(expression(reduction.value())).append(")\n");
        }
        appendOutputs(text, kernel.outputs());
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
        appendOutputs(text, kernel.outputs());
        return text.append("}\n").toString();
    }

    private static void appendInputs(StringBuilder text, java.util.List<Kernel.Input> inputs) {
        for (int i = 0; i < inputs.size(); i++) {
            var input = inputs.get(i);
            text.append("  in").append(i).append(": ").append(input.dtype()).append('[').append(input.size()).append("] ").append(input.map()).append('\n');
        }
    }

    private static void appendOutputs(StringBuilder text, java.util.List<Kernel.Output> outputs) {
        for (int i = 0; i < outputs.size(); i++) {
            var output = outputs.get(i);
            text.append("  out").append(i).append(output.perRow() ? " (row)" : "").append(": ").append(output.dtype())
                    .append('[').append(output.size()).append("] ").append(output.map()).append(" = ").append(expression(output.value())).append('\n');
        }
    }

    /// `div(exp(sub(in0, r0)), r1)`; constants print with their dtype (`2.0f32`).
    public static String expression(Expr expr) {
        return switch (expr) {
            case Expr.Load load -> "in" + load.input();
            case Expr.Constant c -> c.value() + "" + c.dtype();
            case Expr.Index index -> "index" + index.axis() + ":" + index.dtype();
            case Expr.Unary unary -> unary.op() + "(" + expression(unary.x()) + ")";
            case Expr.Binary binary -> binary.op() + "(" + expression(binary.left()) + ", " + expression(binary.right()) + ")";
            case Expr.Where where -> "where(" + java.util.stream.Stream.of(where.condition(), where.ifTrue(), where.ifFalse()).map(KernelPrinter::expression).collect(Collectors.joining(", ")) + ")";
            case Expr.Cast cast -> "cast<" + cast.dtype() + ">(" + expression(cast.x()) + ")";
            case Expr.Accumulated acc -> "r" + acc.reduction();
            case Expr.Element element -> "e" + element.reduction();
            case Expr.Shared shared -> "t" + shared.id() + "=" + expression(shared.value());
        };
    }
}
