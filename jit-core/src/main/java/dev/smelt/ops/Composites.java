// SPDX-License-Identifier: Apache-2.0
package dev.smelt.ops;

import dev.smelt.ir.BinaryOp;
import dev.smelt.ir.DType;
import dev.smelt.ir.Distribution;
import dev.smelt.ir.Node;
import dev.smelt.ir.ReduceOp;
import dev.smelt.ir.Shape;
import dev.smelt.ir.SmeltException;
import dev.smelt.ir.UnaryOp;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.IntStream;

/// Neural-network functions written in the primitives, so the compiler sees (and fuses) their parts.
public final class Composites {
    private Composites() {}

    /// exp(x - max) / Σ exp(x - max): the maximum keeps exp from overflowing.
    public static Value softmax(Value x, int axis) {
        Ops.nonNull("softmax", x);
        int normalized = Builder.axis("softmax", axis, Math.max(1, x.rank()));
        return Dispatch.apply("softmax", List.of(x), (b, in) -> {
            Node value = atLeastVector(b, b.toFloat(in.getFirst()));
            List<Integer> axes = List.of(normalized);
            Node exps = b.unary(UnaryOp.EXP, shifted(b, value, axes));
            // exp(x - max) · (1 / Σ exp(x - max)), as PyTorch's CPU kernel computes it: one division
            // per row, then a product per element (a divide per element costs 5× a multiply).
            Node inverse = b.unary(UnaryOp.RECIPROCAL, b.reduce(ReduceOp.SUM, exps, axes));
            Node result = b.binary(BinaryOp.MUL, exps, b.broadcast(inverse, value.shape()));
            return b.reshape(result, x.shape());
        });
    }

    /// (x - max) - log Σ exp(x - max).
    public static Value logSoftmax(Value x, int axis) {
        Ops.nonNull("logSoftmax", x);
        int normalized = Builder.axis("logSoftmax", axis, Math.max(1, x.rank()));
        return Dispatch.apply("logSoftmax", List.of(x), (b, in) -> b.reshape(logSoftmax(b, atLeastVector(b, b.toFloat(in.getFirst())), normalized), x.shape()));
    }

    public static Node logSoftmax(Builder b, Node value, int axis) {
        List<Integer> axes = List.of(axis);
        Node centred = shifted(b, value, axes);
        Node logSum = b.unary(UnaryOp.LOG, b.reduce(ReduceOp.SUM, b.unary(UnaryOp.EXP, centred), axes));
        return b.binary(BinaryOp.SUB, centred, b.broadcast(logSum, value.shape()));
    }

    // A 0-d tensor is a one-element vector here (PyTorch allows softmax over "axis 0" of a scalar).
    private static Node atLeastVector(Builder b, Node value) {
        return value.shape().rank() == 0 ? b.reshape(value, Shape.of(1)) : value;
    }

    // x - max(x); over an empty axis there is nothing to shift. The maximum only keeps exp in range
    // and softmax does not depend on it, so no gradient flows through it: PyTorch's softmax and
    // log_softmax backward leave it out too, and with it went two passes over each row that found
    // where the maximum was and summed the gradient there (zero but for rounding).
    static Node shifted(Builder b, Node value, List<Integer> axes) {
        Shape reduced = value.shape().reduced(axes);
        boolean empty = axes.stream().anyMatch(axis -> value.shape().dim(axis) == 0);
        Node max = empty ? b.constant(0, reduced, value.dtype()) : b.unary(UnaryOp.STOP_GRADIENT, b.reduce(ReduceOp.MAX, value, axes));
        return b.binary(BinaryOp.SUB, value, b.broadcast(max, value.shape()));
    }

    /// (x - mean) / √(var + eps) · weight + bias over the trailing `normalizedShape` axes, with the
    /// biased variance, as PyTorch.
    public static Value layerNorm(Value x, int[] normalizedShape, Value weight, Value bias, double eps) {
        Ops.nonNull("layerNorm", x, normalizedShape);
        Shape normalized = Creation.shape("layerNorm", normalizedShape);
        if (!(eps >= 0) || eps == Double.POSITIVE_INFINITY) // a NaN, negative or infinite eps gives NaN or 0 everywhere
            throw SmeltException.of("layerNorm", "eps must be finite and ≥ 0, got %s", eps);
        int first = x.rank() - normalized.rank();
        if (normalized.rank() == 0 || first < 0 || !x.shape().dims().subList(first, x.rank()).equals(normalized.dims()))
            throw SmeltException.of("layerNorm", "normalized shape %s must be the trailing axes of %s", normalized, x.shape());
        for (Value affine : Arrays.asList(weight, bias))
            if (affine != null && !affine.shape().equals(normalized))
                throw SmeltException.of("layerNorm", "weight and bias must have the normalized shape %s, got %s", normalized, affine.shape());
        var operands = new ArrayList<>(List.of(x));
        if (weight != null) operands.add(weight);
        if (bias != null) operands.add(bias);
        List<Integer> axes = IntStream.range(first, x.rank()).boxed().toList();
        return Dispatch.apply("layerNorm", operands, (b, in) -> {
            Node value = b.toFloat(in.getFirst());
            Node centred = Reductions.centred(b, value, axes);
            Node variance = Reductions.varOfCentred(b, centred, axes, 0, true);
            Node scale = b.unary(UnaryOp.RSQRT, b.binary(BinaryOp.ADD, variance, b.constant(eps, variance.shape(), variance.dtype())));
            Node result = b.binary(BinaryOp.MUL, centred, b.broadcast(scale, value.shape()));
            int next = 1;
            if (weight != null) result = affine(b, BinaryOp.MUL, result, in.get(next++));
            if (bias != null) result = affine(b, BinaryOp.ADD, result, in.get(next));
            return result;
        });
    }

    private static Node affine(Builder b, BinaryOp op, Node x, Node parameter) {
        DType dtype = DType.promote(x.dtype(), parameter.dtype());
        return b.binary(op, b.cast(x, dtype), b.broadcast(b.cast(parameter, dtype), x.shape()));
    }

    public static Value crossEntropy(Value logits, Value targets) {
        Ops.nonNull("crossEntropy", logits, targets);
        if (targets.dtype().isFloating()) return softTargets(logits, targets);
        return CrossEntropy.withIndices(logits, targets);
    }

    // -Σ p · log softmax(x) / N: PyTorch's class-probability form.
    private static Value softTargets(Value logits, Value targets) {
        if (!logits.shape().equals(targets.shape()) || logits.rank() < 1 || logits.rank() > 2)
            throw SmeltException.of("crossEntropy", "class probabilities %s must have the logits' shape %s ([N, C] or [C])", targets.shape(), logits.shape());
        return Dispatch.apply("crossEntropy", List.of(logits, targets), (b, in) -> {
            Node logp = logSoftmax(b, b.toFloat(in.get(0)), logits.rank() - 1);
            DType dtype = DType.promote(logp.dtype(), in.get(1).dtype());
            Node product = b.binary(BinaryOp.MUL, b.cast(logp, dtype), b.cast(in.get(1), dtype));
            Node total = Reductions.reduce(b, ReduceOp.SUM, product, IntStream.range(0, logits.rank()).boxed().toList(), false);
            // PyTorch divides an empty input's sum by 0: NaN over no classes too, not a loss of 0
            double rows = logits.size() == 0 ? 0 : logits.rank() == 2 ? logits.dim(0) : 1;
            return b.binary(BinaryOp.DIV, b.unary(UnaryOp.NEG, total), b.constant(rows, Shape.SCALAR, dtype));
        });
    }

    /// mean((x - target)²), over equal shapes (PyTorch broadcasts with a warning; we refuse).
    public static Value mseLoss(Value x, Value target) {
        Ops.nonNull("mseLoss", x, target);
        if (!x.shape().equals(target.shape()))
            throw SmeltException.of("mseLoss", "input %s and target %s must have the same shape", x.shape(), target.shape());
        return Dispatch.apply("mseLoss", List.of(x, target), (b, in) -> {
            DType dtype = DType.promote(b.toFloat(in.get(0)).dtype(), b.toFloat(in.get(1)).dtype());
            Node error = b.binary(BinaryOp.SUB, b.cast(in.get(0), dtype), b.cast(in.get(1), dtype));
            return Reductions.mean(b, b.unary(UnaryOp.SQUARE, error), IntStream.range(0, x.rank()).boxed().toList(), false);
        });
    }

    /// Inverted dropout, as `torch.nn.functional.dropout` in training: each element is kept with
    /// probability `1 - p` (where its draw is at least `p`) and scaled by `1 / (1 - p)`, so the
    /// expected value is unchanged. As in PyTorch, `p = 0` is `x` itself and `p = 1` is `x · 0` (NaN
    /// stays NaN), and neither draws.
    public static Value dropout(Value x, double p, RandomStream generator) {
        Ops.nonNull("dropout", x, generator);
        if (!(p >= 0 && p <= 1)) throw SmeltException.of("dropout", "p is the probability of zeroing an element and must be in [0, 1], got %s", p);
        if (!x.dtype().isFloating()) throw SmeltException.of("dropout", "needs a float tensor, not %s; convert it with .to(DType.F32)", x.dtype());
        if (p == 0) return x;
        if (p == 1) return Ops.binary(BinaryOp.MUL, x, 0);
        Value keep = Ops.binary(BinaryOp.GE, Creation.random(generator, Distribution.UNIFORM, x.dtype(), x.shape().toArray()), p);
        return Ops.binary(BinaryOp.MUL, Ops.binary(BinaryOp.MUL, x, keep), 1 / (1 - p));
    }
}
