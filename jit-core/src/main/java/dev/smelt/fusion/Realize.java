// SPDX-License-Identifier: Apache-2.0
package dev.smelt.fusion;

import dev.smelt.ir.Node;

/// A demand found while lowering: `node` cannot be computed inside the kernel that reads it (a
/// view of a merged reshape, a reduction another kernel folds, rows that do not line up), so the
/// planner gives it a buffer of its own and plans again. `reason` is kept for `explain()`.
record Realize(Node node, String reason) {}
