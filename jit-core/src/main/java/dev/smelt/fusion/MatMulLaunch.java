// SPDX-License-Identifier: Apache-2.0
package dev.smelt.fusion;

import dev.smelt.ir.Node;
import dev.smelt.kernel.Decision;
import dev.smelt.kernel.IndexMap;
import dev.smelt.kernel.Kernel;
import dev.smelt.kernel.MatMulKernel;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/// Turns the kernel lowering built around a matmul (space `[batch…, M, N, K]`, its epilogue's
/// outputs per `[…, m, n]`) into a [MatMulKernel], the form codegen emits as a packed,
/// register-blocked matmul: its operands are the inputs lowering noted for the product
/// ([Lowering.Product]), not found again by matching the loop form's `sum(mul(in_a, in_b))`.
final class MatMulLaunch {
    private MatMulLaunch() {}

    /// A kernel and the buffers its outputs write, in the kernel's order.
    record Converted(MatMulKernel kernel, List<Integer> outputBuffers) {}

    /// The decision for one matmul launch: its epilogue fused, priced against the product written
    /// out and the same epilogue run as a kernel of its own.
    static Decision decision(int launch, Decision.Subject.GraphNode matmul, List<String> fused, MatMulKernel kernel, Machine machine, CostModel costs) {
        var epilogue = fused.stream().filter(label -> !label.equals(matmul.toString())).toList();
        double joined = costs.time(kernel, machine);
        var subject = new Decision.Subject.InKernel(launch, matmul);
        if (epilogue.isEmpty()) return Decision.costed(subject, Decision.Choice.PACKED_MATMUL, joined, joined, "no pointwise consumer to fuse");
        long results = kernel.result().size();
        int bytes = kernel.dtype().bytes();
        // Apart: the product is written once, then a loop kernel reads it (and the epilogue's other
        // inputs) and writes the results.
        double epilogueInputs = 0;
        for (int i : kernel.epilogueInputs()) epilogueInputs += (double) Math.min(kernel.inputs().get(i).size(), results) * kernel.inputs().get(i).dtype().bytes();
        double apart = joined + costs.write((double) results * bytes) + costs.read((double) results * bytes) + costs.read(epilogueInputs) + costs.launch();
        return Decision.costed(subject, Decision.Choice.FUSE_EPILOGUE, joined, apart,
                "the epilogue runs on each block of results while it is in cache, instead of writing the product and reading it back").withDetail(String.join(", ", epilogue));
    }

    /// The matmul form of `kernel`, which lowering built around `matmul` and its `products`; null
    /// after demanding `matmul` a buffer of its own when the kernel cannot be one: when its loop
    /// folds another product or reduction, or when its epilogue writes no dense buffer of its dtype
    /// to accumulate in. So no product runs as a loop: two products in one loop (llama's gate
    /// `silu(x·W1ᵀ) · (x·W3ᵀ)`) each run as a matmul (a GEMV for a few rows, streaming its weight,
    /// which may be bf16 or int8), and the other's epilogue reads `matmul`'s buffer; so does a
    /// reduction that shares the product's loop. (A realized `matmul` is a root whose cone ends at
    /// its operands' buffers, and [Groups] gives it no sibling folding anything else: it never needs
    /// a buffer here.)
    static Converted of(Kernel kernel, Node.MatMul matmul, Map<Node.MatMul, Lowering.Product> products, List<Integer> outputBuffers, List<Realize> demands) {
        if (FusionRules.ONE_PRODUCT.test(new FusionRules.Loop(kernel.reductions().size(), products.size())))
            return demand(matmul, FusionRules.ONE_PRODUCT.reason(), demands);
        int accumulator = accumulatorOutput(kernel, matmul);
        if (FusionRules.ACCUMULATOR.test(accumulator)) return demand(matmul, FusionRules.ACCUMULATOR.reason(matmul.dtype()), demands);
        var product = products.get(matmul);
        if (product == null) throw new IllegalStateException("the operands of " + matmul + " are not read from buffers: " + kernel);
        var outputs = new ArrayList<>(kernel.outputs());
        var buffers = new ArrayList<>(outputBuffers);
        outputs.add(outputs.remove(accumulator));
        buffers.add(buffers.remove(accumulator));
        return new Converted(new MatMulKernel(kernel.space(), kernel.inputs(), product.left(), product.right(), outputs), buffers);
    }

    // A realized matmul demanded again fails the planner's convergence check: that would be a bug.
    private static Converted demand(Node.MatMul matmul, String reason, List<Realize> demands) {
        demands.add(new Realize(matmul, Realize.Kind.LOOP, reason));
        return null;
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
