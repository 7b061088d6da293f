// SPDX-License-Identifier: Apache-2.0
package dev.smelt.fusion;

import dev.smelt.ir.Node;
import dev.smelt.kernel.Decision;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;

/// Groups kernel roots, in order, into kernels: a root joins an earlier kernel of the same loop
/// nest (multi-output fusion of siblings) when every buffer it reads is written before that
/// kernel runs, or by that kernel at the root's own point (then computed there, not read back);
/// otherwise it starts a kernel of its own. Each concat part is its own kernel, and so is each
/// update and sort, and attention with its siblings ([FusionRules#ownKernel]).
///
/// Sibling reductions join only when they become ready after the same kernel
/// ([FusionRules#APART_SIBLING]): the bias gradients of every layer have one loop nest, and joined,
/// their kernel could run only after the last layer's backward, reading each layer's gradient
/// back from memory; apart, `SinkOrder` runs each right after the kernel that writes its input.
final class Groups {
    private Groups() {}

    /// `multiOutput` false puts each root in a kernel of its own (no fusion at all); a kernel takes
    /// no more roots once their operations would exceed `budget`. A root is offered only the
    /// kernels of its loop nest that run no earlier than the last kernel writing a buffer it reads,
    /// so grouping stays near linear in the roots however many kernels there are.
    /// A root kept out of a kernel it could otherwise join, by a fixed rule, goes to `decisions`.
    static List<ScheduleBuilder.Group> of(List<Node> roots, Set<Node> realized, Function<Node, Cones.Cone> coneOf, Function<Node, Signature> signatureOf, boolean multiOutput, int budget,
                                          List<Decision> decisions, Map<Node, Decision.Subject.GraphNode> labels) {
        var groups = new ArrayList<ScheduleBuilder.Group>();
        var sizes = new ArrayList<Integer>();
        var matmuls = new ArrayList<Node>();
        Map<Integer, Integer> readies = new HashMap<>(); // per loop group: the last kernel its roots' inputs wait for
        Map<Loop, List<Integer>> byLoop = new HashMap<>();
        Map<Node, Integer> groupOf = new IdentityHashMap<>();
        for (Node root : roots) {
            if (FusionRules.CONCAT.test(root) && root instanceof Node.Concat concat) {
                for (int part = 0; part < concat.parts().size(); part++) {
                    groups.add(new ScheduleBuilder.Group(Signature.pointwise(concat.parts().get(part).shape()), List.of(concat.parts().get(part)), concat, part));
                    sizes.add(0);
                    matmuls.add(null); // concat parts take no siblings: they are in no loop's list
                }
                groupOf.put(root, groups.size() - 1);
                continue;
            }
            if (FusionRules.UPDATE.test(root) || FusionRules.SORT.test(root)) {
                groups.add(new ScheduleBuilder.Group(Signature.pointwise(root.shape()), List.of(root), null, 0));
                sizes.add(0);
                matmuls.add(null); // an update or a sort takes no siblings: it is in no loop's list
                groupOf.put(root, groups.size() - 1);
                continue;
            }
            if (FusionRules.ATTENTION.test(root) && root instanceof Node.Attention attention) {
                groupOf.put(root, attentionGroup(groups, sizes, matmuls, attention));
                continue;
            }
            Signature signature = signatureOf.apply(root);
            var loop = Loop.of(signature);
            var cone = coneOf.apply(root);
            var buffers = cone.buffers();
            int size = cone.operations();
            Node matmul = matmulOf(root, cone);
            int last = lastWriter(buffers, groupOf);
            int joined = -1;
            FusionRules.Rule<Boolean> kept = null;
            for (int g : multiOutput ? from(byLoop.getOrDefault(loop, List.of()), last) : List.<Integer>of())
                if (sizes.get(g) + size <= budget && (g > last || readsAtItsPoint(g, root, realized, buffers, groupOf))) {
                    if (FusionRules.OTHER_PRODUCT.test(matmuls.get(g) != matmul)) {
                        kept = FusionRules.OTHER_PRODUCT;
                        continue;
                    }
                    if (matmul == null && signature.isRow() && FusionRules.APART_SIBLING.test(g > last && readies.get(g) != last)) {
                        kept = FusionRules.APART_SIBLING;
                        continue;
                    }
                    joined = g;
                    break;
                }
            if (joined < 0) {
                if (kept != null) decisions.add(Decision.rule(labels.get(root), Decision.Choice.OWN_KERNEL, kept.reason()));
                groups.add(new ScheduleBuilder.Group(signature, new ArrayList<>(List.of(root)), null, 0));
                sizes.add(size);
                matmuls.add(matmul);
                readies.put(groups.size() - 1, last);
                joined = groups.size() - 1;
                if (!byLoop.containsKey(loop)) byLoop.put(loop, new ArrayList<>());
                byLoop.get(loop).add(joined);
            } else {
                groups.get(joined).roots().add(root);
                sizes.set(joined, sizes.get(joined) + size);
                readies.put(joined, Math.max(readies.get(joined), joined > last ? last : lastWriterBefore(buffers, groupOf, joined)));
            }
            groupOf.put(root, joined);
        }
        return groups;
    }

    /// The group of an attention sibling over the same operands (the output and its logsumexp, the
    /// three gradients), joined; else a new one. Siblings read the same buffers, so joining the
    /// earlier one reads nothing that is not yet written.
    private static int attentionGroup(List<ScheduleBuilder.Group> groups, List<Integer> sizes, List<Node> matmuls, Node.Attention attention) {
        for (int g = 0; g < groups.size(); g++)
            if (groups.get(g).concat() == null && groups.get(g).roots().getFirst() instanceof Node.Attention other && AttentionFusion.siblings(other, attention)) {
                groups.get(g).roots().add(attention);
                return g;
            }
        groups.add(new ScheduleBuilder.Group(Signature.pointwise(attention.shape()), new ArrayList<>(List.of(attention)), null, 0));
        sizes.add(0);
        matmuls.add(null); // attention takes no loop siblings: it is in no loop's list
        return groups.size() - 1;
    }

    /// The loop nest of a kernel: roots join only kernels of an equal one.
    record Loop(dev.smelt.ir.Shape space, int reducedRank, dev.smelt.ir.Shape operand, List<Integer> kernelAxisOf) {
        static Loop of(Signature s) {
            var axes = new ArrayList<Integer>(s.kernelAxisOf().length); // a loop, not a stream: planning runs on a fresh JVM's first call, interpreted
            for (int axis : s.kernelAxisOf()) axes.add(axis);
            return new Loop(s.space(), s.reducedRank(), s.operand(), axes);
        }
        // written out: a record's own are bootstrapped on first use, which a fresh JVM's first compile pays for
        public boolean equals(Object o) {
            return o instanceof Loop l && reducedRank == l.reducedRank && space.equals(l.space) && java.util.Objects.equals(operand, l.operand) && kernelAxisOf.equals(l.kernelAxisOf);
        }
        public int hashCode() { return ((31 * space.hashCode() + reducedRank) * 31 + java.util.Objects.hashCode(operand)) * 31 + kernelAxisOf.hashCode(); }
    }

    /// The kernels of `ascending` from `first` on.
    private static List<Integer> from(List<Integer> ascending, int first) {
        int at = java.util.Collections.binarySearch(ascending, first);
        return ascending.subList(at >= 0 ? at : -at - 1, ascending.size());
    }

    /// The last kernel that writes one of `buffers`, or -1 when inputs and nothing else are read.
    private static int lastWriter(List<Node> buffers, Map<Node, Integer> groupOf) { return lastWriterBefore(buffers, groupOf, Integer.MAX_VALUE); }

    /// The last kernel before `g` that writes one of `buffers`, or -1.
    private static int lastWriterBefore(List<Node> buffers, Map<Node, Integer> groupOf, int g) {
        int last = -1;
        for (Node buffer : buffers) {
            int writer = groupOf.getOrDefault(buffer, -1);
            if (writer < g) last = Math.max(last, writer);
        }
        return last;
    }

    /// Whether each buffer that kernel `g` writes is read at the root's own point, so that kernel
    /// `g` computes that value for the root in the same loop instead of reading it back. (Asked
    /// only of the last kernel the root reads from, at most once per root.)
    private static boolean readsAtItsPoint(int g, Node root, Set<Node> realized, List<Node> buffers, Map<Node, Integer> groupOf) {
        Set<Node> pointwise = Cones.pointwiseBuffers(root, realized);
        for (Node buffer : buffers)
            if (groupOf.getOrDefault(buffer, -1) == g && !pointwise.contains(buffer)) return false;
        return true;
    }

    /// The matmul a root computes or folds in, if any: two matmuls of equal shapes have the same
    /// loop, but a matmul kernel computes one product.
    private static Node matmulOf(Node root, Cones.Cone cone) {
        if (root instanceof Node.MatMul) return root;
        for (Node reduction : cone.reductions()) if (reduction instanceof Node.MatMul) return reduction;
        return null;
    }
}
