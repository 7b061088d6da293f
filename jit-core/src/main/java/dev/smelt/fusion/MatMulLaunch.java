// SPDX-License-Identifier: Apache-2.0
package dev.smelt.fusion;

import dev.smelt.ir.BinaryOp;
import dev.smelt.ir.Node;
import dev.smelt.ir.ReduceOp;
import dev.smelt.kernel.Expr;
import dev.smelt.kernel.IndexMap;
import dev.smelt.kernel.Kernel;
import dev.smelt.kernel.MatMulKernel;
import java.util.ArrayList;
import java.util.List;

/// Turns a matmul's row kernel (space `[batch…, M, N, K]`, one `sum(mul(in_a, in_b))`, outputs
/// per `[…, m, n]`) into a [MatMulKernel], the form codegen emits as a packed, register-blocked
/// matmul. Lowering builds the row kernel exactly as for any reduction; this only recognises it.
final class MatMulLaunch {
    private MatMulLaunch() {}

    /// A kernel and the buffers its outputs write, in the kernel's order.
    record Converted(MatMulKernel kernel, List<Integer> outputBuffers) {}

    /// Whether the pointwise consumer `root` of `matmul` is computed in the matmul's epilogue
    /// (bias add, activation, residual add, scaling: whatever the planner fuses into the row kernel).
    /// The rule for now: every consumer the planner would fuse joins. The cost model plugs in here.
    static boolean epilogueJoins(Node.MatMul matmul, Node root) { return true; }

    /// The matmul form of `kernel`, or null when it is not one product of two loads (a row kernel
    /// that also folds another reduction of the same loop keeps the loop form). Throws [Realize] on
    /// `matmul` when its epilogue writes no dense buffer of its dtype to accumulate in, so that the
    /// product gets its own.
    static Converted of(Kernel kernel, Node.MatMul matmul, boolean matmulRealized, List<Integer> outputBuffers) {
        if (kernel.reductions().size() != 1) return null;
        var reduction = kernel.reductions().getFirst();
        if (reduction.op() != ReduceOp.SUM || !(reduction.value() instanceof Expr.Binary(var op, Expr.Load a, Expr.Load b)) || op != BinaryOp.MUL) return null;
        int accumulator = accumulatorOutput(kernel, matmul);
        if (accumulator < 0) {
            if (matmulRealized) return null;
            throw new Realize(matmul, "its epilogue writes no dense " + matmul.dtype() + " buffer to accumulate the product in");
        }
        var outputs = new ArrayList<>(kernel.outputs());
        var buffers = new ArrayList<>(outputBuffers);
        outputs.add(outputs.remove(accumulator));
        buffers.add(buffers.remove(accumulator));
        return new Converted(new MatMulKernel(kernel.space(), kernel.inputs(), a.input(), b.input(), outputs), buffers);
    }

    // The last output that is dense [batch…, M, N] in the matmul's dtype: writing the product there
    // and overwriting it last keeps every other output's reads of it intact.
    private static int accumulatorOutput(Kernel kernel, Node.MatMul matmul) {
        var dense = new ArrayList<Integer>();
        for (int stride : matmul.shape().contiguousStrides()) dense.add(stride);
        dense.add(0);
        var map = new IndexMap(0, dense);
        for (int i = kernel.outputs().size() - 1; i >= 0; i--) {
            var output = kernel.outputs().get(i);
            if (output.dtype() == matmul.dtype() && output.map().equals(map) && output.size() == matmul.shape().size()) return i;
        }
        return -1;
    }
}
