// SPDX-License-Identifier: Apache-2.0
package dev.smelt.ops;

import dev.smelt.ir.BinaryOp;
import dev.smelt.ir.DType;
import dev.smelt.ir.SmeltException;
import java.util.ArrayList;
import java.util.List;

/// `softmax(q·kᵀ·scale + mask)·v`, as `torch.nn.functional.scaled_dot_product_attention`, written
/// in the public ops: the form fused attention recognises, whether written by hand or through this.
public final class Attention {
    private Attention() {}

    /// With the default scale, 1/√d; 1 when d is 0, whose scores are empty sums, 0 at any finite
    /// scale (PyTorch scales q and k by √scale first, so its ∞ meets no element).
    public static Value apply(Value q, Value k, Value v, Value mask, boolean causal) {
        Ops.nonNull("scaledDotProductAttention", q);
        return apply(q, k, v, mask, causal, q.rank() == 0 || q.dim(-1) == 0 ? 1 : 1 / Math.sqrt(q.dim(-1)));
    }

    public static Value apply(Value q, Value k, Value v, Value mask, boolean causal, double scale) {
        Ops.nonNull("scaledDotProductAttention", q, k, v);
        String op = "scaledDotProductAttention";
        if (q.rank() < 2 || k.rank() < 2 || v.rank() < 2)
            throw SmeltException.of(op, "q %s, k %s and v %s need at least 2 axes ([..., tokens, features])", q.shape(), k.shape(), v.shape());
        if (q.dim(-1) != k.dim(-1)) throw SmeltException.of(op, "q %s and k %s must have the same last axis (features per head)", q.shape(), k.shape());
        if (k.dim(-2) != v.dim(-2)) throw SmeltException.of(op, "k %s and v %s must have the same number of keys (axis -2)", k.shape(), v.shape());
        if (mask != null && causal) throw SmeltException.of(op, "give a mask or causal, not both (as PyTorch)");
        if (!q.dtype().isFloating() || !k.dtype().isFloating() || !v.dtype().isFloating())
            throw SmeltException.of(op, "needs float q, k and v, got %s, %s and %s", q.dtype(), k.dtype(), v.dtype());
        if (Double.isNaN(scale) || Double.isInfinite(scale)) throw SmeltException.of(op, "scale must be finite, got %s", scale);
        Value keys = groupedHeads(op, q, k), values = groupedHeads(op, q, v);
        Value scores = Ops.binary(BinaryOp.MUL, Ops.matmul(q, Views.transpose(keys, -2, -1)), scale);
        int tokens = q.dim(-2), sources = k.dim(-2);
        if (causal) // top-left aligned, as PyTorch's is_causal
            scores = Ops.binary(BinaryOp.ADD, scores, Masks.keep("triu", Creation.full(scores.dtype(), Double.NEGATIVE_INFINITY, tokens, sources), 1, false));
        if (mask != null) {
            // as PyTorch, whose scores take the mask in place: a mask cannot add axes or batches to the result
            if (!Builder.broadcastShapes(op, mask.shape(), scores.shape()).equals(scores.shape()))
                throw SmeltException.of(op, "the mask %s must broadcast to the scores %s without growing them", mask.shape(), scores.shape());
            // as PyTorch: an i32 0/1 "keep" mask would be added to the scores and mask nothing
            if (mask.dtype() != DType.BOOL && mask.dtype() != scores.dtype())
                throw SmeltException.of(op, "the mask is %s%s; expected bool (true keeps a key) or an additive mask of the scores' dtype %s",
                        mask.dtype(), mask.shape(), scores.dtype());
            scores = mask.dtype() == DType.BOOL ? Ops.where(mask, scores, Double.NEGATIVE_INFINITY) : Ops.binary(BinaryOp.ADD, scores, mask);
        }
        return Ops.matmul(Composites.softmax(scores, -1), values);
    }

    // k or v with each of its heads repeated for the q heads that share it (grouped-query attention,
    // head h reads kv head h / (qHeads / kvHeads)), as `repeat_interleave` on axis -3 would.
    // One head on either side broadcasts against the other's, as any batch axis does (PyTorch's
    // matmuls broadcast q [B, 1, T, d] over k's heads), 0 heads included.
    private static Value groupedHeads(String op, Value q, Value kv) {
        if (q.rank() < 3 || kv.rank() < 3 || q.dim(-3) == kv.dim(-3) || kv.dim(-3) == 1 || q.dim(-3) == 1) return kv;
        int heads = q.dim(-3), kvHeads = kv.dim(-3);
        if (kvHeads == 0 || heads % kvHeads != 0)
            throw SmeltException.of(op, "q has %d heads (axis -3 of %s), not a multiple of the %d of %s", heads, q.shape(), kvHeads, kv.shape());
        var grouped = new ArrayList<>(kv.shape().dims());
        grouped.add(kv.rank() - 2, heads / kvHeads);
        var merged = new ArrayList<>(kv.shape().dims());
        merged.set(kv.rank() - 3, heads);
        return Views.reshape(Views.expand(Views.unsqueeze(kv, -3), ints(grouped)), ints(merged));
    }

    private static int[] ints(List<Integer> dims) { return dims.stream().mapToInt(Integer::intValue).toArray(); }
}
