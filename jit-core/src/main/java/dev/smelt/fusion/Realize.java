// SPDX-License-Identifier: Apache-2.0
package dev.smelt.fusion;

import dev.smelt.ir.Node;

/// Thrown while lowering when `node` cannot be computed inside the current kernel (a view of a
/// merged reshape, a reduction another kernel owns, an expression over budget): the planner then
/// gives `node` a buffer of its own and plans again. `reason` is kept for `explain()`.
final class Realize extends RuntimeException {
    final transient Node node;
    final String reason;

    Realize(Node node, String reason) {
        super(reason, null, false, false);
        this.node = node;
        this.reason = reason;
    }
}
