// SPDX-License-Identifier: Apache-2.0
package dev.smelt.plan;

import dev.smelt.kernel.ElementHome;
import dev.smelt.kernel.Expr;
import dev.smelt.kernel.IndexMap;
import dev.smelt.kernel.Kernel;
import dev.smelt.kernel.MatMulKernel;
import dev.smelt.kernel.Schedule;
import dev.smelt.kernel.UpdateKernel;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/// Whether a launch may write one of its outputs into the array of a buffer it reads, so that the
/// output takes over the input's memory ([MemoryPlanner] asks only when this launch is that
/// input's last reader). The proof rests on the order a [Kernel] promises, which the kernel
/// interpreter and generated code both keep (see `KernelEmitter`): rows are independent, and in a
/// row every reduction folds the whole row first, then full outputs are written point by point in
/// output order (a vector loop reads its lanes before it stores them), then row outputs.
///
/// So it is safe when
/// - the output and every binding of the input use the same dense identity map over the space: point
///   `p` reads and writes position `p` only, rows touch disjoint positions, and a row's reductions
///   (softmax's max and sum) have read the whole row before its first write;
/// - no output written after this one (a later full output, or any row output) reads the input,
///   directly or through a reduction's [Expr.Element], which the interpreter evaluates again;
/// - when the output keeps a reduction's elements ([ElementHome]), which generated code stores
///   there while that reduction folds, nothing computed after that pass reads the input: no later
///   reduction, and no output (this one included) but through that element.
///
/// A row output may also overwrite an input it reads at its own row's position ([#rowSafe]), a
/// matmul's epilogue output a donated input ([#donatable]), and an [UpdateKernel] its base ([#overwritesBase]):
/// a KV cache written at one position then costs that position, not a copy of the cache. Anything
/// else — a view or broadcast of the input, a reduction that reads the input in another layout, any
/// other matmul, a sort — is refused.
final class InPlace {
    private InPlace() {}

    /// Whether output `output` of `launch` may share the array of the buffer `buffer` it reads.
    static boolean safe(Schedule.Launch launch, int output, int buffer) {
        if (launch.kernel() instanceof UpdateKernel) return overwritesBase(launch, buffer);
        // A matmul accumulates its product over K in its output while it still reads its operands.
        if (!(launch.kernel() instanceof Kernel kernel)) return false;
        var target = kernel.outputs().get(output);
        if (target.perRow()) return rowSafe(launch, kernel, output, buffer);
        var identity = IndexMap.contiguous(kernel.space());
        if (!target.map().equals(identity)) return false;
        var aliases = aliases(launch, kernel.inputs(), buffer, target);
        if (aliases.isEmpty()) return false;
        for (int k = 0; k < kernel.outputs().size(); k++) {
            var other = kernel.outputs().get(k);
            if ((k > output || other.perRow()) && reads(kernel, other.value(), aliases, -1)) return false;
        }
        for (int kept = 0; kept < kernel.reductions().size(); kept++)
            if (ElementHome.of(kernel, kept) == output && readAfterFolding(kernel, kept, aliases)) return false;
        return true;
    }

    /// A row output (a bias gradient's `b - lr·Σ dy`) over the input it reads once per row: safe
    /// when both use the dense layout of the rows, so row `r` reads and writes position `r` only,
    /// after its reductions and full outputs have read the row, and no row output written after
    /// this one reads the input.
    private static boolean rowSafe(Schedule.Launch launch, Kernel kernel, int output, int buffer) {
        var rows = rowLayout(kernel);
        var target = kernel.outputs().get(output);
        if (!target.map().equals(rows)) return false;
        var aliases = aliases(launch, kernel.inputs(), buffer, target);
        if (aliases.isEmpty()) return false;
        for (int k = output + 1; k < kernel.outputs().size(); k++) {
            var other = kernel.outputs().get(k);
            if (other.perRow() && reads(kernel, other.value(), aliases, -1)) return false;
        }
        return true;
    }

    /// An update may take its base's array: it reads the base only to copy it (skipped then) and
    /// writes the region from its index and source, which must be other arrays.
    private static boolean overwritesBase(Schedule.Launch launch, int buffer) {
        var bound = launch.buffers();
        return bound.get(0) == buffer && bound.get(1) != buffer && bound.get(2) != buffer;
    }

    /// The inputs bound to `buffer`, each read through `target`'s own map and dtype (so every point
    /// reads only what it then writes); none if any binding reads it another way.
    private static Set<Integer> aliases(Schedule.Launch launch, List<Kernel.Input> inputs, int buffer, Kernel.Output target) {
        Set<Integer> aliases = new HashSet<>();
        for (int i = 0; i < inputs.size(); i++) {
            if (launch.buffers().get(i) != buffer) continue;
            var input = inputs.get(i);
            if (!input.map().equals(target.map()) || input.dtype() != target.dtype()) return Set.of();
            aliases.add(i);
        }
        return aliases;
    }

    /// Row `r` at position `r`: the outer axes' contiguous strides, 0 along the reduced axes.
    private static IndexMap rowLayout(Kernel kernel) {
        var strides = new java.util.ArrayList<Integer>();
        int stride = 1;
        for (int axis = kernel.space().rank() - 1; axis >= 0; axis--) {
            boolean reduced = axis >= kernel.outerRank();
            strides.addFirst(reduced ? 0 : stride);
            if (!reduced) stride *= kernel.space().dim(axis);
        }
        return new IndexMap(0, strides);
    }

    /// Whether output `output` of `launch` may be written into the caller's array of input buffer
    /// `buffer` (a donated argument, as an optimizer's parameter): what [#safe] allows, and also a
    /// matmul's epilogue output that reads the input at its own point only, as `w - lr·(x@dy)` does.
    /// That holds because the matmul runtime accumulates the product in a scratch array of its own
    /// whenever the accumulator's array is one the epilogue reads (`MatMulFunction`), so the input
    /// is only read, point for point, by the epilogue, which reads a point before writing it.
    static boolean donatable(Schedule.Launch launch, int output, int buffer) {
        if (!(launch.kernel() instanceof MatMulKernel matmul)) return safe(launch, output, buffer);
        if (launch.buffers().get(matmul.left()) == buffer || launch.buffers().get(matmul.right()) == buffer) return false;
        var target = matmul.outputs().get(output);
        if (!target.map().equals(matmul.outputs().getLast().map())) return false;   // not the dense [batch…, M, N] layout
        var aliases = aliases(launch, matmul.inputs(), buffer, target);
        if (aliases.isEmpty()) return false;
        for (int k = output + 1; k < matmul.outputs().size(); k++)
            if (readsDirectly(matmul.outputs().get(k).value(), aliases)) return false;
        return true;
    }

    private static boolean readsDirectly(Expr expr, Set<Integer> inputs) {
        var found = new boolean[1];
        Expr.walk(expr, node -> { if (loads(node, inputs)) found[0] = true; });
        return found[0];
    }

    /// Whether a reduction after `kept`, or any output, reads one of `inputs` other than through
    /// `kept`'s stored elements.
    private static boolean readAfterFolding(Kernel kernel, int kept, Set<Integer> inputs) {
        for (int k = kept + 1; k < kernel.reductions().size(); k++)
            if (reads(kernel, kernel.reductions().get(k).value(), inputs, kept)) return true;
        return kernel.outputs().stream().anyMatch(other -> reads(kernel, other.value(), inputs, kept));
    }

    /// Whether `expr` loads one of `inputs`, counting what each [Expr.Element] it reads loads but
    /// reduction `stored`'s (-1 for none), which is read back from where it was stored.
    private static boolean reads(Kernel kernel, Expr expr, Set<Integer> inputs, int stored) {
        var found = new boolean[1];
        Expr.walk(expr, node -> {
            if (loads(node, inputs)) found[0] = true;
            if (node instanceof Expr.Element element && element.reduction() != stored
                    && reads(kernel, kernel.reductions().get(element.reduction()).value(), inputs, stored)) found[0] = true;
        });
        return found[0];
    }

    // A gather reads its input too, at a position that is data.
    private static boolean loads(Expr node, Set<Integer> inputs) {
        return node instanceof Expr.Load load && inputs.contains(load.input()) || node instanceof Expr.Gather gather && inputs.contains(gather.input());
    }
}
