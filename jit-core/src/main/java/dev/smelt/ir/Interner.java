// SPDX-License-Identifier: Apache-2.0
package dev.smelt.ir;

import java.util.HashMap;
import java.util.Map;

/// Hash-consing of nodes: a node equal to one seen before (the same operator and attributes over
/// identical operands, see [Node]) is replaced by that instance, so equal subgraphs are one object
/// and shallow equality stays structural equality. The tracer records through one, the pass
/// rewriter rebuilds through one, and autograd's node builder adds backward nodes through one
/// that knows the forward graph. Not thread-safe.
public final class Interner {
    private final Map<Node, Node> nodes = new HashMap<>();

    /// An interner that knows no node yet.
    public Interner() {}

    /// An interner that knows `graph`'s nodes, so equal new nodes become them.
    public Interner(Graph graph) {
        for (Node node : graph.nodes()) nodes.putIfAbsent(node, node);
    }

    /// `node`, or the equal node interned before it.
    public Node intern(Node node) {
        Node known = nodes.putIfAbsent(node, node);
        return known != null ? known : node;
    }
}
