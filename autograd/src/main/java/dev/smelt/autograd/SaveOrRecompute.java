// SPDX-License-Identifier: Apache-2.0
package dev.smelt.autograd;

import dev.smelt.fusion.CostModel;
import dev.smelt.ir.Node;
import dev.smelt.ir.Node.*;

/// The one place that decides, for each forward value the backward reads, whether the forward
/// program saves it (an extra output, kept until the backward runs) or the backward program
/// recomputes it from values it has, in the fusion cost model's unit ([CostModel]): a pointwise
/// value is recomputed when its arithmetic per element, done by each backward kernel that reads
/// it, costs less than writing it and reading it back; views and constants are free; reductions
/// and matmuls are saved (recomputing one reads its whole operand again); random tensors are
/// regenerated from their keys. Recomputing a node makes
/// its operands needed in turn, so `relu(x·W)` saves the matmul and recomputes the relu from it.
public final class SaveOrRecompute {
    private SaveOrRecompute() {}

    /// Backward kernels that recompute a value it is not saved: usually two (the value's own
    /// gradient and its consumer's), so its arithmetic is counted twice against one save.
    static final int RECOMPUTATIONS = 2;

    /// A decision and its reason, as `explain()` prints it.
    public record Choice(Node node, boolean save, String reason) {
        @Override
        public String toString() { return (save ? "save " : "recompute ") + node + ": " + reason; }
    }

    /// Whether the forward saves `node` for the backward or the backward recomputes it, and why.
    public static Choice choose(Node node) {
        return switch (node) {
            case Input _, Constant _, Iota _ -> recompute(node, "free: no memory read");
            case Reshape _, Permute _, Expand _, Slice _ -> recompute(node, "a view: an index map, read in place");
            case Concat _ -> recompute(node, "a copy of its parts, fused on read");
            // As the design plans for dropout: the backward reads its key, never a saved mask.
            case Random _ -> recompute(node, "random: regenerated from its key, not kept from forward to backward");
            case IndexCheck _ -> recompute(node, "an index check: the backward checks the indices it reads too");
            case Cast _, Where _, Unary _, Binary _ -> {
                double recompute = RECOMPUTATIONS * CostModel.CALIBRATED.pointwise(node), save = CostModel.CALIBRATED.savedPerElement(node.dtype());
                String costs = "%.3f ns per element to recompute against %.3f to save".formatted(recompute, save);
                yield recompute < save ? recompute(node, "cheap pointwise: " + costs) : save(node, "expensive: " + costs);
            }
            case Reduce _ -> save(node, "a reduction reads all of its operand again");
            case MatMul _ -> save(node, "a matmul is compute-bound");
            case Gather _ -> recompute(node, "a gather: its source read in place at the index");
            case Scatter _, SliceUpdate _ -> save(node, "an update writes a buffer of its own");
            case ArgSort _ -> save(node, "a sort reads whole lines and compares n·log n times");
            case Attention _ -> save(node, "attention is compute-bound; the forward kernel writes its logsumexp beside its output");
        };
    }

    private static Choice save(Node node, String reason) { return new Choice(node, true, reason); }

    private static Choice recompute(Node node, String reason) { return new Choice(node, false, reason); }
}
