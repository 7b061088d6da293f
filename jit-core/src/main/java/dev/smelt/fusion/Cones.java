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

    /// The reductions and matmuls a root would fold in, nearest first.
    static List<Node> reductions(Node root, Set<Node> realized) {
        var found = new ArrayList<Node>();
        walk(root, realized, node -> {
            if (node instanceof Node.Reduce r && !r.axes().isEmpty() || node instanceof Node.MatMul) found.add(node);
        }, node -> { });
        return found;
    }

    /// The buffers a root reads: realized nodes and inputs at the edge of its cone.
    static List<Node> buffers(Node root, Set<Node> realized) {
        var found = new ArrayList<Node>();
        walk(root, realized, node -> { }, found::add);
        return found;
    }

    // Breadth-first from the root's operands; `inside` sees inlined nodes, `edge` each buffer once.
    private static void walk(Node root, Set<Node> realized, java.util.function.Consumer<Node> inside, java.util.function.Consumer<Node> edge) {
        Set<Node> seen = Collections.newSetFromMap(new IdentityHashMap<>());
        var queue = new ArrayDeque<>(root.inputs());
        while (!queue.isEmpty()) {
            Node node = queue.poll();
            if (!seen.add(node)) continue;
            if (realized.contains(node) || node instanceof Node.Input) {
                edge.accept(node);
                continue;
            }
            inside.accept(node);
            queue.addAll(node.inputs());
        }
    }
}
