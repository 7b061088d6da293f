// SPDX-License-Identifier: Apache-2.0
package dev.smelt.fusion;

import dev.smelt.ir.Node;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;

/// What a kernel root computes inline: the nodes reachable from it without passing a buffer.
final class Cones {
    private Cones() {}

    /// What a root computes inline, from one walk: the reductions and matmuls it would fold in
    /// (nearest first), its operations (what it adds to a kernel's size, itself included), the
    /// buffers it reads (realized nodes and inputs at the edge of its cone), and every node the
    /// walk reached (those inside and those buffers).
    record Cone(List<Node> reductions, int operations, List<Node> buffers, Set<Node> reached) {
        /// Whether the cone is still this one once `more` nodes are realized too: none of them is
        /// inside it (a node realized already is at its edge, or beyond it).
        boolean survives(List<Node> more) {
            for (Node node : more) if (reached.contains(node)) return false;
            return true;
        }
    }

    static Cone of(Node root, Set<Node> realized) {
        var reductions = new ArrayList<Node>();
        var buffers = new ArrayList<Node>();
        int[] operations = {Realization.isOperation(root) ? 1 : 0};
        var reached = walk(root, realized, node -> {
            if (node instanceof Node.Reduce r && !r.axes().isEmpty() || node instanceof Node.MatMul) reductions.add(node);
            if (Realization.isOperation(node)) operations[0]++;
        }, buffers::add);
        return new Cone(reductions, operations[0], buffers, reached);
    }

    /// The nodes `root` computes inline (not itself, not the buffers it reads).
    static Set<Node> inside(Node root, Set<Node> realized) {
        Set<Node> nodes = Collections.newSetFromMap(new IdentityHashMap<>());
        walk(root, realized, nodes::add, _ -> {});
        return nodes;
    }

    // Breadth-first from the root's operands; `inside` sees inlined nodes, `edge` each buffer once.
    // Returns every node reached.
    private static Set<Node> walk(Node root, Set<Node> realized, java.util.function.Consumer<Node> inside, java.util.function.Consumer<Node> edge) {
        Set<Node> seen = Collections.newSetFromMap(new IdentityHashMap<>());
        var queue = new ArrayDeque<Node>(); // not ArrayDeque(Collection): its forEach lambda is linked on first use
        for (Node operand : root.inputs()) queue.add(operand);
        while (!queue.isEmpty()) {
            Node node = queue.poll();
            if (!seen.add(node)) continue;
            if (realized.contains(node) || node instanceof Node.Input) {
                edge.accept(node);
                continue;
            }
            inside.accept(node);
            for (Node operand : node.inputs()) queue.add(operand);
        }
        return seen;
    }

    /// The buffers `root` reads at its own point only: through elementwise operations alone, with
    /// its shape. A kernel that writes such a buffer can compute it for `root` in the same loop.
    static Set<Node> pointwiseBuffers(Node root, Set<Node> realized) {
        Set<Node> found = Collections.newSetFromMap(new IdentityHashMap<>());
        Set<Node> other = Collections.newSetFromMap(new IdentityHashMap<>());
        // Each node is explored at most twice: once on an aligned path (every node on the way from
        // the root elementwise, so it is read at the root's point) and once on any other.
        Set<Node> aligned = Collections.newSetFromMap(new IdentityHashMap<>());
        Set<Node> unaligned = Collections.newSetFromMap(new IdentityHashMap<>());
        var pending = new ArrayDeque<Node>();
        var pendingAligned = new ArrayDeque<Boolean>();
        pending.push(root);
        pendingAligned.push(true);
        while (!pending.isEmpty()) {
            Node node = pending.pop();
            boolean here = pendingAligned.pop();
            for (Node operand : node.inputs()) {
                boolean next = here && elementwise(node) && operand.shape().equals(root.shape());
                if (realized.contains(operand) || operand instanceof Node.Input) (next ? found : other).add(operand);
                else if ((next ? aligned : unaligned).add(operand)) {
                    pending.push(operand);
                    pendingAligned.push(next);
                }
            }
        }
        found.removeAll(other);
        return found;
    }

    private static boolean elementwise(Node node) {
        return node instanceof Node.Unary || node instanceof Node.Binary || node instanceof Node.Where || node instanceof Node.Cast;
    }
}
