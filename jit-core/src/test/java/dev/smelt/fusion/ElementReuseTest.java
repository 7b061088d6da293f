// SPDX-License-Identifier: Apache-2.0
package dev.smelt.fusion;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import dev.smelt.Jit;
import dev.smelt.Tensor;
import dev.smelt.ir.BinaryOp;
import dev.smelt.ir.DType;
import dev.smelt.ir.ReduceOp;
import dev.smelt.ir.Shape;
import dev.smelt.ir.UnaryOp;
import dev.smelt.kernel.Expr;
import dev.smelt.kernel.IndexMap;
import dev.smelt.kernel.Kernel;
import dev.smelt.kernel.KernelPrinter;
import java.util.List;
import org.junit.jupiter.api.Test;

/// [ElementReuse] on whole kernels, compared as printed text. (That the rewritten kernels compute
/// the same values is [LoweringTest]'s random graphs.)
class ElementReuseTest {
    private static final Shape SPACE = Shape.of(4, 33);
    private static final Expr X = new Expr.Load(0, DType.F32);

    @Test
    void softmaxReadsBackTheExponentialsItsSumFolded() {
        var x = Tensor.zeros(8, 33);
        var kernel = FusionPlanner.plan(Jit.trace(a -> a.softmax(-1), x).graph()).launches().getFirst().kernel();
        assertEquals("""
                kernel [8,33] reduce 1 {
                  in0: f32[264] @0[33,1]
                  r0 = max(in0)
                  r1 = sum(exp(sub(in0, r0)))
                  out0: f32[264] @0[33,1] = mul(e1, reciprocal(r1))
                }
                """, kernel.toString());
    }

    @Test
    void theLargestMatchWinsAndLaterReductionsReuseToo() {
        var shifted = new Expr.Unary(UnaryOp.SQRT, sub(X, new Expr.Accumulated(0, DType.F32)));
        var exp = new Expr.Unary(UnaryOp.EXP, shifted);
        var kernel = kernel(List.of(reduction(ReduceOp.MAX, X), reduction(ReduceOp.SUM, shifted), reduction(ReduceOp.SUM, exp),
                        reduction(ReduceOp.MAX, sub(exp, shifted))),
                List.of(full(new Expr.Binary(BinaryOp.DIV, exp, shifted)), full(sub(exp, shifted))));
        assertEquals(List.of("max(in0)", "sum(sqrt(sub(in0, r0)))", "sum(exp(e1))", "max(sub(e2, e1))", "div(e2, e1)", "e3"), printed(ElementReuse.apply(kernel, CostModel.CALIBRATED)));
    }

    /// A subtraction costs less than storing and reloading it, and an `exp` costs less than a row
    /// kept through memory once the row outgrows the cache.
    @Test
    void recomputesWhatCostsLessThanKeepingIt() {
        var shifted = sub(X, new Expr.Accumulated(0, DType.F32));
        var exp = new Expr.Unary(UnaryOp.EXP, shifted);
        var reductions = List.of(reduction(ReduceOp.MAX, X), reduction(ReduceOp.SUM, shifted), reduction(ReduceOp.SUM, exp));
        var kernel = kernel(reductions, List.of(full(new Expr.Binary(BinaryOp.DIV, exp, shifted))));
        assertEquals(List.of("max(in0)", "sum(sub(in0, r0))", "sum(exp(sub(in0, r0)))", "div(e2, sub(in0, r0))"), printed(ElementReuse.apply(kernel, CostModel.CALIBRATED)));
        var longRows = Shape.of(2, 1 << 18);   // 1 MiB of f32 per row
        var dense = IndexMap.contiguous(longRows);
        var longKernel = new Kernel(longRows, 1, List.of(new Kernel.Input(DType.F32, longRows.size(), dense)), reductions,
                List.of(new Kernel.Output(new Expr.Binary(BinaryOp.DIV, exp, shifted), longRows.size(), dense, false)));
        assertSame(longKernel, ElementReuse.apply(longKernel, CostModel.CALIBRATED));
    }

    @Test
    void leavesArgReductionsAndRowOutputsAreLeftAlone() {
        var square = new Expr.Unary(UnaryOp.SQUARE, X);
        var kernel = kernel(List.of(reduction(ReduceOp.SUM, X), new Kernel.Reduction(ReduceOp.ARGMAX, square)),
                List.of(full(new Expr.Binary(BinaryOp.ADD, X, square)), row(new Expr.Accumulated(1, DType.I32))));
        assertSame(kernel, ElementReuse.apply(kernel, CostModel.CALIBRATED), "a load gains nothing, an argmax keeps no values");
        var perRow = new Expr.Unary(UnaryOp.EXP, new Expr.Load(1, DType.F32));   // in1 is one value per row
        var inputs = List.of(input(IndexMap.contiguous(SPACE)), input(new IndexMap(0, List.of(1, 0))));
        var rowValue = new Kernel(SPACE, 1, inputs, List.of(reduction(ReduceOp.SUM, perRow)), List.of(row(perRow), full(perRow)));
        assertEquals(List.of("sum(exp(in1))", "exp(in1)", "e0"), printed(ElementReuse.apply(rowValue, CostModel.CALIBRATED)));
    }

    private static Expr sub(Expr a, Expr b) { return new Expr.Binary(BinaryOp.SUB, a, b); }

    private static Kernel.Reduction reduction(ReduceOp op, Expr value) { return new Kernel.Reduction(op, value); }

    private static Kernel.Output full(Expr value) { return new Kernel.Output(value, SPACE.size(), IndexMap.contiguous(SPACE), false); }

    private static Kernel.Output row(Expr value) { return new Kernel.Output(value, 4, new IndexMap(0, List.of(1, 0)), true); }

    private static Kernel.Input input(IndexMap map) { return new Kernel.Input(DType.F32, SPACE.size(), map); }

    private static Kernel kernel(List<Kernel.Reduction> reductions, List<Kernel.Output> outputs) {
        return new Kernel(SPACE, 1, List.of(input(IndexMap.contiguous(SPACE))), reductions, outputs);
    }

    private static List<String> printed(Kernel kernel) {
        var reductions = kernel.reductions().stream().map(r -> r.op() + "(" + KernelPrinter.expression(r.value()) + ")");
        return java.util.stream.Stream.concat(reductions, kernel.outputs().stream().map(o -> KernelPrinter.expression(o.value()))).toList();
    }
}
