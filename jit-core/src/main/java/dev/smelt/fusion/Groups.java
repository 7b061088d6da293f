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
/// kernel runs; otherwise it starts a kernel of its own. Each concat part is its own kernel.
final class Groups {
    private Groups() {}

    static List<ScheduleBuilder.Group> of(List<Node> roots, Set<Node> realized, Function<Node, Signature> signatureOf) {
        var groups = new ArrayList<ScheduleBuilder.Group>();
        Map<Node, Integer> groupOf = new IdentityHashMap<>();
        for (Node root : roots) {
            if (root instanceof Node.Concat concat) {
                for (int part = 0; part < concat.parts().size(); part++)
                    groups.add(new ScheduleBuilder.Group(Signature.pointwise(concat.parts().get(part).shape()), List.of(concat.parts().get(part)), concat, part));
                groupOf.put(root, groups.size() - 1);
                continue;
            }
            Signature signature = signatureOf.apply(root);
            int ready = readyAfter(root, realized, groupOf);
            int joined = -1;
            for (int g = Math.max(ready + 1, 0); g < groups.size() && joined < 0; g++)
                if (groups.get(g).concat() == null && sameLoop(groups.get(g).signature(), signature)
                        && matmulOf(groups.get(g).roots().getFirst(), realized) == matmulOf(root, realized)) joined = g;
            if (joined < 0) {
                groups.add(new ScheduleBuilder.Group(signature, new ArrayList<>(List.of(root)), null, 0));
                joined = groups.size() - 1;
            } else {
                groups.get(joined).roots().add(root);
            }
            groupOf.put(root, joined);
        }
        return groups;
    }

    /// The last kernel that writes a buffer `root` reads (-1 if it reads only inputs).
    private static int readyAfter(Node root, Set<Node> realized, Map<Node, Integer> groupOf) {
        int last = -1;
        for (Node buffer : Cones.buffers(root, realized)) last = Math.max(last, groupOf.getOrDefault(buffer, -1));
        return last;
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
