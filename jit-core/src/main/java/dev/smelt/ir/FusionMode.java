// SPDX-License-Identifier: Apache-2.0
package dev.smelt.ir;

/// How the planner cuts a graph into kernels, chosen per compile so that users and benchmarks can
/// compare: `Jit.compile(fn, FusionMode.NONE)`.
public enum FusionMode {
    /// The default: every choice (recompute or materialise a shared node, keep a value in a
    /// register or recompute it, split a kernel under register pressure) goes to the cheaper
    /// estimate of the fusion planner's cost model.
    COST_MODEL,
    /// Fuse every producer into every consumer, recomputing it in each kernel that reads it, and
    /// keep every value used twice in a kernel in a register, whatever the pressure.
    GREEDY,
    /// Each operation its own kernel, as eager mode runs them; views are still read in place.
    NONE
}
