// SPDX-License-Identifier: Apache-2.0
package dev.smelt.fusion;

import dev.smelt.ir.Node;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/// The cones of one attempt's kernel roots and their loop nests, each found once. The planner's
/// trials, and the plans that meet demands, realize a few nodes more than the attempt before them:
/// given that attempt's, each of its cones that none of those nodes lies inside is reused, with its
/// loop nest, instead of walked again.
final class RootCones {
    private final Set<Node> realized;
    private final Map<Node, Cones.Cone> cones = new IdentityHashMap<>();
    private final Map<Node, Signature> signatures = new IdentityHashMap<>();
    private final Map<Node, Cones.Cone> earlierCones;
    private final Map<Node, Signature> earlierSignatures;
    /// The nodes realized now but not then; null without an earlier attempt, or when it realized a
    /// node this one does not (its cones may stop where these must not).
    private final List<Node> since;

    /// `realized` must not change while this attempt uses it; `earlier` may be null.
    RootCones(Set<Node> realized, RootCones earlier) {
        this.realized = Collections.newSetFromMap(new IdentityHashMap<>());
        this.realized.addAll(realized); // the caller realizes more once the attempt is built
        this.since = earlier == null ? null : since(earlier.realized, realized);
        this.earlierCones = earlier == null ? Map.of() : earlier.cones;
        this.earlierSignatures = earlier == null ? Map.of() : earlier.signatures;
    }

    Cones.Cone cone(Node root) { return cones.computeIfAbsent(root, this::walk); }

    private Cones.Cone walk(Node root) {
        var before = since == null ? null : earlierCones.get(root);
        return before != null && before.survives(since) ? before : Cones.of(root, realized);
    }

    /// The loop nest for `root`: the row structure of a reduction it reads (or is), when its shape
    /// is that reduction's operand or result shape; else pointwise over its shape.
    Signature signature(Node root) { return signatures.computeIfAbsent(root, this::loopOf); }

    private Signature loopOf(Node root) {
        var cone = cone(root);
        var known = earlierCones.get(root) == cone ? earlierSignatures.get(root) : null;
        if (known != null) return known;
        if (root instanceof Node.Reduce r && !r.axes().isEmpty() || root instanceof Node.MatMul) return Signature.of(root);
        for (Node candidate : cone.reductions()) {
            Signature rows = Signature.of(candidate);
            if (rows.isRow() && rows.atEveryPoint(root.shape()) || rows.rowMapping(root.shape()) != null) return rows;
        }
        return Signature.pointwise(root.shape());
    }

    // The nodes of `now` not in `then`; null when `then` has one that `now` does not.
    private static List<Node> since(Set<Node> then, Set<Node> now) {
        var since = new ArrayList<Node>();
        for (Node node : now) if (!then.contains(node)) since.add(node);
        return now.size() - since.size() == then.size() ? since : null;
    }
}
