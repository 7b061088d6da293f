// SPDX-License-Identifier: Apache-2.0
package dev.smelt.ops;

import dev.smelt.ir.BinaryOp;
import dev.smelt.ir.DType;
import dev.smelt.ir.IndexBounds;
import dev.smelt.ir.Node;
import dev.smelt.ir.ReduceOp;
import dev.smelt.ir.Shape;
import dev.smelt.ir.SmeltException;
import dev.smelt.ir.UnaryOp;
import java.util.List;

/// Cross-entropy against class indices, without a gather op: a one-hot mask (iota == target)
/// selects each row's log-probability.
public final class CrossEntropy {
    private CrossEntropy() {}

    static Value withIndices(Value logits, Value targets) {
        boolean batched = logits.rank() == 2;
        if (!batched && logits.rank() != 1 || targets.rank() != (batched ? 1 : 0) || batched && targets.dim(0) != logits.dim(0))
            throw SmeltException.of("crossEntropy", "expected logits [N, C] with targets [N], or logits [C] with a 0-d target; got %s and %s", logits.shape(), targets.shape());
        if (targets.dtype() != DType.I32)
            throw SmeltException.of("crossEntropy", "class indices must be i32, not %s", targets.dtype());
        int classes = logits.dim(-1);
        return Dispatch.apply("crossEntropy", List.of(logits, targets), (b, in) -> build(b, in.get(0), in.get(1), classes));
    }

    // loss = mean over rows of -logp[row, target]. Every program checks the targets before its
    // first kernel (Node.IndexCheck), eager or compiled; a row whose target matches no class still
    // gives NaN, not a wrong finite loss, where the checks are off (-Dsmelt.indexChecks=false).
    private static Node build(Builder b, Node logits, Node unchecked, int classes) {
        Node targets = b.indexCheck(unchecked, new IndexBounds("crossEntropy", "target", classes));
        Node matrix = b.toFloat(logits.shape().rank() == 2 ? logits : b.reshape(logits, Shape.of(1, classes)));
        Shape shape = matrix.shape();
        Node column = b.broadcast(b.reshape(targets, Shape.of(shape.dim(0), 1)), shape);
        Node oneHot = b.binary(BinaryOp.EQ, b.iota(shape, 1, DType.I32), column);
        // -logp[target] = log Σ exp(x - max) - (x[target] - max), as PyTorch's -(centred[t] - logSum)
        // bit for bit, picked from the row by the one-hot mask: a reduction over the row, so the
        // kernel that folds the row's max and sum also writes each row's loss and the gradient
        // (read outside the row, the sum would be a buffer of its own, and the gradient a kernel
        // reading the logits again).
        List<Integer> classAxis = List.of(1);
        Node centred = Composites.shifted(b, matrix, classAxis);
        Node logSum = b.unary(UnaryOp.LOG, b.reduce(ReduceOp.SUM, b.unary(UnaryOp.EXP, centred), classAxis));
        Node zero = b.constant(0, shape, matrix.dtype());
        Node nll = b.reduce(ReduceOp.SUM, b.where(oneHot, b.binary(BinaryOp.SUB, b.broadcast(logSum, shape), centred), zero), classAxis);
        // the one-hot row has exactly one match where 0 <= target < classes: a test of the target,
        // not a sum over the row of its one-hot mask
        Shape rows = nll.shape();
        Node row = b.reshape(targets, rows);
        Node valid = b.where(b.binary(BinaryOp.GE, row, b.constant(0, rows, DType.I32)), b.binary(BinaryOp.LT, row, b.constant(classes, rows, DType.I32)),
                b.constant(0, rows, DType.BOOL));
        Node loss = b.where(valid, nll, b.constant(Double.NaN, rows, nll.dtype()));
        return Reductions.mean(b, loss, List.of(0, 1), false);
    }
}
