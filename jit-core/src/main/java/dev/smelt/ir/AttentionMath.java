// SPDX-License-Identifier: Apache-2.0
package dev.smelt.ir;

import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;

/// [Node.Attention]'s typing rule, and its meaning written in the other nodes: the graph that
/// `scaledDotProductAttention` traces, which the reference interpreter evaluates and an unfused
/// program runs. Scores `s = (q·kᵀ)·scale`, plus `-inf` above the diagonal when causal, then the
/// mask (`where(mask, s, -inf)` or `s + mask`); `P = exp(s - max s) · (1 / Σ exp(s - max s))`.
public final class AttentionMath {
    private AttentionMath() {}

    public static Node q(Node.Attention a) { return a.operands().get(0); }

    public static Node k(Node.Attention a) { return a.operands().get(1); }

    public static Node v(Node.Attention a) { return a.operands().get(2); }

    /// The mask operand, or null.
    public static Node mask(Node.Attention a) { return mask(a.part(), a.operands()); }

    /// `[…, H, T, S]`: the shape of the scores, which the fused kernels never write.
    public static Shape scores(Node.Attention a) { return scores(q(a), k(a)); }

    private static Node mask(AttentionPart part, List<Node> operands) {
        int fixed = part.isGradient() ? 6 : 3;
        return operands.size() > fixed ? operands.get(fixed) : null;
    }

    private static Shape scores(Node q, Node k) { return q.shape().with(q.shape().rank() - 1, k.shape().dim(k.shape().rank() - 2)); }

    /// The part's shape once the operands are checked.
    static Shape check(AttentionPart part, List<Node> operands, double scale) {
        String problem = problem(part, operands, scale);
        Check.that(problem == null, "%s", problem);
        Node q = operands.get(0), v = operands.get(2);
        int rank = q.shape().rank();
        return switch (part) {
            case OUTPUT -> q.shape().with(rank - 1, v.shape().dim(rank - 1));
            case LOGSUMEXP -> q.shape().with(rank - 1, 1);
            case GRAD_Q -> q.shape();
            case GRAD_K -> operands.get(1).shape();
            case GRAD_V -> v.shape();
        };
    }

    /// Why `operands` cannot be those of an attention `part` with `scale`, or null when they can:
    /// what a rewrite asks before it builds a [Node.Attention] from a pattern that may not fit.
    public static String problem(AttentionPart part, List<Node> operands, double scale) {
        int fixed = part.isGradient() ? 6 : 3;
        if (operands.size() != fixed && operands.size() != fixed + 1) return "attention %s takes %d operands (and a mask), not %d".formatted(part, fixed, operands.size());
        Node q = operands.get(0), k = operands.get(1), v = operands.get(2), mask = mask(part, operands);
        int rank = q.shape().rank();
        if (!q.dtype().isFloating() || k.dtype() != q.dtype() || v.dtype() != q.dtype())
            return "attention needs f32 or f64 q, k, v of one dtype, not %s, %s, %s".formatted(q.dtype(), k.dtype(), v.dtype());
        if (rank < 2 || k.shape().rank() != rank || v.shape().rank() != rank)
            return "attention needs q, k, v of one rank ≥ 2, not %s, %s, %s".formatted(q.shape(), k.shape(), v.shape());
        if (q.shape().dim(rank - 1) != k.shape().dim(rank - 1) || k.shape().dim(rank - 2) != v.shape().dim(rank - 2))
            return "attention: q %s and k %s need one feature size, k and v %s one key count".formatted(q.shape(), k.shape(), v.shape());
        for (int axis = 0; axis < rank - 2; axis++) {
            int heads = q.shape().dim(axis), kv = k.shape().dim(axis);
            boolean grouped = axis == rank - 3 && kv > 0 && heads % kv == 0;
            if (kv != v.shape().dim(axis) || kv != heads && !grouped) return "attention: axis %d of q %s, k %s, v %s".formatted(axis, q.shape(), k.shape(), v.shape());
        }
        if (!Double.isFinite(scale)) return "attention scale must be finite, not %s".formatted(scale);
        Shape output = q.shape().with(rank - 1, v.shape().dim(rank - 1)), logsumexp = q.shape().with(rank - 1, 1);
        if (mask != null) {
            Shape scores = scores(q, k);
            if (mask.dtype() != DType.BOOL && mask.dtype() != q.dtype()) return "an attention mask is bool or %s, not %s".formatted(q.dtype(), mask.dtype());
            if (mask.shape().rank() != rank) return "attention mask %s needs the rank of the scores %s".formatted(mask.shape(), scores);
            for (int axis = 0; axis < rank; axis++)
                if (mask.shape().dim(axis) != scores.dim(axis) && mask.shape().dim(axis) != 1)
                    return "expand from %s to %s: axis %d has size %d, not 1".formatted(mask.shape(), scores, axis, mask.shape().dim(axis));
        }
        if (part.isGradient()) {
            if (!operands.get(3).shape().equals(output) || !operands.get(5).shape().equals(output) || !operands.get(4).shape().equals(logsumexp))
                return "attention gradient needs the output and its gradient %s and the logsumexp %s".formatted(output, logsumexp);
            if (operands.get(3).dtype() != q.dtype() || operands.get(4).dtype() != q.dtype() || operands.get(5).dtype() != q.dtype())
                return "attention gradient operands of dtype %s".formatted(q.dtype());
        }
        return null;
    }

    /// `graph` with every [Node.Attention] written out in the other nodes ([#expand]): the same
    /// program as it would run unfused.
    public static Graph expandAll(Graph graph) {
        Map<Node, Node> rebuilt = new IdentityHashMap<>();
        for (Node input : graph.inputs()) rebuilt.put(input, input);
        for (Node node : graph.nodes()) {
            if (node instanceof Node.Input) continue;
            Node same = node.withInputs(node.inputs().stream().map(rebuilt::get).toList());
            rebuilt.put(node, same instanceof Node.Attention a ? expand(a) : same);
        }
        return new Graph(graph.inputs(), graph.outputs().stream().map(rebuilt::get).toList());
    }

    /// The part `a` computes, in the other nodes.
    public static Node expand(Node.Attention a) {
        Node s = scores(a.operands(), a.part(), a.causal(), a.scale());
        int last = s.shape().rank() - 1;
        return switch (a.part()) {
            case OUTPUT -> new Node.MatMul(softmax(s, last), grouped(v(a), s.shape()), false, false);
            case LOGSUMEXP -> {
                Node max = new Node.Reduce(ReduceOp.MAX, s, List.of(last));
                Node sum = new Node.Reduce(ReduceOp.SUM, new Node.Unary(UnaryOp.EXP, new Node.Binary(BinaryOp.SUB, s, new Node.Expand(max, s.shape()))), List.of(last));
                yield new Node.Binary(BinaryOp.ADD, max, new Node.Unary(UnaryOp.LOG, sum));
            }
            case GRAD_Q -> scaled(new Node.MatMul(scoreGradient(a), grouped(k(a), s.shape()), false, false), a.scale());
            case GRAD_K -> ungrouped(scaled(new Node.MatMul(scoreGradient(a), q(a), true, false), a.scale()), k(a).shape());
            case GRAD_V -> ungrouped(new Node.MatMul(probabilities(a, s), a.operands().get(5), true, false), v(a).shape());
        };
    }

    /// `∂L/∂s` for a gradient part `a` (its output, logsumexp and output gradient): the gradient an
    /// added mask receives, broadcast over the scores. `dS = P ∘ (dO·vᵀ - rowsum(dO ∘ O))`, and 0
    /// where a bool mask dropped the score (so a row it masks entirely has a NaN output, as
    /// unfused, but passes no NaN to q and k).
    public static Node scoreGradient(Node.Attention a) {
        Node s = scores(a.operands(), a.part(), a.causal(), a.scale());
        Node out = a.operands().get(3), dOut = a.operands().get(5);
        int last = s.shape().rank() - 1;
        Node dP = new Node.MatMul(dOut, grouped(v(a), s.shape()), false, true);
        Node rowDot = new Node.Reduce(ReduceOp.SUM, new Node.Binary(BinaryOp.MUL, dOut, out), List.of(last));
        Node dS = new Node.Binary(BinaryOp.MUL, probabilities(a, s), new Node.Binary(BinaryOp.SUB, dP, new Node.Expand(rowDot, s.shape())));
        Node mask = mask(a);                                       // where's vjp: no gradient where a bool mask dropped the score
        return mask == null || mask.dtype() != DType.BOOL ? dS : new Node.Where(broadcast(mask, s.shape()), dS, new Node.Constant(0, s.shape(), s.dtype()));
    }

    // P = exp(s - L) from the saved logsumexp L, as the fused backward recomputes it.
    private static Node probabilities(Node.Attention a, Node s) {
        return new Node.Unary(UnaryOp.EXP, new Node.Binary(BinaryOp.SUB, s, new Node.Expand(a.operands().get(4), s.shape())));
    }

    private static Node scores(List<Node> operands, AttentionPart part, boolean causal, double scale) {
        Node q = operands.get(0), k = operands.get(1), mask = mask(part, operands);
        Shape shape = scores(q, k);
        int rank = shape.rank(), tokens = shape.dim(rank - 2), sources = shape.dim(rank - 1);
        Node s = scaled(new Node.MatMul(q, grouped(k, shape), false, true), scale);
        if (causal) {
            Shape square = Shape.of(tokens, sources);
            Node above = new Node.Binary(BinaryOp.GE, new Node.Iota(1, square, DType.I32),
                    new Node.Binary(BinaryOp.ADD, new Node.Iota(0, square, DType.I32), new Node.Constant(1, square, DType.I32)));
            Node bias = new Node.Where(above, new Node.Constant(Double.NEGATIVE_INFINITY, square, s.dtype()), new Node.Constant(0, square, s.dtype()));
            s = new Node.Binary(BinaryOp.ADD, s, broadcast(bias, shape));
        }
        if (mask == null) return s;
        Node full = broadcast(mask, shape);
        return mask.dtype() == DType.BOOL ? new Node.Where(full, s, new Node.Constant(Double.NEGATIVE_INFINITY, shape, s.dtype())) : new Node.Binary(BinaryOp.ADD, s, full);
    }

    // exp(s - max) · (1 / Σ exp(s - max)), as Tensor.softmax traces it.
    private static Node softmax(Node s, int axis) {
        Node exps = new Node.Unary(UnaryOp.EXP, new Node.Binary(BinaryOp.SUB, s, new Node.Expand(new Node.Reduce(ReduceOp.MAX, s, List.of(axis)), s.shape())));
        Node inverse = new Node.Unary(UnaryOp.RECIPROCAL, new Node.Reduce(ReduceOp.SUM, exps, List.of(axis)));
        return new Node.Binary(BinaryOp.MUL, exps, new Node.Expand(inverse, s.shape()));
    }

    private static Node scaled(Node x, double scale) { return new Node.Binary(BinaryOp.MUL, x, new Node.Constant(scale, x.shape(), x.dtype())); }

    // x of lower rank or with axes of size 1, read at every point of `shape`.
    private static Node broadcast(Node x, Shape shape) {
        var dims = new ArrayList<Integer>();
        for (int i = 0; i < shape.rank() - x.shape().rank(); i++) dims.add(1);
        dims.addAll(x.shape().dims());
        Node same = dims.equals(x.shape().dims()) ? x : new Node.Reshape(x, new Shape(dims));
        return same.shape().equals(shape) ? same : new Node.Expand(same, shape);
    }

    // k or v `[…, Hkv, S, f]` with each head repeated for the q heads that share it: `[…, H, S, f]`.
    private static Node grouped(Node kv, Shape scores) {
        int rank = kv.shape().rank();
        if (rank < 3 || kv.shape().dim(rank - 3) == scores.dim(rank - 3)) return kv;
        int heads = scores.dim(rank - 3), kvHeads = kv.shape().dim(rank - 3);
        var one = new ArrayList<>(kv.shape().dims());
        one.add(rank - 2, 1);
        var many = new ArrayList<>(one);
        many.set(rank - 2, heads / kvHeads);
        Node expanded = new Node.Expand(new Node.Reshape(kv, new Shape(one)), new Shape(many));
        return new Node.Reshape(expanded, kv.shape().with(rank - 3, heads));
    }

    // A gradient `[…, H, S, f]` summed over the q heads of each kv head: `[…, Hkv, S, f]`.
    private static Node ungrouped(Node g, Shape kv) {
        int rank = kv.rank();
        if (g.shape().equals(kv)) return g;
        int kvHeads = kv.dim(rank - 3), heads = g.shape().dim(rank - 3);
        var split = new ArrayList<>(kv.dims());
        split.add(rank - 2, heads / kvHeads);
        Node summed = new Node.Reduce(ReduceOp.SUM, new Node.Reshape(g, new Shape(split)), List.of(rank - 2));
        return new Node.Reshape(summed, kv);
    }
}
