// SPDX-License-Identifier: Apache-2.0
package dev.smelt.ir;

import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/// Writes a graph as text, one SSA line per node, in the spirit of a jaxpr:
/// ```
/// graph(%0: f32[2,3], %1: f32[3]) {
///   %2 = reshape %1 : f32[1,3]
///   %3 = expand %2 : f32[2,3]
///   %4 = add %0 %3 : f32[2,3]
///   %5 = sum %4 axes=[1] : f32[2,1]
///   return %4, %5
/// }
/// ```
/// Inputs are numbered by slot, the other nodes in [Graph#nodes] order, so equal graphs print
/// equal text. [Parser] reads it back.
public final class Printer {
    private Printer() {}

    public static String print(Graph graph) {
        Map<Node, Integer> ids = new IdentityHashMap<>();
        var text = new StringBuilder("graph(");
        text.append(graph.inputs().stream().map(in -> "%" + in.slot() + ": " + type(in)).collect(Collectors.joining(", ")));
        text.append(") {\n");
        for (Node node : graph.nodes()) {
            ids.put(node, ids.size());
            if (!(node instanceof Node.Input))
                text.append("  %").append(ids.get(node)).append(" = ").append(body(node, ids)).append(" : ").append(type(node)).append('\n');
        }
        text.append("  return ").append(graph.outputs().stream().map(n -> "%" + ids.get(n)).collect(Collectors.joining(", ")));
        return text.append("\n}\n").toString();
    }

    /// The operator's name as the text form spells it: `add`, `matmul`, `reshape`, …
    public static String opName(Node node) {
        return switch (node) {
            case Node.Input _ -> "input";
            case Node.Constant _ -> "const";
            case Node.Iota _ -> "iota";
            case Node.Unary u -> u.op().toString();
            case Node.Binary b -> b.op().toString();
            case Node.Where _ -> "where";
            case Node.Cast _ -> "cast";
            case Node.IndexCheck _ -> "checkindex";
            case Node.Reduce r -> r.op().toString();
            case Node.MatMul _ -> "matmul";
            case Node.Reshape _ -> "reshape";
            case Node.Permute _ -> "permute";
            case Node.Expand _ -> "expand";
            case Node.Slice _ -> "slice";
            case Node.Concat _ -> "concat";
            case Node.Random r -> r.distribution().toString();
            case Node.Gather _ -> "gather";
            case Node.Scatter _ -> "scatter";
            case Node.SliceUpdate _ -> "sliceupdate";
            case Node.ArgSort _ -> "argsort";
            case Node.Attention _ -> "attention";
        };
    }

    /// `f32[2,3]`
    public static String type(Node node) { return node.dtype() + node.shape().toString(); }

    private static String body(Node node, Map<Node, Integer> ids) {
        return switch (node) {
            case Node.Input in -> "input " + in.slot();
            case Node.Constant c -> "const " + c.value();
            case Node.Iota iota -> "iota axis=" + iota.axis();
            case Node.Unary u -> u.op() + " " + ref(u.x(), ids);
            case Node.Binary b -> b.op() + " " + refs(b.inputs(), ids);
            case Node.Where w -> "where " + refs(w.inputs(), ids);
            case Node.Cast c -> "cast " + ref(c.x(), ids);
            case Node.IndexCheck c -> "checkindex " + ref(c.x(), ids) + " " + c.bounds();
            case Node.Reduce r -> r.op() + " " + ref(r.x(), ids) + " axes=" + list(r.axes());
            case Node.MatMul m -> "matmul " + refs(m.inputs(), ids) + (m.transposeA() ? " transpose_a" : "") + (m.transposeB() ? " transpose_b" : "");
            case Node.Reshape r -> "reshape " + ref(r.x(), ids);
            case Node.Permute p -> "permute " + ref(p.x(), ids) + " order=" + list(p.order());
            case Node.Expand e -> "expand " + ref(e.x(), ids);
            case Node.Slice s -> "slice " + ref(s.x(), ids) + " axis=" + s.axis() + " start=" + s.start() + " stop=" + s.stop() + " step=" + s.step();
            case Node.Concat c -> "concat " + refs(c.parts(), ids) + " axis=" + c.axis();
            case Node.Random r -> r.distribution() + " " + ref(r.key(), ids);
            case Node.Gather g -> "gather " + refs(g.inputs(), ids) + " axis=" + g.axis();
            case Node.Scatter s -> "scatter " + refs(s.inputs(), ids) + " axis=" + s.axis() + (s.add() ? " add" : "");
            case Node.SliceUpdate u -> "sliceupdate " + refs(u.inputs(), ids) + " axis=" + u.axis();
            case Node.ArgSort s -> "argsort " + ref(s.x(), ids) + " axis=" + s.axis() + (s.descending() ? " descending" : "");
            case Node.Attention a -> "attention " + refs(a.operands(), ids) + " part=" + a.part() + " scale=" + a.scale() + (a.causal() ? " causal" : "");
        };
    }

    private static String ref(Node node, Map<Node, Integer> ids) { return "%" + ids.get(node); }

    private static String refs(List<Node> nodes, Map<Node, Integer> ids) {
        return nodes.stream().map(n -> ref(n, ids)).collect(Collectors.joining(" "));
    }

    private static String list(List<Integer> values) {
        return values.stream().map(String::valueOf).collect(Collectors.joining(",", "[", "]"));
    }
}
