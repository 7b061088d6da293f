// SPDX-License-Identifier: Apache-2.0
package dev.smelt.autograd;

import dev.smelt.ir.AttentionMath;
import dev.smelt.ir.AttentionPart;
import dev.smelt.ir.Node;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/// The vjp of fused attention `O = softmax(s)·v`, `s = q·kᵀ·scale + mask`. With `dS = P ∘ (g·vᵀ -
/// rowsum(g ∘ O))`: `dq = scale·dS·k`, `dk = scale·dSᵀ·q`, `dv = Pᵀ·g` (summed over the q heads that
/// share a kv head), as three [AttentionPart] nodes over `O`, its logsumexp and `g`, which one
/// fused kernel computes from the saved logsumexp without the scores (FlashAttention-2). The
/// logsumexp is a sibling of `O` over the same operands, so the forward kernel writes it too.
///
/// An added mask's gradient is `dS` summed over its broadcast axes, and every other part's
/// (a second derivative) is that of its meaning in the other ops: both differentiate
/// [AttentionMath#expand], unfused, and are dead code unless something reads them.
final class AttentionVjp {
    private AttentionVjp() {}

    static List<Node> of(Node.Attention a, Node g, Nodes b) {
        if (a.part() != AttentionPart.OUTPUT) return expanded(a, g, b);
        var operands = new ArrayList<>(a.operands().subList(0, 3));
        operands.add(a);
        operands.add(b.intern(new Node.Attention(AttentionPart.LOGSUMEXP, a.operands(), a.causal(), a.scale())));
        operands.add(g);
        Node mask = AttentionMath.mask(a);
        if (mask != null) operands.add(mask);
        var grads = new ArrayList<Node>();
        for (var part : List.of(AttentionPart.GRAD_Q, AttentionPart.GRAD_K, AttentionPart.GRAD_V))
            grads.add(b.intern(new Node.Attention(part, operands, a.causal(), a.scale())));
        if (mask != null) grads.add(mask.dtype().isFloating() ? expanded(a, g, b).get(3) : null);
        return grads;
    }

    // The gradients of `a`'s operands through AttentionMath.expand(a): a reverse walk from it that
    // stops at the operands, as Backward walks a whole graph.
    private static List<Node> expanded(Node.Attention a, Node g, Nodes b) {
        Node plain = AttentionMath.expand(a);
        Set<Node> operands = Collections.newSetFromMap(new IdentityHashMap<>());
        operands.addAll(a.operands());
        Map<Node, Node> grads = new IdentityHashMap<>();
        grads.put(plain, g);
        for (Node y : between(plain, operands).reversed()) {
            Node gy = grads.get(y);
            if (gy == null) continue;
            List<Node> operandGrads = Vjp.of(y, gy, b);
            for (int i = 0; i < operandGrads.size(); i++)
                if (operandGrads.get(i) != null && y.inputs().get(i).dtype().isFloating()) grads.merge(y.inputs().get(i), operandGrads.get(i), b::add);
        }
        return Arrays.asList(a.operands().stream().map(grads::get).toArray(Node[]::new));
    }

    // The nodes from `root` down to (not into) `stops`, operands before users.
    private static List<Node> between(Node root, Set<Node> stops) {
        var order = new ArrayList<Node>();
        Set<Node> seen = Collections.newSetFromMap(new IdentityHashMap<>());
        visit(root, stops, seen, order);
        return order;
    }

    private static void visit(Node node, Set<Node> stops, Set<Node> seen, List<Node> order) {
        if (stops.contains(node) || !seen.add(node)) return;
        for (Node operand : node.inputs()) visit(operand, stops, seen, order);
        order.add(node);
    }
}
