// SPDX-License-Identifier: Apache-2.0
package dev.smelt.plan;

import dev.smelt.ir.FusionMode;
import dev.smelt.fusion.FusionPlanner;
import dev.smelt.ir.Graph;
import dev.smelt.kernel.Schedule;

/// A graph scheduled with no fusion at all ([FusionMode#NONE]): every operation its own kernel,
/// as eager mode runs them. The fullest test of buffer reuse: every value is materialised.
final class Unfused {
    private Unfused() {}

    static Schedule schedule(Graph graph) {
        return FusionPlanner.plan(graph, FusionPlanner.Options.DEFAULT.withMode(FusionMode.NONE));
    }
}
