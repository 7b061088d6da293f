// SPDX-License-Identifier: Apache-2.0
package dev.smelt.pass;

import dev.smelt.ir.Node;
import java.util.List;

/// A node rebuilt over new operands, keeping its operator and attributes. The constructors check
/// the typing rule again, so a pass that swaps in an operand of another type fails at once.
final class Operands {
    private Operands() {}

    /// `node` with `inputs` in place of its operands; `node` itself when they are the same nodes.
    static Node replace(Node node, List<Node> inputs) {
        if (identical(node.inputs(), inputs)) return node;
        return switch (node) {
            case Node.Input _, Node.Constant _, Node.Iota _ -> node;
            case Node.Unary u -> new Node.Unary(u.op(), inputs.getFirst());
            case Node.Binary b -> new Node.Binary(b.op(), inputs.get(0), inputs.get(1));
            case Node.Where _ -> new Node.Where(inputs.get(0), inputs.get(1), inputs.get(2));
            case Node.Cast c -> new Node.Cast(inputs.getFirst(), c.dtype());
            case Node.IndexCheck c -> new Node.IndexCheck(inputs.getFirst(), c.bounds());
            case Node.Reduce r -> new Node.Reduce(r.op(), inputs.getFirst(), r.axes());
            case Node.MatMul m -> new Node.MatMul(inputs.get(0), inputs.get(1), m.transposeA(), m.transposeB());
            case Node.Reshape r -> new Node.Reshape(inputs.getFirst(), r.shape());
            case Node.Permute p -> new Node.Permute(inputs.getFirst(), p.order());
            case Node.Expand e -> new Node.Expand(inputs.getFirst(), e.shape());
            case Node.Slice s -> new Node.Slice(inputs.getFirst(), s.axis(), s.start(), s.stop(), s.step());
            case Node.Concat c -> new Node.Concat(inputs, c.axis());
            case Node.Random r -> new Node.Random(r.distribution(), inputs.getFirst(), r.shape(), r.dtype());
        };
    }

    static boolean identical(List<Node> a, List<Node> b) {
        if (a.size() != b.size()) return false;
        for (int i = 0; i < a.size(); i++)
            if (a.get(i) != b.get(i)) return false;
        return true;
    }
}
