// SPDX-License-Identifier: Apache-2.0
package dev.smelt.fusion;

import dev.smelt.ir.Node;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;

/// Groups kernel roots, in order, into kernels: a root joins an earlier kernel of the same loop
/// nest (multi-output fusion of siblings) when every buffer it reads is written before that
/// kernel runs, or by that kernel at the root's own point (then computed there, not read back);
/// otherwise it starts a kernel of its own. Each concat part is its own kernel.
final class Groups {
    private Groups() {}

    /// `multiOutput` false puts each root in a kernel of its own (no fusion at all); a kernel takes
    /// no more roots once their operations would exceed `budget`.
    static List<ScheduleBuilder.Group> of(List<Node> roots, Set<Node> realized, Function<Node, Signature> signatureOf, boolean multiOutput, int budget) {
        var groups = new ArrayList<ScheduleBuilder.Group>();
        var sizes = new ArrayList<Integer>();
        Map<Node, Integer> groupOf = new IdentityHashMap<>();
        for (Node root : roots) {
            if (root instanceof Node.Concat concat) {
                for (int part = 0; part < concat.parts().size(); part++)
                    groups.add(new ScheduleBuilder.Group(Signature.pointwise(concat.parts().get(part).shape()), List.of(concat.parts().get(part)), concat, part));
                groupOf.put(root, groups.size() - 1);
                while (sizes.size() < groups.size()) sizes.add(0); // concat parts take no siblings (see below)
                continue;
            }
            Signature signature = signatureOf.apply(root);
            var pointwise = Cones.pointwiseBuffers(root, realized);
            int size = Cones.operations(root, realized);
            int joined = -1;
            for (int g = 0; multiOutput && g < groups.size() && joined < 0; g++)
                if (groups.get(g).concat() == null && sameLoop(groups.get(g).signature(), signature) && sizes.get(g) + size <= budget
                        && matmulOf(groups.get(g).roots().getFirst(), realized) == matmulOf(root, realized)
                        && readyFor(g, root, realized, groupOf, pointwise)) joined = g;
            if (joined < 0) {
                groups.add(new ScheduleBuilder.Group(signature, new ArrayList<>(List.of(root)), null, 0));
                sizes.add(size);
                joined = groups.size() - 1;
            } else {
                groups.get(joined).roots().add(root);
                sizes.set(joined, sizes.get(joined) + size);
            }
            groupOf.put(root, joined);
        }
        return groups;
    }

    /// Whether `root` can run in kernel `g`: each buffer it reads is written by an earlier kernel,
    /// or by kernel `g` itself and read at `root`'s own point, so that kernel `g` computes that
    /// value for `root` in the same loop instead of reading it back.
    private static boolean readyFor(int g, Node root, Set<Node> realized, Map<Node, Integer> groupOf, Set<Node> pointwise) {
        for (Node buffer : Cones.buffers(root, realized)) {
            int writer = groupOf.getOrDefault(buffer, -1);
            if (writer > g || writer == g && !pointwise.contains(buffer)) return false;
        }
        return true;
    }

    /// The matmul a root computes or folds in, if any: two matmuls of equal shapes have the same
    /// loop, but a matmul kernel computes one product.
    private static Node matmulOf(Node root, Set<Node> realized) {
        if (root instanceof Node.MatMul) return root;
        return Cones.reductions(root, realized).stream().filter(n -> n instanceof Node.MatMul).findFirst().orElse(null);
    }

    private static boolean sameLoop(Signature a, Signature b) {
        return a.space().equals(b.space()) && a.reducedRank() == b.reducedRank() && a.operand().equals(b.operand())
                && Arrays.equals(a.kernelAxisOf(), b.kernelAxisOf());
    }
}
