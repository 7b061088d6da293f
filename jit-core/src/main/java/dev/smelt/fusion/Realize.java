// SPDX-License-Identifier: Apache-2.0
package dev.smelt.fusion;

import dev.smelt.ir.Node;
import dev.smelt.kernel.Decision;

/// A demand found while lowering: `node` cannot be computed inside the kernel that reads it, so
/// the planner gives it a buffer of its own and plans again. `choice`, `reason` and the two
/// estimates (NaN when a fixed rule demands it) become its decision in `explain()`.
record Realize(Node node, Kind kind, Decision.Choice choice, String reason, double cost, double alternative) {
    /// A demand of a fixed rule ([FusionRules]): `node` is materialised for `reason`.
    Realize(Node node, Kind kind, String reason) { this(node, kind, Decision.Choice.MATERIALISE, reason, Double.NaN, Double.NaN); }

    enum Kind {
        /// Another kernel of the plan folds this reduction already: it stands whatever else changes.
        CLAIMED,
        /// The kernel's loop cannot compute it (rows that do not line up, a merged reshape, the
        /// budget, a concat, no buffer to accumulate a product in): once another demand of the
        /// same attempt is met, kernels may choose other loops and this one may no longer arise.
        LOOP
    }
}
