// SPDX-License-Identifier: Apache-2.0
package dev.smelt.plan;

import dev.smelt.kernel.ElementHome;
import dev.smelt.kernel.Expr;
import dev.smelt.kernel.IndexMap;
import dev.smelt.kernel.Kernel;
import dev.smelt.kernel.Schedule;
import java.util.HashSet;
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
/// Anything else — a view or broadcast of the input, a row output, a reduction that reads the
/// input in another layout, any matmul — is refused.
final class InPlace {
    private InPlace() {}

    /// Whether output `output` of `launch` may share the array of the buffer `buffer` it reads.
    static boolean safe(Schedule.Launch launch, int output, int buffer) {
        // A matmul accumulates its product over K in its output while it still reads its operands.
        if (!(launch.kernel() instanceof Kernel kernel)) return false;
        var target = kernel.outputs().get(output);
        var identity = IndexMap.contiguous(kernel.space());
        if (target.perRow() || !target.map().equals(identity)) return false;
        Set<Integer> aliases = new HashSet<>();
        for (int i = 0; i < kernel.inputs().size(); i++) {
            if (launch.buffers().get(i) != buffer) continue;
            var input = kernel.inputs().get(i);
            if (!input.map().equals(identity) || input.dtype() != target.dtype()) return false;
            aliases.add(i);
        }
        if (aliases.isEmpty()) return false;
        for (int k = 0; k < kernel.outputs().size(); k++) {
            var other = kernel.outputs().get(k);
            if ((k > output || other.perRow()) && reads(kernel, other.value(), aliases, -1)) return false;
        }
        for (int kept = 0; kept < kernel.reductions().size(); kept++)
            if (ElementHome.of(kernel, kept) == output && readAfterFolding(kernel, kept, aliases)) return false;
        return true;
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
            if (node instanceof Expr.Load load && inputs.contains(load.input())) found[0] = true;
            if (node instanceof Expr.Element element && element.reduction() != stored
                    && reads(kernel, kernel.reductions().get(element.reduction()).value(), inputs, stored)) found[0] = true;
        });
        return found[0];
    }
}
