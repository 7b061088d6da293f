// SPDX-License-Identifier: Apache-2.0
package dev.smelt.fusion;

import dev.smelt.ir.FusionMode;
import dev.smelt.ir.Graph;
import dev.smelt.ir.Node;
import dev.smelt.kernel.Decision;
import java.util.List;
import java.util.Map;
import java.util.Set;

/// Which nodes start with a buffer of their own, as [FusionRules] says: graph outputs, nodes with a
/// kernel of their own, and the operands those and matmuls read from buffers. (A reduction read
/// by several nodes needs no rule: lowering folds it into the one kernel that reads it, and
/// realizes it when a second kernel would fold it too.)
final class Realization {
    private Realization() {}

    static void initial(Graph graph, FusionMode mode, Set<Node> realized, List<Decision> decisions, Map<Node, Decision.Subject.GraphNode> labels) {
        for (Node output : graph.outputs())
            if (!(output instanceof Node.Input)) realized.add(output);
        if (mode == FusionMode.NONE)
            for (Node node : graph.nodes())
                if (isOperation(node)) realized.add(node);
        for (Node node : graph.nodes()) {
            if (FusionRules.ownKernel(node) != null) realized.add(node);
            if (FusionRules.UPDATE_OPERAND.test(node))
                for (Node operand : node.inputs())
                    if (!(operand instanceof Node.Input)) decide(operand, FusionRules.UPDATE_OPERAND.reason(), realized, decisions, labels);
            if (FusionRules.MATMUL_OPERAND.test(node) && node instanceof Node.MatMul m) {
                realizeOperand(m.a(), realized, decisions, labels);
                realizeOperand(m.b(), realized, decisions, labels);
            }
            if (FusionRules.ATTENTION_OPERAND.test(node) && node instanceof Node.Attention a)
                for (int i = 0; i < a.operands().size(); i++) realizeAttentionOperand(a, i, realized, decisions, labels);
        }
    }

    // A matmul reads each operand element N (or M) times: fusing a computed operand would redo it
    // that often, so only views of buffers are read in place.
    private static void realizeOperand(Node operand, Set<Node> realized, List<Decision> decisions, Map<Node, Decision.Subject.GraphNode> labels) {
        Node node = operand;
        while (node instanceof Node.Reshape || node instanceof Node.Permute || node instanceof Node.Expand || node instanceof Node.Slice)
            node = node.inputs().getFirst();
        if (!(node instanceof Node.Input)) decide(node, FusionRules.MATMUL_OPERAND.reason(), realized, decisions, labels);
    }

    // The attention kernel reads its operands dense, row-major, block by block: a buffer, or a
    // reshape of one; anything else is computed into a buffer first (O(T·d), not O(T·S)). A
    // forward's k and v may also be views of a buffer (a KV cache's first rows), read in place.
    private static void realizeAttentionOperand(Node.Attention attention, int index, Set<Node> realized, List<Decision> decisions, Map<Node, Decision.Subject.GraphNode> labels) {
        var view = AttentionLaunch.view(attention, index);
        if (view != null && (view.buffer() instanceof Node.Input || realized.contains(view.buffer()))) return;
        Node node = AttentionLaunch.buffer(attention.operands().get(index));
        if (!(node instanceof Node.Input)) decide(node, FusionRules.ATTENTION_OPERAND.reason(), realized, decisions, labels);
    }

    /// What eager mode runs as a kernel of its own: everything but inputs, constants and views.
    static boolean isOperation(Node node) {
        return switch (node) {
            case Node.Unary _, Node.Binary _, Node.Where _, Node.Cast _, Node.Reduce _, Node.MatMul _, Node.Concat _, Node.Iota _, Node.Random _, Node.Attention _ -> true;
            case Node.Gather _, Node.Scatter _, Node.SliceUpdate _, Node.ArgSort _ -> true;
            case Node.Input _, Node.Constant _, Node.Reshape _, Node.Permute _, Node.Expand _, Node.Slice _, Node.IndexCheck _ -> false;
        };
    }

    static void decide(Node node, String reason, Set<Node> realized, List<Decision> decisions, Map<Node, Decision.Subject.GraphNode> labels) {
        if (realized.add(node)) decisions.add(Decision.rule(labels.get(node), Decision.Choice.MATERIALISE, reason));
    }
}
