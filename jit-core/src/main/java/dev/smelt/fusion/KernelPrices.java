// SPDX-License-Identifier: Apache-2.0
package dev.smelt.fusion;

import dev.smelt.ir.Node;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/// The estimated times of kernels already planned while the planner prices materialisation
/// candidates for one graph. Each candidate is priced by planning the whole graph again, but
/// realizing one node changes only the kernels whose cones reach it: a kernel with the same
/// roots, loop and buffers read at the edge of its cone lowers to the same kernel, so its time is
/// looked up instead of lowered, shared and estimated again.
final class KernelPrices {
    /// What determines a kernel: its roots, loop nest, concat part, and the buffers its cone reads.
    record Key(List<Node> roots, Groups.Loop loop, Node concat, int part, Set<Node> reads) {}

    /// A kernel's time and the reductions it folds (which no other kernel of a plan may fold).
    private record Price(double time, Set<Node> claims) {}

    private final Map<Key, Price> prices = new HashMap<>();

    static Key key(ScheduleBuilder.Group group, Set<Node> realized, java.util.function.Function<Node, Cones.Cone> coneOf) {
        Set<Node> reads = new LinkedHashSet<>();
        for (Node root : group.roots())
            if (group.concat() != null && realized.contains(root)) reads.add(root);
            else reads.addAll(coneOf.apply(root).buffers());
        return new Key(List.copyOf(group.roots()), Groups.Loop.of(group.signature()), group.concat(), group.part(), reads);
    }

    /// The known time of the kernel `key`, after claiming its reductions for `group` in `owners`;
    /// null when it is unknown or another kernel of this plan already folds one of its reductions
    /// (then it must be lowered, to find what that costs).
    Double claimFor(Key key, ScheduleBuilder.Group group, Map<Node, ScheduleBuilder.Group> owners) {
        Price price = prices.get(key);
        if (price == null) return null;
        for (Node claim : price.claims()) if (owners.containsKey(claim)) return null;
        for (Node claim : price.claims()) owners.put(claim, group);
        return price.time();
    }

    void remember(Key key, double time, Set<Node> claims) { prices.put(key, new Price(time, Set.copyOf(claims))); }
}
