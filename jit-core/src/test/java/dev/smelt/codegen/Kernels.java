// SPDX-License-Identifier: Apache-2.0
package dev.smelt.codegen;

import dev.smelt.ir.BinaryOp;
import dev.smelt.ir.DType;
import dev.smelt.ir.ReduceOp;
import dev.smelt.ir.Shape;
import dev.smelt.ir.UnaryOp;
import dev.smelt.kernel.Expr;
import dev.smelt.kernel.IndexMap;
import dev.smelt.kernel.Kernel;
import java.util.List;

/// Hand-written kernels for codegen tests, as the fusion planner would build them.
final class Kernels {
    private Kernels() {}

    static final Expr.Load X = new Expr.Load(0, DType.F32);

    static Expr unary(UnaryOp op, Expr x) { return new Expr.Unary(op, x); }

    static Expr binary(BinaryOp op, Expr a, Expr b) { return new Expr.Binary(op, a, b); }

    static Expr f32(double value) { return new Expr.Constant(value, DType.F32); }

    static Expr result(int k) { return new Expr.Accumulated(k, DType.F32); }

    static Kernel.Input input(Shape space) { return new Kernel.Input(DType.F32, space.size(), IndexMap.contiguous(space)); }

    static Kernel.Output output(Expr value, Shape space) { return new Kernel.Output(value, space.size(), IndexMap.contiguous(space), false); }

    /// `out0 = value` over `space`, reading `in0` contiguously.
    static Kernel pointwise(Shape space, Expr value) {
        return new Kernel(space, 0, List.of(input(space)), List.of(), List.of(output(value, space)));
    }

    /// Softmax over the last axis: `r0 = max(in0)`, `r1 = sum(exp(in0 - r0))`, `out0 = exp(in0 - r0) / r1`.
    static Kernel softmax(int rows, int columns) {
        var space = Shape.of(rows, columns);
        var shifted = unary(UnaryOp.EXP, binary(BinaryOp.SUB, X, result(0)));
        return new Kernel(space, 1, List.of(input(space)),
                List.of(new Kernel.Reduction(ReduceOp.MAX, X), new Kernel.Reduction(ReduceOp.SUM, shifted)),
                List.of(output(binary(BinaryOp.DIV, shifted, result(1)), space)));
    }

    static Expr element(int k) { return new Expr.Element(k, DType.F32); }

    /// Softmax as lowering builds it: `out0 = e1 / r1` reads back each point's `exp(in0 - r0)`,
    /// which `r1` folded, instead of computing it again.
    static Kernel softmaxReusingElements(int rows, int columns) {
        var softmax = softmax(rows, columns);
        return new Kernel(softmax.space(), 1, softmax.inputs(), softmax.reductions(),
                List.of(output(binary(BinaryOp.DIV, element(1), result(1)), softmax.space())));
    }

    /// Layer norm over the last two axes of `[rows, a, b]`: mean, variance about it, then
    /// `(x - mean) * rsqrt(variance + 1e-5)`, and the mean and variance as row outputs.
    static Kernel layerNorm(int rows, int a, int b) {
        var space = Shape.of(rows, a, b);
        double n = a * b;
        var centred = binary(BinaryOp.SUB, X, result(1));
        var perRow = new IndexMap(0, List.of(1, 0, 0));
        return new Kernel(space, 2, List.of(input(space)),
                List.of(new Kernel.Reduction(ReduceOp.SUM, X),
                        new Kernel.Reduction(ReduceOp.SUM, binary(BinaryOp.MUL, X, f32(1 / n))),
                        new Kernel.Reduction(ReduceOp.SUM, binary(BinaryOp.MUL, unary(UnaryOp.SQUARE, centred), f32(1 / n)))),
                List.of(output(binary(BinaryOp.MUL, centred, unary(UnaryOp.RSQRT, binary(BinaryOp.ADD, result(2), f32(1e-5)))), space),
                        new Kernel.Output(result(1), rows, perRow, true),
                        new Kernel.Output(result(2), rows, perRow, true)));
    }

    /// `argmax` and `max` of each row, written once per row.
    static Kernel argmax(int rows, int columns) {
        var space = Shape.of(rows, columns);
        var perRow = new IndexMap(0, List.of(1, 0));
        return new Kernel(space, 1, List.of(input(space)),
                List.of(new Kernel.Reduction(ReduceOp.ARGMAX, X), new Kernel.Reduction(ReduceOp.MAX, X)),
                List.of(new Kernel.Output(new Expr.Accumulated(0, DType.I32), rows, perRow, true),
                        new Kernel.Output(result(1), rows, perRow, true)));
    }

    /// `max` and `min` of each row of an `f32` or `f64` input, written once per row.
    static Kernel maxAndMin(int rows, int columns, DType dtype) {
        var space = Shape.of(rows, columns);
        var x = new Expr.Load(0, dtype);
        var perRow = new IndexMap(0, List.of(1, 0));
        return new Kernel(space, 1, List.of(new Kernel.Input(dtype, space.size(), IndexMap.contiguous(space))),
                List.of(new Kernel.Reduction(ReduceOp.MAX, x), new Kernel.Reduction(ReduceOp.MIN, x)),
                List.of(new Kernel.Output(new Expr.Accumulated(0, dtype), rows, perRow, true),
                        new Kernel.Output(new Expr.Accumulated(1, dtype), rows, perRow, true)));
    }

    /// A balanced tree of `leaves` loads of `x` and constants under `add` and `mul`: big bytecode
    /// from a small kernel, and shallow (the kernel IR derives dtypes recursively).
    static Expr tree(Expr x, int leaves) {
        if (leaves == 1) return x;
        if (leaves == 2) return binary(BinaryOp.MUL, x, f32(1 + leaves % 7 / 8.0));
        return binary(leaves % 2 == 0 ? BinaryOp.ADD : BinaryOp.MAXIMUM, tree(x, leaves / 2), tree(x, leaves - leaves / 2));
    }
}
