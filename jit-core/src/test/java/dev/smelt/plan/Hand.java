// SPDX-License-Identifier: Apache-2.0
package dev.smelt.plan;

import dev.smelt.ir.BinaryOp;
import dev.smelt.ir.DType;
import dev.smelt.ir.Shape;
import dev.smelt.ir.UnaryOp;
import dev.smelt.kernel.Expr;
import dev.smelt.kernel.IndexMap;
import dev.smelt.kernel.Kernel;
import dev.smelt.kernel.Schedule;
import java.util.ArrayList;
import java.util.List;

/// Kernels and schedules written by hand, for planner tests that must not depend on fusion.
final class Hand {
    private Hand() {}

    static final Expr IN0 = new Expr.Load(0, DType.F32), IN1 = new Expr.Load(1, DType.F32);

    static Expr unary(UnaryOp op, Expr x) { return new Expr.Unary(op, x); }

    static Expr binary(BinaryOp op, Expr left, Expr right) { return new Expr.Binary(op, left, right); }

    static IndexMap identity(int... dims) { return IndexMap.contiguous(Shape.of(dims)); }

    static IndexMap map(int offset, Integer... strides) { return new IndexMap(offset, List.of(strides)); }

    static Kernel.Input input(int size, IndexMap map) { return new Kernel.Input(DType.F32, size, map); }

    /// A pointwise kernel over `space` writing `value` densely.
    static Kernel pointwise(Shape space, List<Kernel.Input> inputs, Expr value) {
        return new Kernel(space, 0, inputs, List.of(), List.of(new Kernel.Output(value, space.size(), IndexMap.contiguous(space), false)));
    }

    /// `out = op(in0)` over `n` dense elements.
    static Kernel unary(UnaryOp op, int n) { return pointwise(Shape.of(n), List.of(input(n, identity(n))), unary(op, IN0)); }

    /// `out = op(in0, in1)` over `n` dense elements.
    static Kernel binary(BinaryOp op, int n) {
        return pointwise(Shape.of(n), List.of(input(n, identity(n)), input(n, identity(n))), binary(op, IN0, IN1));
    }

    /// Softmax over the rows of `[rows, columns]`: `r0 = max(in0); r1 = sum(exp(in0 - r0)); out0 = e1 / r1`.
    static Kernel softmax(int rows, int columns) {
        var space = Shape.of(rows, columns);
        var max = new Kernel.Reduction(dev.smelt.ir.ReduceOp.MAX, IN0);
        var sum = new Kernel.Reduction(dev.smelt.ir.ReduceOp.SUM, unary(UnaryOp.EXP, binary(BinaryOp.SUB, IN0, new Expr.Accumulated(0, DType.F32))));
        var out = new Kernel.Output(binary(BinaryOp.DIV, new Expr.Element(1, DType.F32), new Expr.Accumulated(1, DType.F32)), space.size(), IndexMap.contiguous(space), false);
        return new Kernel(space, 1, List.of(input(space.size(), IndexMap.contiguous(space))), List.of(max, sum), List.of(out));
    }

    /// A schedule under construction: buffers by label, launches in order.
    static final class Builder {
        private final List<Schedule.Buffer> buffers = new ArrayList<>();
        private final List<Schedule.Launch> launches = new ArrayList<>();
        private final List<Integer> inputs = new ArrayList<>();

        int input(DType dtype, int size) {
            inputs.add(buffers.size());
            return buffer(dtype, size, "%" + buffers.size() + " input");
        }

        int buffer(DType dtype, int size, String name) {
            buffers.add(new Schedule.Buffer(dtype, size, name));
            return buffers.size() - 1;
        }

        /// Launches `kernel` on `bound` (inputs, then outputs); returns `this`.
        Builder launch(Kernel kernel, Integer... bound) {
            launches.add(new Schedule.Launch(kernel, List.of(bound), List.of(), "hand"));
            return this;
        }

        Schedule returning(int... outputs) {
            var returned = java.util.Arrays.stream(outputs).mapToObj(b -> new Schedule.Output(b, Shape.of(buffers.get(b).size()))).toList();
            return new Schedule(buffers, launches, inputs, returned, List.of());
        }
    }
}
