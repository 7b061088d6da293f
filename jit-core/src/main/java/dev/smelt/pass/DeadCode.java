// SPDX-License-Identifier: Apache-2.0
package dev.smelt.pass;

import dev.smelt.ir.Graph;
import dev.smelt.ir.Node;
import dev.smelt.ir.Node.Concat;
import dev.smelt.ir.Node.Constant;
import dev.smelt.ir.Node.Input;

/// Removes computation that no output element depends on.
///
/// A [Graph] holds only what its outputs reach ([Graph#nodes] walks from them, and [Parser]
/// drops statements nothing returns), so a node left unused by the tracer, by text or by an earlier
/// rewrite vanishes as soon as a pass builds its result. What remains to remove is work whose
/// result has no elements: a node of an empty shape becomes the empty constant 0 (its operands, which
/// may be large, are then dead, and all empty values of one type are one node), and a concat forgets its parts of zero extent. Reductions and
/// matmuls over an empty axis are [ConstantFolding]'s: their value is the operation's identity.
///
/// [Parser]: dev.smelt.ir.Parser
public final class DeadCode {
    private DeadCode() {}

    public static Graph apply(Graph graph) { return Rewriter.toFixpoint(graph, DeadCode::rewrite); }

    /// `n` without work that produces no elements, or `n` itself.
    static Node rewrite(Node n) {
        if (n.shape().size() == 0 && !(n instanceof Input) && !ConstantFolding.isConstant(n, 0))
            return new Constant(0, n.shape(), n.dtype());                                   // no elements: nothing to compute
        if (n instanceof Concat c && c.parts().stream().anyMatch(p -> p.shape().dim(c.axis()) == 0)) {
            var parts = c.parts().stream().filter(p -> p.shape().dim(c.axis()) > 0).toList();
            return parts.size() == 1 ? parts.getFirst() : new Concat(parts, c.axis());        // concat(x, empty) -> x
        }
        return n;
    }
}
