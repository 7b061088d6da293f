// SPDX-License-Identifier: Apache-2.0
package dev.smelt.pass;

import dev.smelt.ir.BinaryOp;
import dev.smelt.ir.DType;
import dev.smelt.ir.Graph;
import dev.smelt.ir.Node;
import dev.smelt.ir.Node.Binary;
import dev.smelt.ir.Node.Cast;
import dev.smelt.ir.Node.Concat;
import dev.smelt.ir.Node.Constant;
import dev.smelt.ir.Node.Expand;
import dev.smelt.ir.Node.IndexCheck;
import dev.smelt.ir.Node.Iota;
import dev.smelt.ir.Node.MatMul;
import dev.smelt.ir.Node.Permute;
import dev.smelt.ir.Node.Reduce;
import dev.smelt.ir.Node.Reshape;
import dev.smelt.ir.Node.Slice;
import dev.smelt.ir.Node.Unary;
import dev.smelt.ir.Node.Where;
import dev.smelt.ir.ReduceOp;

/// Operations whose value is known without the inputs become constants.
///
/// A [Constant] is one value splat over a shape, so every folded result is one number: folding
/// never materialises a tensor, however large its shape. Each value is computed exactly as the
/// reference interpreter computes it (in double, or wrapping `int` for `i32`, then rounded once to
/// the dtype by [Constant]'s constructor), so folding never changes a result, NaN, ±∞ and -0
/// included. Data-dependent values (an [Iota] along a real axis) stay as they are.
public final class ConstantFolding {
    /// Longest sum, product or dot product folded by adding up its terms one by one, as the
    /// interpreter does; a longer one is left to the kernel.
    static final int FOLD_LIMIT = 1 << 16;

    private ConstantFolding() {}

    public static Graph apply(Graph graph) { return Rewriter.toFixpoint(graph, ConstantFolding::rewrite); }

    /// The constant `n` computes, or `n` itself.
    static Node rewrite(Node n) {
        return switch (n) {
            case Unary(var op, Constant c, var _, var dtype) ->                  // op(c) -> c'
                    constant(dtype == DType.I32 ? op.applyInt((int) c.value()) : op.apply(c.value()), n);
            case Binary(var op, Constant a, Constant b, var _, var _) -> constant(binary(op, a, b), n);  // a op b -> c
            case Cast(Constant c, var _, var _) -> constant(c.value(), n);       // (T) c -> c rounded to T
            case Where(Constant c, var ifTrue, var ifFalse, var _, var _) -> c.value() != 0 ? ifTrue : ifFalse;
            case IndexCheck(Constant c, var bounds, var _, var _) when bounds.contains(c.value()) -> c;  // an index known to be in range
            case Reshape(Constant c, var _, var _) -> constant(c.value(), n);    // a view of a splat is a splat
            case Permute(Constant c, var _, var _, var _) -> constant(c.value(), n);
            case Expand(Constant c, var _, var _) -> constant(c.value(), n);
            case Slice(Constant c, var _, var _, var _, var _, var _, var _) -> constant(c.value(), n);
            case Concat concat when concat.parts().stream().allMatch(p -> same(p, concat.parts().getFirst())) ->
                    constant(((Constant) concat.parts().getFirst()).value(), n);
            case Iota iota when iota.shape().dim(iota.axis()) == 1 -> constant(0, n);   // the only index is 0
            case Reduce r when reducedCount(r) == 0 -> constant(r.op().isArg() ? 0 : r.op().identity(), n);
            case Reduce r when r.x() instanceof Constant c -> reduce(r.op(), c, reducedCount(r), n);
            case MatMul m when contracted(m) == 0 -> constant(0, n);              // an empty sum
            case MatMul m when m.a() instanceof Constant a && m.b() instanceof Constant b -> dot(a, b, contracted(m), n);
            default -> n;
        };
    }

    /// Whether `n` is a constant of exactly `value`: `-0.0` is not `0.0`, and NaN is NaN.
    static boolean isConstant(Node n, double value) {
        return n instanceof Constant c && Double.compare(c.value(), value) == 0;
    }

    private static boolean same(Node part, Node first) {
        return part instanceof Constant c && first instanceof Constant f && Double.compare(c.value(), f.value()) == 0;
    }

    // As the interpreter: i32 arithmetic wraps, comparisons and floats compute in double.
    private static double binary(BinaryOp op, Constant a, Constant b) {
        boolean integer = a.dtype() == DType.I32 && !op.isComparison();
        return integer ? op.applyInt((int) a.value(), (int) b.value()) : op.apply(a.value(), b.value());
    }

    /// A reduction of `count` equal elements, folded in order from the identity as the interpreter does.
    private static Node reduce(ReduceOp op, Constant c, long count, Node n) {
        return switch (op) {
            case MAX, MIN -> constant(c.value(), n);                      // max(c, …, c) = c, NaN included
            case ARGMAX, ARGMIN -> constant(0, n);                        // the first of equal elements
            case SUM, PROD -> {
                if (c.dtype() == DType.I32)                               // wrapping: c·count, c^count
                    yield constant(op == ReduceOp.SUM ? (int) c.value() * (int) count : BinaryOp.POW.applyInt((int) c.value(), (int) count), n);
                if (count > FOLD_LIMIT) yield n;
                double accumulator = op.identity();
                for (long i = 0; i < count; i++) accumulator = op.combine(accumulator, c.value());
                yield constant(accumulator, n);
            }
        };
    }

    // Σₚ a·b in double, in p order, as the interpreter's dot product.
    private static Node dot(Constant a, Constant b, int k, Node n) {
        if (k > FOLD_LIMIT) return n;
        double sum = 0;
        for (int p = 0; p < k; p++) sum += a.value() * b.value();
        return constant(sum, n);
    }

    /// How many elements each output element of `r` folds.
    static long reducedCount(Reduce r) {
        long count = 1;
        for (int axis : r.axes()) count *= r.x().shape().dim(axis);
        return count;
    }

    static int contracted(MatMul m) {
        int rank = m.a().shape().rank();
        return m.a().shape().dim(rank - (m.transposeA() ? 2 : 1));
    }

    private static Constant constant(double value, Node n) { return new Constant(value, n.shape(), n.dtype()); }
}
