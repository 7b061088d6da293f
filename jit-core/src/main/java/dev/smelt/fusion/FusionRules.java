// SPDX-License-Identifier: Apache-2.0
package dev.smelt.fusion;

import dev.smelt.ir.Node;
import java.util.List;

/// The fixed fusion rules, all of them, each one line: when it applies and the reason `explain()`
/// gives. A fixed rule says a node must have a buffer of its own, or may not be fused into some
/// kernel, whatever it costs; the places that build a plan ([Realization], [KernelBudget],
/// [Groups], [Lowering], [MatMulLaunch], [FusionPlanner]) ask these and decide nothing of the kind
/// themselves. Choices weighed in time are not here: they are the planner's, priced by its
/// [CostModel] ([FusionPlanner], [Sharing], [Relayout], [MatMulLaunch#decision]).
final class FusionRules {
    private FusionRules() {}

    /// A rule: the cases it applies to, and why (a format when the reason names a figure). Each
    /// rule is a class of its own rather than a lambda: a fresh JVM's first compile loads them all,
    /// and a class loads in about a third of the time a lambda takes to bootstrap.
    abstract static class Rule<T> {
        private final String reason;

        Rule(String reason) { this.reason = reason; }

        abstract boolean test(T subject);

        // most reasons name no figure: no Formatter for them, which a fresh JVM runs interpreted
        String reason(Object... figures) { return figures.length == 0 ? reason : reason.formatted(figures); }
    }

    /// A node as a kernel reads it: its value wanted at each point of the kernel through `mapping`.
    record Read(Node node, Mapping mapping) {}

    /// A kernel's loop: how many reductions it folds, and how many of them are matmul products.
    record Loop(int reductions, int products) {}

    /// A reduction (or matmul) as a kernel would fold it: its own row structure, the kernel's, and
    /// where the kernel reads it. `perRow` is null when the reduction's rows are no rows of the kernel.
    record Fold(Signature own, Signature kernel, Mapping perRow, Mapping mapping) {}

    // Nodes with a buffer and a kernel of their own, never computed inside another kernel.
    static final Rule<Node> CONCAT = new Rule<>("concat writes its parts into one buffer") { boolean test(Node n) { return n instanceof Node.Concat; } };
    static final Rule<Node> UPDATE = new Rule<>("an update writes a buffer of its own") { boolean test(Node n) { return n instanceof Node.Scatter || n instanceof Node.SliceUpdate; } };
    static final Rule<Node> SORT = new Rule<>("a sort writes a buffer of its own") { boolean test(Node n) { return n instanceof Node.ArgSort; } };
    static final Rule<Node> ATTENTION = new Rule<>("attention is a kernel of its own") { boolean test(Node n) { return n instanceof Node.Attention; } };

    // Operands read from buffers: the rule applies to the node that reads them (a gather's, to whether its source has one).
    static final Rule<Node> UPDATE_OPERAND = new Rule<>("an update or a sort reads its operands from buffers") { boolean test(Node n) { return UPDATE.test(n) || SORT.test(n); } };
    static final Rule<Node> MATMUL_OPERAND = new Rule<>("a matmul operand is read many times") { boolean test(Node n) { return n instanceof Node.MatMul; } };
    static final Rule<Node> ATTENTION_OPERAND = new Rule<>("an attention operand is read dense, block by block") { boolean test(Node n) { return ATTENTION.test(n); } };
    static final Rule<Boolean> GATHER_SOURCE = new Rule<>("a gather reads its source from a buffer, at positions the index gives") { boolean test(Boolean buffered) { return !buffered; } };

    // What a kernel cannot compute at the points it reads it.
    static final Rule<Read> MERGED_RESHAPE = new Rule<>("a merging reshape reads it by flat position only") { boolean test(Read r) { return !r.mapping().isAffine() && !elementwise(r.node()); } };
    static final Rule<Boolean> FLAT_OPERAND = new Rule<>("a merging reshape reads it by flat position only, at which a view or reduction below it cannot be computed") { boolean test(Boolean blocked) { return blocked; } };
    static final Rule<Read> MERGED_IOTA = new Rule<>("a merging reshape hides which axis it counts") { boolean test(Read r) { return r.node() instanceof Node.Iota iota && Indexes.of(iota, r.mapping()) == null; } };
    static final Rule<Integer> BUDGET = new Rule<>("the kernel would exceed %d operations") { boolean test(Integer excess) { return excess > 0; } };
    static final Rule<Fold> ROWS = new Rule<>("its rows do not line up with this kernel's loop") { boolean test(Fold f) { return !f.own().key().equals(f.kernel().key()) || !f.own().operand().equals(f.kernel().operand()) || f.perRow() == null || !f.mapping().sameAs(f.perRow()); } };
    static final Rule<Boolean> CLAIMED = new Rule<>("two kernels would each compute it") { boolean test(Boolean foldedElsewhere) { return foldedElsewhere; } };

    // A matmul kernel computes one product, into a dense buffer of the product's dtype.
    static final Rule<Loop> ONE_PRODUCT = new Rule<>("another matmul or reduction shares its loop; apart, the product runs as a matmul") { boolean test(Loop l) { return l.products() > 0 && l.reductions() > 1; } };
    static final Rule<Boolean> OTHER_PRODUCT = new Rule<>("a matmul kernel computes one product and its epilogue: a sibling folding another product (or none) runs apart") { boolean test(Boolean otherProduct) { return otherProduct; } };
    static final Rule<Boolean> APART_SIBLING = new Rule<>("a sibling reduction whose inputs are ready after another kernel runs apart, as soon as they are written") { boolean test(Boolean apart) { return apart; } };
    static final Rule<Integer> ACCUMULATOR = new Rule<>("its epilogue writes no dense %s buffer to accumulate the product in") { boolean test(Integer output) { return output < 0; } };

    // The planner prices pointwise nodes only: a reduction or a product is folded by one kernel, never recomputed.
    static final Rule<Node> FOLDED_ONCE = new Rule<>("a reduction or a product is folded by one kernel") { boolean test(Node n) { return n instanceof Node.Reduce || n instanceof Node.MatMul; } };

    /// The rules that give a node a kernel of its own, in the order they are asked.
    private static final List<Rule<Node>> OWN_KERNEL = List.of(CONCAT, UPDATE, SORT, ATTENTION);

    /// The rule that gives `node` a buffer and a kernel of its own, or null.
    static Rule<Node> ownKernel(Node node) {
        for (var rule : OWN_KERNEL) if (rule.test(node)) return rule;
        return null;
    }

    /// The rule that keeps `read` out of the kernel reading it, once [#MERGED_RESHAPE] and [#BUDGET]
    /// have let it in; null when the kernel computes it.
    static Rule<?> unfusable(Read read) {
        var own = ownKernel(read.node());
        if (own != null) return own;
        return MERGED_IOTA.test(read) ? MERGED_IOTA : null;
    }

    /// Whether a kernel reading `node` by flat position alone can still compute it: its value at a
    /// position does not depend on which axes the position is on.
    private static boolean elementwise(Node node) {
        return switch (node) {
            case Node.Constant _, Node.Unary _, Node.Binary _, Node.Where _, Node.Cast _, Node.Reshape _, Node.Random _ -> true;
            case Node.Input _, Node.Iota _, Node.Permute _, Node.Expand _, Node.Slice _, Node.Reduce _, Node.MatMul _, Node.Concat _, Node.IndexCheck _, Node.Attention _ -> false;
            case Node.Gather _, Node.Scatter _, Node.SliceUpdate _, Node.ArgSort _ -> false;
        };
    }
}
