// SPDX-License-Identifier: Apache-2.0
package dev.smelt.ir;

import java.util.Collections;
import java.util.Map;
import java.util.WeakHashMap;
import java.util.function.Supplier;

/// The shape and dtype of each node that derives them from its operands, computed once per node.
///
/// A record cannot keep a field beside its components, so without this table `shape()` would
/// re-derive from the operands on every call: as deep on the stack as the chain below the node,
/// quadratic over a chain's construction, and exponential where a node reads an operand twice
/// (`matmul(x, x)` or `concat(x, x)`, repeated). Constructors ask for their operands' types, so
/// each lookup recurses at most one level. Keys are weak and compared by [Node]'s shallow
/// equality, under which equal nodes have equal types.
final class TypeCache {
    private static final Map<Node, Shape> SHAPES = Collections.synchronizedMap(new WeakHashMap<>());
    private static final Map<Node, DType> DTYPES = Collections.synchronizedMap(new WeakHashMap<>());

    private TypeCache() {}

    static Shape shape(Node node, Supplier<Shape> infer) { return lookup(SHAPES, node, infer); }

    static DType dtype(Node node, Supplier<DType> infer) { return lookup(DTYPES, node, infer); }

    /// Infers outside the lock, so that inference may look up operands; a race infers twice, equally.
    private static <T> T lookup(Map<Node, T> table, Node node, Supplier<T> infer) {
        T known = table.get(node);
        if (known != null) return known;
        T inferred = infer.get();
        table.put(node, inferred);
        return inferred;
    }
}
