// SPDX-License-Identifier: Apache-2.0
package dev.smelt.stress;

import dev.smelt.ir.DType;
import dev.smelt.ir.Shape;
import dev.smelt.stress.Program.NoTensor;
import dev.smelt.stress.Program.Value;
import java.util.List;

/// Reductions (every form: over all axes, one axis or several, with and without keepDims),
/// matmul (vectors, matrices, broadcast batches) and the composites (softmax, logSoftmax,
/// layerNorm with and without affine parameters, mseLoss, crossEntropy with indices or
/// probabilities) for [ProgramGenerator].
final class ReductionCalls {
    private ReductionCalls() {}

    static final List<String> REDUCTIONS = List.of("sum", "prod", "max", "min", "mean", "var", "logsumexp", "argmax", "argmin");

    static void reduce(ProgramGenerator g) {
        int x = g.pick();
        Shape shape = g.shape(x);
        String op = g.any(REDUCTIONS);
        var x0 = new Value(x);
        boolean keep = g.random.nextBoolean(), arg = op.startsWith("arg");
        int form = arg && shape.rank() == 0 ? 0 : g.random.nextInt(arg ? 3 : 4);
        int[] axes = form == 0 ? new int[0] : Shapes.axes(g.random, shape.rank(), arg);
        if (arg && axes.length > 1) axes = new int[] {axes[0]};
        if ((op.equals("max") || op.equals("min") || arg) && !covered(shape, axes)) return;
        if (arg) {
            if (form == 0) g.call(op, x0);
            else if (form == 1) g.call(op, x0, axes[0]);
            else g.call(op, x0, axes[0], keep);
            return;
        }
        if (op.equals("var") && (form == 3 || form == 2 && axes.length != 1)) g.call(op, x0, axes, g.random.nextInt(3), keep);
        else if (form == 2 && axes.length == 1) g.call(op, x0, axes[0], keep);
        else if (form >= 2) g.call(op, x0, axes, keep);
        else g.call(op, x0, axes);
    }

    /// Whether every reduced axis has elements (no axes means all): max, min and the
    /// arg-reductions have no value over nothing.
    private static boolean covered(Shape shape, int[] axes) {
        if (axes.length == 0) return shape.size() > 0;
        return Shapes.normalized(axes, shape.rank()).stream().allMatch(axis -> shape.dim(axis) > 0);
    }

    /// `x.matmul(y)` on floating `x`: `y` a value whose rows match `x`'s columns (batch axes
    /// broadcasting), `x` transposed, `x` itself (a dot product), or a captured weight.
    static void matmul(ProgramGenerator g) {
        int x = g.pick();
        if (!g.dtype(x).isFloating()) x = g.as(x, Shapes.floating(g.random));
        if (x < 0) return;
        Shape a = g.shape(x);
        if (a.rank() == 0) return;
        int k = a.dim(a.rank() - 1), m = a.rank() == 1 ? 1 : a.dim(a.rank() - 2);
        final int left = x;
        int found = g.find(i -> i != left && g.dtype(i).isFloating() && g.shape(i).rank() >= 1 && rows(g.shape(i)) == k
                && Shapes.broadcast(batchOf(a), batchOf(g.shape(i))) != null);
        Object right;
        if (found >= 0) right = new Value(found);
        else if (a.rank() >= 2 && g.random.nextBoolean()) right = ElementwiseCalls.operand(g.call("transpose", new Value(x), -1, -2));
        else if (a.rank() == 1 && g.random.nextBoolean()) right = new Value(x);
        else right = g.constant(Shapes.floating(g.random), g.random.nextBoolean() ? Shape.of(k) : Shape.of(k, Shapes.dim(g.random)));
        if (right == null) return;
        Shape b = right instanceof Value(int index) ? g.shape(index) : ((Program.Constant) right).value().shape();
        if (Shapes.broadcast(batchOf(a), batchOf(b)).count() * m * columns(b) * Math.max(1, k) > g.scale.maxFlops()) return;
        g.call("matmul", new Value(x), right);
    }

    static void composite(ProgramGenerator g) {
        int x = g.pick();
        Shape shape = g.shape(x);
        int rank = shape.rank();
        var x0 = new Value(x);
        switch (g.random.nextInt(6)) {
            case 0 -> g.call("softmax", x0, axis(g, rank));
            case 1 -> g.call("logSoftmax", x0, axis(g, rank));
            case 2 -> layerNorm(g, x0, shape);
            case 3 -> g.call("mseLoss", x0, sameShape(g, x));
            default -> crossEntropy(g, x, shape);
        }
    }

    private static int axis(ProgramGenerator g, int rank) { return rank == 0 ? g.random.nextInt(2) - 1 : g.random.nextInt(2 * rank) - rank; }

    private static void layerNorm(ProgramGenerator g, Value x, Shape shape) {
        if (shape.rank() == 0) return;
        int trailing = 1 + g.random.nextInt(Math.min(2, shape.rank()));
        Shape normalized = new Shape(shape.dims().subList(shape.rank() - trailing, shape.rank()));
        if (g.random.nextBoolean()) {
            g.call("layerNorm", x, normalized.toArray());
            return;
        }
        Object weight = g.random.nextBoolean() ? g.constant(Shapes.floating(g.random), normalized) : new NoTensor();
        Object bias = g.random.nextBoolean() ? g.constant(Shapes.floating(g.random), normalized) : new NoTensor();
        g.call("layerNorm", x, normalized.toArray(), weight, bias, g.any(List.of(1e-5, 0.1, 0.0)));
    }

    /// Logits `[N, C]` or `[C]` against the argmax of a value of their shape (class indices) or
    /// its softmax (probabilities).
    private static void crossEntropy(ProgramGenerator g, int x, Shape shape) {
        if (shape.rank() < 1 || shape.rank() > 2 || shape.size() == 0) return;
        Object source = sameShape(g, x);
        int targets = g.random.nextBoolean() ? g.call("argmax", source, -1) : g.call("softmax", source, -1);
        if (targets >= 0) g.call("crossEntropy", new Value(x), new Value(targets));
    }

    /// A value of exactly `x`'s shape, `x` itself, or a captured constant of that shape.
    private static Object sameShape(ProgramGenerator g, int x) {
        int found = g.find(i -> g.shape(i).equals(g.shape(x)));
        if (found >= 0) return new Value(found);
        return g.random.nextBoolean() ? new Value(x) : g.constant(g.random.nextBoolean() ? g.dtype(x) : DType.F32, g.shape(x));
    }

    /// The rows a matmul right operand contributes (its K): a vector's length, else its second-to-last axis.
    private static int rows(Shape shape) { return shape.rank() == 1 ? shape.dim(0) : shape.dim(shape.rank() - 2); }

    private static int columns(Shape shape) { return shape.rank() == 1 ? 1 : shape.dim(shape.rank() - 1); }

    private static Shape batchOf(Shape shape) { return shape.rank() <= 2 ? Shape.SCALAR : new Shape(shape.dims().subList(0, shape.rank() - 2)); }
}
