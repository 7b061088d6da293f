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

    /// The matmul form of `kernel`, which lowering built around `matmul` and its `products`, or
    /// null when it is not one product read from buffers (a row kernel that also folds another
    /// reduction of the same loop keeps the loop form). When its epilogue writes no dense buffer
    /// of its dtype to accumulate in, `matmul` is demanded a buffer of its own (and null returned).
    /// Two products in one loop (llama's gate `silu(x·W1ᵀ) · (x·W3ᵀ)`) demand `matmul` a buffer of
    /// its own, so that each runs as a matmul (a GEMV for a few rows, streaming its weight, which
    /// may be bf16 or int8) and the other's epilogue reads it.
    static Converted of(Kernel kernel, Node.MatMul matmul, Map<Node.MatMul, Lowering.Product> products, boolean matmulRealized, List<Integer> outputBuffers, List<Realize> demands) {
        if (FusionRules.ONE_PRODUCT.test(new FusionRules.Loop(kernel.reductions().size(), products.size()))) {
            if (!matmulRealized) demands.add(new Realize(matmul, Realize.Kind.LOOP, FusionRules.ONE_PRODUCT.reason()));
            return null;
        }
        var product = products.get(matmul);
        if (kernel.reductions().size() != 1 || product == null) return null;
        int accumulator = accumulatorOutput(kernel, matmul);
        if (FusionRules.ACCUMULATOR.test(accumulator)) {
            if (!matmulRealized) demands.add(new Realize(matmul, Realize.Kind.LOOP, FusionRules.ACCUMULATOR.reason(matmul.dtype())));
            return null;
        }
        var outputs = new ArrayList<>(kernel.outputs());
        var buffers = new ArrayList<>(outputBuffers);
        outputs.add(outputs.remove(accumulator));
        buffers.add(buffers.remove(accumulator));
        return new Converted(new MatMulKernel(kernel.space(), kernel.inputs(), product.left(), product.right(), outputs), buffers);
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
