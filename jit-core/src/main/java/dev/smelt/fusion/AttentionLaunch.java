// SPDX-License-Identifier: Apache-2.0
package dev.smelt.fusion;

import dev.smelt.ir.AttentionMath;
import dev.smelt.ir.Node;
import dev.smelt.ir.Shape;
import dev.smelt.kernel.AttentionKernel;
import dev.smelt.kernel.IndexMap;
import dev.smelt.kernel.Decision;
import dev.smelt.kernel.Schedule;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;

/// Plans [Node.Attention] nodes ([AttentionFusion] made them): the siblings over the same operands
/// (the output and its logsumexp; the three gradients) become one [AttentionKernel] launch, whose
/// operands are read from their buffers in place (a reshape of a buffer is that buffer). A
/// forward's k and v may be any view of a buffer whose features stay contiguous (a KV cache's
/// first rows, a slice of heads): the kernel reads them through their strides.
final class AttentionLaunch {
    private AttentionLaunch() {}

    /// The launch computing `roots`, siblings all, with the buffers of their operands and their own.
    static Schedule.Launch of(List<Node> roots, Map<Node, Integer> buffers, Map<Node, Decision.Subject.GraphNode> labels) {
        var parts = roots.stream().map(n -> (Node.Attention) n).sorted(Comparator.comparing(Node.Attention::part)).toList();
        var first = parts.getFirst();
        var bound = new ArrayList<Integer>();
        var kv = new ArrayList<IndexMap>();
        for (int i = 0; i < first.operands().size(); i++) {
            Node operand = first.operands().get(i);
            View view = buffers.containsKey(buffer(operand)) ? null : view(first, i); // written out dense, or read in place
            if (view != null) {
                bound.add(buffers.get(view.buffer()));
                kv.add(view.map());
            } else {
                bound.add(buffers.get(buffer(operand)));
                if (i == 1 || i == 2) kv.add(IndexMap.contiguous(operand.shape()));
            }
        }
        for (var part : parts) bound.add(buffers.get(part));
        if (bound.contains(null)) throw new IllegalStateException("an operand of " + first + " has no buffer");
        String category = first.part().isGradient() ? "attention backward fusion (scores recomputed block by block)" : "attention fusion (online softmax over key blocks)";
        return new Schedule.Launch(kernel(parts, kv.get(0), kv.get(1)), bound, parts.stream().map(part -> labels.get(part).toString()).toList(), category);
    }

    /// The node whose buffer holds `operand`'s elements in row-major order: under its reshapes.
    static Node buffer(Node operand) {
        Node node = operand;
        while (node instanceof Node.Reshape r) node = r.x();
        return node;
    }

    /// Where a view's elements are: `map` over its shape, into the buffer of `buffer`.
    record View(Node buffer, IndexMap map) {}

    /// How `attention` reads its operand `index` in place, or null when that operand is read dense
    /// ([#buffer]): a forward's k (1) or v (2) that is views of one value (lowered as any kernel's
    /// loads are, [Mapping]), with its features contiguous, or for k its keys (a cache kept
    /// transposed, `[…, d, S]`).
    static View view(Node.Attention attention, int index) {
        if (attention.part().isGradient() || index < 1 || index > 2) return null;
        Node node = attention.operands().get(index);
        int rank = node.shape().rank();
        Mapping mapping = Mapping.axes(node.shape(), java.util.stream.IntStream.range(0, rank).toArray(), rank);
        for (Mapping under; (under = Lowering.viewOperand(node, mapping)) != null; node = node.inputs().getFirst()) mapping = under;
        if (!mapping.isAffine()) return null;
        IndexMap map = mapping.dense();
        Shape shape = attention.operands().get(index).shape();
        boolean rows = shape.dim(rank - 1) == 1 || map.stride(rank - 1) == 1, keysContiguous = index == 1 && rank >= 2 && map.stride(rank - 2) == 1;
        return rows || keysContiguous ? new View(node, map) : null;
    }

    private static AttentionKernel kernel(List<Node.Attention> parts, IndexMap keys, IndexMap values) {
        var first = parts.getFirst();
        Shape scores = AttentionMath.scores(first);
        int rank = scores.rank();
        Node k = AttentionMath.k(first), v = AttentionMath.v(first), mask = AttentionMath.mask(first);
        var strides = new ArrayList<Integer>();
        if (mask != null) {
            int[] dense = mask.shape().contiguousStrides();
            for (int axis = 0; axis < rank; axis++) strides.add(mask.shape().dim(axis) == 1 ? 0 : dense[axis]);
        }
        return new AttentionKernel(parts.stream().map(Node.Attention::part).toList(), scores, rank < 3 ? 1 : k.shape().dim(rank - 3),
                k.shape().dim(rank - 1), v.shape().dim(rank - 1), first.causal(), first.scale(), first.dtype(), mask == null ? null : mask.dtype(), strides, keys, values);
    }

    /// Why the attention is one kernel, priced against the same attention unfused: its products, and
    /// the scores written and read back by each of about eight kernels (scale, mask, max, subtract,
    /// exp, sum, normalise, product).
    static Decision decision(Decision.Subject subject, AttentionKernel kernel, Machine machine, CostModel costs) {
        double fused = costs.time(kernel, machine);
        long scores = (long) kernel.batch() * kernel.heads() * kernel.tokens() * kernel.sources() * kernel.dtype().bytes();
        double unfused = fused + 8 * (costs.read(scores) + costs.write(scores) + costs.launch());
        String how = kernel.backward()
                ? "FlashAttention-2's backward: the probabilities are recomputed block by block from q, k and the forward's logsumexp"
                : "FlashAttention's online softmax: each block of queries streams over blocks of keys with a running max and sum";
        return Decision.costed(subject, Decision.Choice.FUSE_ATTENTION, fused, unfused,
                how + "; the scores %s (%,d B) are never written".formatted(kernel.scores(), scores));
    }
}
