// SPDX-License-Identifier: Apache-2.0
package dev.smelt.kernel;

import dev.smelt.ir.AttentionPart;
import dev.smelt.ir.DType;
import dev.smelt.ir.Shape;
import java.util.ArrayList;
import java.util.List;

/// Fused attention over scores of shape `[batch…, H, T, S]` that are never written (FlashAttention-2):
/// the forward streams each block of [#QUERY_BLOCK] queries over blocks of [#KEY_BLOCK] keys
/// with a running max and sum per query (the online softmax), writing the output and, for a
/// backward, each query's logsumexp; the backward recomputes each block of probabilities from q,
/// k and that logsumexp and accumulates the three gradients. Memory beyond the operands is a few
/// blocks per thread, O(T·d) at most, never O(T·S).
///
/// Buffers: q `[…, H, T, d]`, k `[…, Hkv, S, d]`, v `[…, Hkv, S, dv]`, for the backward also the
/// output, the logsumexp and the output's gradient, then the mask when `maskType` is not null
/// (read at `maskStrides` over the scores' axes, 0 where broadcast), then one output per part, in
/// `parts` order. All dense row-major but a forward's k and v, which are read through `keys` and
/// `values` (index maps over their `[…, Hkv, S, d]` with the features contiguous, or for k the
/// keys): a KV cache's first S rows are read where the cache keeps them.
///
/// Work items: the forward's are (batch, head, query block), the backward's (batch, kv head),
/// which owns its k and v gradients and those of q for the heads sharing them, so no two items
/// write one element.
public record AttentionKernel(List<AttentionPart> parts, Shape scores, int kvHeads, int depth, int valueDepth, boolean causal, double scale,
                              DType dtype, DType maskType, List<Integer> maskStrides, IndexMap keys, IndexMap values) implements KernelForm {
    /// Queries per block of the forward: a block's rows stream over each key block while it is in L1.
    public static final int QUERY_BLOCK = 64;
    /// Keys per block: the scores of a row of a block are 64 values, four vectors of 16 f32.
    public static final int KEY_BLOCK = 64;

    public AttentionKernel {
        parts = List.copyOf(parts);
        maskStrides = List.copyOf(maskStrides);
        if (parts.isEmpty() || parts.stream().map(AttentionPart::isGradient).distinct().count() != 1)
            throw new IllegalArgumentException("attention kernel: parts of one direction, not " + parts);
        int heads = scores.rank() < 3 ? 1 : scores.dim(scores.rank() - 3);
        if (scores.rank() < 2 || !dtype.isFloating() || kvHeads < 1 || heads % kvHeads != 0 || (maskType == null) != maskStrides.isEmpty())
            throw new IllegalArgumentException("attention kernel: scores %s, %d kv heads, %s, mask %s %s".formatted(scores, kvHeads, dtype, maskType, maskStrides));
        if (!(rowsOf(keys, scores, depth) || transposed(keys, scores)) || !rowsOf(values, scores, valueDepth)
                || parts.getFirst().isGradient() && !(keys.equals(dense(scores, kvHeads, depth)) && values.equals(dense(scores, kvHeads, valueDepth))))
            throw new IllegalArgumentException("attention kernel: k %s, v %s over scores %s (features contiguous, or k's keys; a backward's dense)".formatted(keys, values, scores));
    }

    /// The kernel over dense k and v.
    public AttentionKernel(List<AttentionPart> parts, Shape scores, int kvHeads, int depth, int valueDepth, boolean causal, double scale, DType dtype, DType maskType, List<Integer> maskStrides) {
        this(parts, scores, kvHeads, depth, valueDepth, causal, scale, dtype, maskType, maskStrides, dense(scores, kvHeads, depth), dense(scores, kvHeads, valueDepth));
    }

    private static IndexMap dense(Shape scores, int kvHeads, int features) {
        var shape = scores.with(scores.rank() - 1, features).with(scores.rank() - 2, scores.dim(scores.rank() - 1));
        return IndexMap.contiguous(scores.rank() < 3 ? shape : shape.with(scores.rank() - 3, kvHeads));
    }

    private static boolean rowsOf(IndexMap map, Shape scores, int features) { return map.rank() == scores.rank() && (features == 1 || map.stride(scores.rank() - 1) == 1); }

    // Keys contiguous instead of features (k stored transposed, `[…, Hkv, d, S]`): a row of scores
    // is then a product along the features with no transpose.
    private static boolean transposed(IndexMap map, Shape scores) { return map.rank() == scores.rank() && map.stride(scores.rank() - 2) == 1; }

    /// Whether k's keys, not its features, are contiguous (k stored transposed).
    public boolean keysTransposed() { return depth > 1 && keys.stride(scores.rank() - 1) != 1; }

    /// From one feature of a key to the next in k's buffer: 1, or the stride of a transposed k.
    public int keyFeatureStride() { return keys.stride(scores.rank() - 1); }

    /// Where key `j` of kv head `h` (the batch axes and the kv heads flattened) starts in k's buffer.
    public int keyRow(int h, int j) { return rowStart(keys, h, j); }

    /// Where value `j` of kv head `h` starts in v's buffer.
    public int valueRow(int h, int j) { return rowStart(values, h, j); }

    private int rowStart(IndexMap map, int h, int j) {
        int rank = scores.rank(), at = map.offset() + j * map.stride(rank - 2);
        var shape = kvShape(1);
        for (int axis = rank - 3; axis >= 0; axis--) {
            at += h % shape.dim(axis) * map.stride(axis);
            h /= shape.dim(axis);
        }
        return at;
    }

    public boolean backward() { return parts.getFirst().isGradient(); }

    /// The product of the leading axes before the heads.
    public int batch() { return scores.rank() < 3 ? 1 : new Shape(scores.dims().subList(0, scores.rank() - 3)).size(); }

    public int heads() { return scores.rank() < 3 ? 1 : scores.dim(scores.rank() - 3); }

    public int tokens() { return scores.dim(scores.rank() - 2); }

    public int sources() { return scores.dim(scores.rank() - 1); }

    public int queryBlocks() { return (tokens() + QUERY_BLOCK - 1) / QUERY_BLOCK; }

    /// Where output `part` is bound among the outputs, or -1 when the kernel does not write it.
    public int output(AttentionPart part) { return parts.indexOf(part); }

    @Override
    public List<Kernel.Input> inputs() {
        var inputs = new ArrayList<Kernel.Input>();
        inputs.add(new Kernel.Input(dtype, qShape().size(), IndexMap.contiguous(qShape())));
        inputs.add(new Kernel.Input(dtype, reach(kvShape(depth), keys), keys));
        inputs.add(new Kernel.Input(dtype, reach(kvShape(valueDepth), values), values));
        if (backward())
            for (Shape shape : List.of(outputShape(), qShape().with(scores.rank() - 1, 1), outputShape())) inputs.add(new Kernel.Input(dtype, shape.size(), IndexMap.contiguous(shape)));
        if (maskType != null) inputs.add(new Kernel.Input(maskType, reach(scores, new IndexMap(0, maskStrides)), new IndexMap(0, maskStrides)));
        return inputs;
    }

    /// Each part's result, dense; an attention kernel's outputs are its accumulators' final values.
    @Override
    public List<Kernel.Output> outputs() {
        var outputs = new ArrayList<Kernel.Output>();
        for (int i = 0; i < parts.size(); i++) {
            Shape shape = switch (parts.get(i)) {
                case OUTPUT -> outputShape();
                case LOGSUMEXP -> qShape().with(scores.rank() - 1, 1);
                case GRAD_Q -> qShape();
                case GRAD_K -> kvShape(depth);
                case GRAD_V -> kvShape(valueDepth);
            };
            outputs.add(new Kernel.Output(new Expr.Accumulated(i, dtype), shape.size(), IndexMap.contiguous(shape), false));
        }
        return outputs;
    }

    @Override
    public int workItems() { return backward() ? batch() * kvHeads : batch() * heads() * queryBlocks(); }

    /// Multiply-adds over 32, as [MatMulKernel#work] counts them, plus [#BLOCK_WORK] for each block
    /// of queries against each block of keys (the executor splits on this).
    @Override
    public long work() { return Math.max(1, flops() / 64) + BLOCK_WORK * batch() * heads() * queryBlocks() * ((sources() + KEY_BLOCK - 1) / KEY_BLOCK); }

    /// A block's fixed part, its row operations (mask, max, exp, rescaling) and the calls around
    /// them, in work units (about a pointwise element each): a decode step's block (one query, 64
    /// keys) takes 1–2 µs, where its 6,144 multiply-adds count 192; counted by those alone, a
    /// decode step's attention would never be large enough to split between threads.
    static final long BLOCK_WORK = 1 << 12;

    /// Floating-point operations of the products, per head: `2·T·S·(d + dv)` forward (q·kᵀ, P·v),
    /// `2·T·S·(3d + 2dv)` backward (q·kᵀ, dO·vᵀ, Pᵀ·dO, dS·k, dSᵀ·q).
    public long flops() {
        long perScore = backward() ? 3L * depth + 2L * valueDepth : depth + valueDepth;
        return 2L * batch() * heads() * tokens() * sources() * perScore;
    }

    @Override
    public int splitGranule() { return 1; }

    public Shape qShape() { return scores.with(scores.rank() - 1, depth); }

    public Shape outputShape() { return scores.with(scores.rank() - 1, valueDepth); }

    public Shape kvShape(int features) {
        var shape = scores.with(scores.rank() - 1, features).with(scores.rank() - 2, sources());
        return scores.rank() < 3 ? shape : shape.with(scores.rank() - 3, kvHeads);
    }

    // The elements `map` reaches over `shape`: the largest index, plus one.
    private static int reach(Shape shape, IndexMap map) {
        int last = map.offset();
        for (int axis = 0; axis < shape.rank(); axis++) last += (shape.dim(axis) - 1) * map.stride(axis);
        return last + 1;
    }

    @Override
    public String toString() {
        String mask = maskType == null ? "" : (maskType == DType.BOOL ? ", bool mask" : ", added mask") + " strides " + maskStrides;
        String heads = kvHeads == heads() ? "" : ", %d heads sharing %d kv heads".formatted(heads(), kvHeads);
        String views = keys.equals(dense(scores, kvHeads, depth)) && values.equals(dense(scores, kvHeads, valueDepth)) ? "" : ", k read at %s, v at %s".formatted(keys, values);
        String how = backward()
                ? "backward (FlashAttention-2): per (batch, kv head), probabilities recomputed from q, k and the logsumexp per %d×%d block".formatted(QUERY_BLOCK, KEY_BLOCK)
                : "forward: per (batch, head, block of %d queries), streaming blocks of %d keys with a running max and sum (online softmax)".formatted(QUERY_BLOCK, KEY_BLOCK);
        return "attention %s %s scores %s never written; %s; writes %s%s%s%s%s, scale %s%n".formatted(
                backward() ? "backward" : "forward", dtype, scores, how, parts, causal ? ", causal" : "", mask, heads, views, scale);
    }
}
