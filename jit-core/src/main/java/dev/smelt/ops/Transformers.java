// SPDX-License-Identifier: Apache-2.0
package dev.smelt.ops;

import dev.smelt.ir.BinaryOp;
import dev.smelt.ir.DType;
import dev.smelt.ir.Node;
import dev.smelt.ir.Shape;
import dev.smelt.ir.SmeltException;
import dev.smelt.ir.UnaryOp;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.IntStream;

/// The normalisation and position encoding of transformer blocks, written in the primitives so
/// that they fuse into the matmuls around them.
public final class Transformers {
    private Transformers() {}

    /// x / √(mean(x²) + eps) · weight over the trailing `normalizedShape` axes, as
    /// `torch.nn.functional.rms_norm` (and llama2.c's rmsnorm).
    public static Value rmsNorm(Value x, int[] normalizedShape, Value weight, double eps) {
        Ops.nonNull("rmsNorm", x, normalizedShape);
        Shape normalized = Creation.shape("rmsNorm", normalizedShape);
        if (!(eps >= 0) || eps == Double.POSITIVE_INFINITY) throw SmeltException.of("rmsNorm", "eps must be finite and ≥ 0, got %s", eps);
        int first = x.rank() - normalized.rank();
        if (normalized.rank() == 0 || first < 0 || !x.shape().dims().subList(first, x.rank()).equals(normalized.dims()))
            throw SmeltException.of("rmsNorm", "normalized shape %s must be the trailing axes of %s", normalized, x.shape());
        if (weight != null && !weight.shape().equals(normalized))
            throw SmeltException.of("rmsNorm", "weight must have the normalized shape %s, got %s", normalized, weight.shape());
        List<Integer> axes = IntStream.range(first, x.rank()).boxed().toList();
        List<Value> operands = weight == null ? List.of(x) : List.of(x, weight);
        return Dispatch.apply("rmsNorm", operands, (b, in) -> {
            Node value = b.toFloat(in.getFirst());
            Node meanSquare = Reductions.mean(b, b.unary(UnaryOp.SQUARE, value), axes, true);
            Node scale = b.unary(UnaryOp.RSQRT, b.binary(BinaryOp.ADD, meanSquare, b.constant(eps, meanSquare.shape(), meanSquare.dtype())));
            Node result = b.binary(BinaryOp.MUL, value, b.broadcast(scale, value.shape()));
            if (weight == null) return result;
            DType dtype = DType.promote(result.dtype(), in.get(1).dtype());
            return b.binary(BinaryOp.MUL, b.cast(result, dtype), b.broadcast(b.cast(in.get(1), dtype), result.shape()));
        });
    }

    /// Rotary position embedding: pairs of the last axis (x₀, x₁) become (x₀·cos − x₁·sin, x₀·sin +
    /// x₁·cos). `interleaved` pairs neighbours (2i, 2i+1), as llama2.c and Meta's Llama code do;
    /// otherwise i and i + d/2, as Hugging Face's `rotate_half`. `cos` and `sin` hold one angle per
    /// pair, broadcast against `x` with the last axis d/2.
    public static Value rope(Value x, Value cos, Value sin, boolean interleaved) {
        Ops.nonNull("rope", x, cos, sin);
        if (x.rank() == 0 || x.dim(-1) % 2 != 0) throw SmeltException.of("rope", "the last axis of %s must have an even size (pairs rotate)", x.shape());
        int half = x.dim(-1) / 2;
        var pairShape = new ArrayList<>(x.shape().dims());
        pairShape.set(pairShape.size() - 1, half);
        Shape pairs = new Shape(pairShape);
        for (Value angle : List.of(cos, sin)) {
            if (angle.rank() == 0 || angle.dim(-1) != half) throw SmeltException.of("rope", "cos and sin must end in an axis of %d (one angle per pair of %s), got %s", half, x.shape(), angle.shape());
            Builder.broadcastShapes("rope", angle.shape(), pairs);
        }
        if (!Builder.broadcastShapes("rope", pairs, Builder.broadcastShapes("rope", cos.shape(), sin.shape())).equals(pairs))
            throw SmeltException.of("rope", "cos %s and sin %s must broadcast to %s without growing it", cos.shape(), sin.shape(), pairs);
        return Dispatch.apply("rope", List.of(x, cos, sin), (b, in) -> {
            Node value = b.toFloat(in.get(0));
            DType dtype = DType.promote(value.dtype(), DType.promote(b.toFloat(in.get(1)).dtype(), b.toFloat(in.get(2)).dtype()));
            value = b.cast(value, dtype);
            Node c = b.broadcast(b.cast(b.toFloat(in.get(1)), dtype), pairs), s = b.broadcast(b.cast(b.toFloat(in.get(2)), dtype), pairs);
            int last = x.rank() - 1;
            Node first = interleaved ? b.slice(value, last, 0, 2 * half, 2) : b.slice(value, last, 0, half, 1);
            Node second = interleaved ? b.slice(value, last, 1, 2 * half, 2) : b.slice(value, last, half, 2 * half, 1);
            Node rotatedFirst = b.binary(BinaryOp.SUB, b.binary(BinaryOp.MUL, first, c), b.binary(BinaryOp.MUL, second, s));
            Node rotatedSecond = b.binary(BinaryOp.ADD, b.binary(BinaryOp.MUL, first, s), b.binary(BinaryOp.MUL, second, c));
            if (!interleaved) return b.concat(List.of(rotatedFirst, rotatedSecond), last);
            var withPair = new ArrayList<>(pairShape);
            withPair.add(1);
            Shape column = new Shape(withPair); // [..., d/2, 1] each, side by side, then flattened back to [..., d]
            Node joined = b.concat(List.of(b.reshape(rotatedFirst, column), b.reshape(rotatedSecond, column)), last + 1);
            return b.reshape(joined, x.shape());
        });
    }
}
