// SPDX-License-Identifier: Apache-2.0
package dev.smelt.autograd;

import dev.smelt.ir.Node;
import dev.smelt.ir.Node.*;
import java.util.List;

/// A node of the same kind and attributes over other operands: how the partition moves nodes
/// into the backward graph, where some operands have become inputs.
public final class Rebuild {
    private Rebuild() {}

    /// `node`'s kind and attributes over `operands`, in its operands' order; leaves are themselves.
    public static Node with(Node node, List<Node> operands) {
        return switch (node) {
            case Input _, Constant _, Iota _ -> node;
            case Unary u -> new Unary(u.op(), operands.get(0));
            case Binary x -> new Binary(x.op(), operands.get(0), operands.get(1));
            case Where _ -> new Where(operands.get(0), operands.get(1), operands.get(2));
            case Cast c -> new Cast(operands.get(0), c.dtype());
            case IndexCheck c -> new IndexCheck(operands.get(0), c.bounds());
            case Reduce r -> new Reduce(r.op(), operands.get(0), r.axes());
            case MatMul m -> new MatMul(operands.get(0), operands.get(1), m.transposeA(), m.transposeB());
            case Reshape r -> new Reshape(operands.get(0), r.shape());
            case Permute p -> new Permute(operands.get(0), p.order());
            case Expand e -> new Expand(operands.get(0), e.shape());
            case Slice s -> new Slice(operands.get(0), s.axis(), s.start(), s.stop(), s.step());
            case Concat c -> new Concat(operands, c.axis());
            case Random r -> new Random(r.distribution(), operands.get(0), r.shape(), r.dtype());
        };
    }
}
