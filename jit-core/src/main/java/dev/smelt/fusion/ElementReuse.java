// SPDX-License-Identifier: Apache-2.0
package dev.smelt.fusion;

import dev.smelt.kernel.Expr;
import dev.smelt.kernel.Kernel;
import dev.smelt.kernel.Rewrite;
import java.util.ArrayList;
import java.util.List;

/// Reuses what a reduction folds: in each later reduction's value and each full output, every
/// subtree equal to a reduction's value becomes that reduction's [Expr.Element], which generated
/// code reads back from where the reduction's loop stored it instead of computing it again.
/// Softmax's `out0 = div(exp(sub(in0, r0)), r1)` becomes `div(e1, r1)`: one `exp` per point, not two.
///
/// The walk is top-down, so the largest match wins. A value is reused only where the cost model
/// finds computing it again dearer than keeping it ([CostModel#keptElement]): an `exp` is, a
/// subtraction or a leaf (a load, a constant, an index, a finished result) is not, and nothing is
/// once the row outgrows the cache, where a kept row goes to memory and back. An arg-reduction
/// keeps no values. Row outputs read no elements.
final class ElementReuse {
    private ElementReuse() {}

    static Kernel apply(Kernel kernel, CostModel costs) {
        var reductions = kernel.reductions();
        var rewritten = new ArrayList<Kernel.Reduction>();
        var reusable = new java.util.BitSet();
        for (int k = 0; k < reductions.size(); k++) if (reusable(reductions.get(k), kernel.rowLength(), costs)) reusable.set(k);
        if (reusable.isEmpty()) return kernel; // a pointwise kernel: nothing to compare, nothing for a fresh JVM to bootstrap
        var hashes = dev.smelt.kernel.Structure.hashes();
        for (int k = 0; k < reductions.size(); k++)
            rewritten.add(new Kernel.Reduction(reductions.get(k).op(), reuse(reductions, reusable, k, hashes).apply(reductions.get(k).value())));
        var full = reuse(reductions, reusable, reductions.size(), hashes);
        var outputs = kernel.outputs().stream().map(output -> output.perRow() ? output
                : new Kernel.Output(full.apply(output.value()), output.size(), output.map(), false)).toList();
        if (rewritten.equals(reductions) && outputs.equals(kernel.outputs())) return kernel;
        return new Kernel(kernel.space(), kernel.reducedRank(), kernel.inputs(), rewritten, outputs);
    }

    /// Replaces each largest subtree equal to the value of a reusable reduction before `limit` by
    /// that reduction's element.
    /// (Structural hashes, each node's computed once, rule out most pairs before comparing them.)
    private static Rewrite reuse(List<Kernel.Reduction> reductions, java.util.BitSet reusable, int limit, java.util.function.ToIntFunction<Expr> hashes) {
        return Rewrite.topDown(expr -> {
            for (int k = 0; k < limit; k++) {
                Expr value = reductions.get(k).value();
                if (reusable.get(k) && (value == expr || hashes.applyAsInt(value) == hashes.applyAsInt(expr) && value.equals(expr)))
                    return new Expr.Element(k, expr.dtype());
            }
            return null;
        });
    }

    private static boolean reusable(Kernel.Reduction reduction, int rowLength, CostModel costs) {
        var value = reduction.value();
        return !reduction.op().isArg() && costs.arithmetic(List.of(value)) > costs.keptElement(rowLength, value.dtype());
    }
}
