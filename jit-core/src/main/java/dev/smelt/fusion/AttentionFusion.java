// SPDX-License-Identifier: Apache-2.0
package dev.smelt.fusion;

import dev.smelt.ir.AttentionMath;
import dev.smelt.ir.FusionMode;
import dev.smelt.ir.AttentionPart;
import dev.smelt.ir.BinaryOp;
import dev.smelt.ir.Graph;
import dev.smelt.ir.Node;
import dev.smelt.ir.ReduceOp;
import dev.smelt.ir.Shape;
import dev.smelt.ir.UnaryOp;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BiFunction;

/// The fusion rule for attention, all of it: `softmax(q·kᵀ·scale + mask)·v`, as
/// `scaledDotProductAttention` traces it or as written by hand in the same ops, becomes one
/// [Node.Attention], which plans as one kernel streaming over key blocks (`AttentionLaunch`).
///
/// It runs on every traced graph (`Jit.trace`), before autograd differentiates it, so the
/// gradient is the attention node's own rule (a fused backward), and [dev.smelt.ir.AttentionMath#expandAll]
/// undoes it for [FusionMode#NONE]. It is not exact like the passes: the fused kernel sums the scores' exponents
/// in another order, within the tolerance of a softmax.
///
/// Recognised, over `[…, H, T, d]` operands of one rank ≥ 2 with T, S ≥ 1:
/// - the scores `matmul(q, kᵀ)` (a transpose flag or a permute of the last two axes), times a
///   constant or divided by one, or not scaled; k and v repeated per head as grouped-query
///   attention traces it (`reshape(expand(reshape(k)))`), or broadcast from one head;
/// - then `where(mask, s, -inf)`, or `s + mask`, or `s + causal` where `causal` is
///   `where(iota₁ ≥ iota₀ + 1, -inf, 0)` (what `Tensor.full(-inf, T, S).triu(1)` traces);
/// - then softmax over the last axis as `Tensor.softmax` traces it, then the matmul with v.
///
/// Not recognised when the scores or probabilities are read elsewhere (the user returns or reuses
/// them): they would be computed twice.
public final class AttentionFusion {
    private AttentionFusion() {}

    /// `graph` with every attention it recognises replaced by a [Node.Attention] output node.
    public static Graph recognise(Graph graph) {
        if (!hasMatMul(graph)) return graph; // most graphs: a fresh JVM's first trace then bootstraps none of the lambdas below
        var uses = uses(graph);
        return rebuild(graph, (original, rebuilt) -> original instanceof Node.MatMul m && match(m, uses) instanceof Node.Attention a
                ? a.withInputs(a.operands().stream().map(rebuilt::get).toList()) : original.withInputs(original.inputs().stream().map(rebuilt::get).toList()));
    }

    private static boolean hasMatMul(Graph graph) {
        for (Node node : graph.nodes())
            if (node instanceof Node.MatMul) return true;
        return false;
    }

    /// Whether one kernel computes both: the same direction over the same operands.
    static boolean siblings(Node.Attention a, Node.Attention b) {
        return a.part().isGradient() == b.part().isGradient() && a.causal() == b.causal() && Double.compare(a.scale(), b.scale()) == 0
                && Node.sameNodes(a.operands(), b.operands());
    }

    private static Graph rebuild(Graph graph, BiFunction<Node, Map<Node, Node>, Node> rebuild) {
        Map<Node, Node> rebuilt = new IdentityHashMap<>();
        for (Node input : graph.inputs()) rebuilt.put(input, input);
        for (Node node : graph.nodes())
            if (!(node instanceof Node.Input)) rebuilt.put(node, rebuild.apply(node, rebuilt));
        return new Graph(graph.inputs(), graph.outputs().stream().map(rebuilt::get).toList());
    }

    private static Map<Node, Integer> uses(Graph graph) {
        Map<Node, Integer> uses = new IdentityHashMap<>();
        for (Node node : graph.nodes())
            for (Node operand : node.inputs()) uses.merge(operand, 1, Integer::sum);
        for (Node output : graph.outputs()) uses.merge(output, 1, Integer::sum);
        return uses;
    }

    // softmax(s)·v → attention over the operands under s and v, or null.
    private static Node.Attention match(Node.MatMul root, Map<Node, Integer> uses) {
        if (root.transposeA() || root.transposeB()) return null;
        var large = new ArrayList<Node>();                       // [T, S] values only the pattern may read
        var readers = new ArrayList<Node>(List.of(root));        // and the other nodes that read them
        Node x = softmaxOperand(root.a(), large, readers);
        if (x == null) return null;
        Node mask = null, scores = x;
        boolean causal = false;
        if (x instanceof Node.Where(var condition, var kept, var filled, var _, var _) && value(filled) == Double.NEGATIVE_INFINITY) {
            mask = underExpand(condition);
            scores = kept;
        } else if (x instanceof Node.Binary(var op, var left, var right, var _, var _) && op == BinaryOp.ADD) {
            boolean leftScores = product(left) != null;
            scores = leftScores ? left : right;
            Node bias = leftScores ? right : left;
            causal = isCausal(bias, x.shape());
            if (!causal) mask = underExpand(bias);
        }
        addOnce(large, scores);
        double scale = 1;
        Node product = product(scores);
        if (product == null) return null;
        if (product != scores) scale = scores instanceof Node.Binary b && b.op() == BinaryOp.DIV ? 1 / value(b.right()) : value(otherFactor((Node.Binary) scores, product));
        var mm = (Node.MatMul) product;
        addOnce(large, mm);
        if (mm.transposeA()) return null;
        Node keys = mm.transposeB() ? mm.b() : transposedLastTwo(mm.b());
        if (keys == null) return null;
        int rank = mm.shape().rank();
        if (rank < 2 || mm.shape().dim(rank - 2) == 0 || mm.shape().dim(rank - 1) == 0) return null;
        readers.addAll(large);
        for (Node node : large)
            if (uses.getOrDefault(node, 0) != internalUses(node, readers)) return null;
        int heads = rank >= 3 ? mm.shape().dim(rank - 3) : 1;
        var operands = new ArrayList<>(List.of(mm.a(), shared(keys, heads), shared(root.b(), heads)));
        if (mask != null) operands.add(mask);
        // Shapes or dtypes the kernel does not take (a broadcast batch axis, a mask of another dtype) are no attention.
        if (AttentionMath.problem(AttentionPart.OUTPUT, operands, scale) != null) return null;
        return new Node.Attention(AttentionPart.OUTPUT, operands, causal, scale);
    }

    // exp(x - max x)·(1/Σ exp(x - max x)) over the last axis → x, noting the [T, S] values on the
    // way in `large` and the reductions that read them in `reductions`.
    private static Node softmaxOperand(Node p, List<Node> large, List<Node> reductions) {
        if (!(p instanceof Node.Binary(var mul, var exps, var broadcastInverse, var _, var _)) || mul != BinaryOp.MUL) return null;
        int last = p.shape().rank() - 1;
        if (!(unbroadcast(broadcastInverse) instanceof Node.Unary(var reciprocal, Node.Reduce sum, var _, var _))
                || reciprocal != UnaryOp.RECIPROCAL || sum.op() != ReduceOp.SUM || sum.x() != exps || !sum.axes().equals(List.of(last))) return null;
        if (!(exps instanceof Node.Unary(var exp, Node.Binary(var sub, var x, var broadcastMax, var _, var _), var _, var _))
                || exp != UnaryOp.EXP || sub != BinaryOp.SUB) return null;
        if (!(stopped(unbroadcast(broadcastMax)) instanceof Node.Reduce max) || max.op() != ReduceOp.MAX || max.x() != x || !max.axes().equals(List.of(last))) return null;
        large.addAll(List.of(p, exps, ((Node.Unary) exps).x(), x));
        reductions.addAll(List.of(sum, max));
        return x;
    }

    // The maximum softmax shifts by, under the stop-gradient Composites.shifted gives it.
    private static Node stopped(Node node) { return node instanceof Node.Unary(var op, var x, var _, var _) && op == UnaryOp.STOP_GRADIENT ? x : node; }

    // A row's value read at every point of the row: under its expand, or itself when rows have one point.
    private static Node unbroadcast(Node node) { return node instanceof Node.Expand e ? e.x() : node; }

    // The matmul under `(mm · c)`, `(c · mm)`, `(mm / c)` or `mm` itself, c a constant; else null.
    private static Node product(Node scores) {
        if (scores instanceof Node.MatMul) return scores;
        if (!(scores instanceof Node.Binary(var op, var left, var right, var _, var _))) return null;
        if (op == BinaryOp.MUL && left instanceof Node.MatMul && !Double.isNaN(value(right))) return left;
        if (op == BinaryOp.MUL && right instanceof Node.MatMul && !Double.isNaN(value(left))) return right;
        if (op == BinaryOp.DIV && left instanceof Node.MatMul && !Double.isNaN(value(right))) return left;
        return null;
    }

    private static Node otherFactor(Node.Binary product, Node factor) { return product.left() == factor ? product.right() : product.left(); }

    // kᵀ read through a permute of the last two axes → k; else null. A kᵀ of one head broadcast over
    // the heads (the matmul's batch broadcast) → that k, which the kernel shares between heads.
    private static Node transposedLastTwo(Node node) {
        int heads = node.shape().rank() - 3;
        if (node instanceof Node.Expand(var one, var shape, var _) && heads >= 0 && one.shape().equals(shape.with(heads, 1))) node = one;
        if (!(node instanceof Node.Permute(var x, var order, var _, var _))) return null;
        int rank = order.size();
        for (int axis = 0; axis < rank; axis++)
            if (order.get(axis) != (axis < rank - 2 ? axis : 2 * rank - 3 - axis)) return null;
        return x;
    }

    // k as the user passed it, under grouped-query repetition (reshape(expand(reshape(k)))) or a
    // broadcast of its one head over `heads`.
    private static Node shared(Node kv, int heads) {
        int rank = kv.shape().rank();
        if (kv instanceof Node.Expand(var one, var shape, var _) && rank >= 3 && one.shape().equals(shape.with(rank - 3, 1))) return one;
        if (kv instanceof Node.Reshape(Node.Expand(Node.Reshape(var base, var _, var _), var _, var _), var _, var _)
                && base.shape().rank() == rank && base.shape().equals(kv.shape().with(rank - 3, base.shape().dim(rank - 3)))) {
            int kvHeads = base.shape().dim(rank - 3);
            var one = new ArrayList<>(base.shape().dims());
            one.add(rank - 2, 1);
            var many = new ArrayList<>(one);
            many.set(rank - 2, kvHeads == 0 ? 0 : heads / kvHeads);
            var expand = (Node.Expand) ((Node.Reshape) kv).x();
            if (expand.x().shape().dims().equals(one) && expand.shape().dims().equals(many)) return base;
        }
        return kv;
    }

    // where(iota₁ ≥ iota₀ + 1, -inf, 0) or where(iota₁ > iota₀, -inf, 0) of the scores' [T, S], under
    // reshapes and expands that keep it as the last two axes: one of [1, S], [T, 1], or [S, T] reshaped,
    // masks other keys than the causal mask.
    private static boolean isCausal(Node bias, Shape scores) {
        Node base = bias;
        while (lastTwo(base.shape()).equals(lastTwo(scores)) && (base instanceof Node.Expand || base instanceof Node.Reshape)) base = base.inputs().getFirst();
        if (!lastTwo(base.shape()).equals(lastTwo(scores))) return false;
        if (!(base instanceof Node.Where(Node.Binary(var op, Node.Iota column, var row, var _, var _), var above, var below, var _, var _))
                || value(above) != Double.NEGATIVE_INFINITY || value(below) != 0 || base.shape().rank() != 2 || column.axis() != 1) return false;
        if (op == BinaryOp.GT) return row instanceof Node.Iota r && r.axis() == 0;
        return op == BinaryOp.GE && row instanceof Node.Binary(var add, Node.Iota r, var one, var _, var _) && add == BinaryOp.ADD && r.axis() == 0 && value(one) == 1;
    }

    private static List<Integer> lastTwo(Shape shape) { return shape.rank() < 2 ? List.of() : shape.dims().subList(shape.rank() - 2, shape.rank()); }

    private static void addOnce(List<Node> nodes, Node node) {
        if (nodes.stream().noneMatch(n -> n == node)) nodes.add(node);
    }

    private static Node underExpand(Node mask) { return mask instanceof Node.Expand e ? e.x() : mask; }

    // The value of a constant under views, or NaN.
    private static double value(Node node) {
        while (node instanceof Node.Expand || node instanceof Node.Reshape) node = node.inputs().getFirst();
        return node instanceof Node.Constant c ? c.value() : Double.NaN;
    }

    // How many times the pattern's own nodes read `node`.
    private static int internalUses(Node node, List<Node> readers) {
        int count = 0;
        for (Node reader : readers)
            for (Node operand : reader.inputs())
                if (operand == node) count++;
        return count;
    }
}
