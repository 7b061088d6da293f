// SPDX-License-Identifier: Apache-2.0
package dev.smelt.fusion;

import dev.smelt.ir.Node;

/// A demand found while lowering: `node` cannot be computed inside the kernel that reads it, so
/// the planner gives it a buffer of its own and plans again. `reason` is kept for `explain()`.
record Realize(Node node, Kind kind, String reason) {
    enum Kind {
        /// Another kernel of the plan folds this reduction already: it stands whatever else changes.
        CLAIMED,
        /// The kernel's loop cannot compute it (rows that do not line up, a merged reshape, the
        /// budget, a concat, no buffer to accumulate a product in): once another demand of the
        /// same attempt is met, kernels may choose other loops and this one may no longer arise.
        LOOP
    }
}
