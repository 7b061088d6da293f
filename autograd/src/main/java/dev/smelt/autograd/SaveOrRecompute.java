// SPDX-License-Identifier: Apache-2.0
package dev.smelt.autograd;

import dev.smelt.ir.Node;
import dev.smelt.ir.Node.*;

/// The one place that decides, for each forward value the backward reads, whether the forward
/// program saves it (an extra output, kept until the backward runs) or the backward program
/// recomputes it from values it has. The rule is by op cost: views and constants are free, cheap
/// pointwise ops are recomputed (fused into the backward kernels that read them, they cost less
/// than writing and reading back a saved tensor), and transcendental ops, reductions and matmuls
/// are saved. Recomputing a node makes its operands needed in turn, so `relu(x·W)` saves the
/// matmul and recomputes the relu from it. (The fusion cost model will later make this call in
/// estimated time; this rule is its stand-in.)
public final class SaveOrRecompute {
    private SaveOrRecompute() {}

    /// A decision and its reason, as `explain()` prints it.
    public record Choice(Node node, boolean save, String reason) {
        @Override
        public String toString() { return (save ? "save " : "recompute ") + node + ": " + reason; }
    }

    public static Choice choose(Node node) {
        return switch (node) {
            case Input _, Constant _, Iota _ -> recompute(node, "free: no memory read");
            case Reshape _, Permute _, Expand _, Slice _ -> recompute(node, "a view: an index map, read in place");
            case Cast _, Where _, Concat _ -> recompute(node, "cheap pointwise");
            case Unary u -> switch (u.op()) {
                case NEG, ABS, RELU, SQUARE, SIGN -> recompute(node, "cheap pointwise");
                case EXP, EXPM1, LOG, LOG1P, SQRT, RSQRT, RECIPROCAL, SIN, COS, TANH, SIGMOID, GELU_TANH, GELU_ERF, SILU, SOFTPLUS ->
                        save(node, u.op() + " is expensive (a division or transcendental)");
            };
            case Binary b -> switch (b.op()) {
                case ADD, SUB, MUL, MAXIMUM, MINIMUM, EQ, NE, LT, LE, GT, GE -> recompute(node, "cheap pointwise");
                case DIV, POW -> save(node, b.op() + " is expensive");
            };
            case Reduce _ -> save(node, "a reduction reads all of its operand again");
            case MatMul _ -> save(node, "a matmul is compute-bound");
        };
    }

    private static Choice save(Node node, String reason) { return new Choice(node, true, reason); }

    private static Choice recompute(Node node, String reason) { return new Choice(node, false, reason); }
}
