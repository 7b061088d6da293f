// SPDX-License-Identifier: Apache-2.0
package dev.smelt.kernel;

/// Where generated code keeps what a reduction folds at each point of a row, for the
/// [Expr.Element]s that read it back: in the row of the full output that reads it, or else in an
/// array of one row allocated per call.
///
/// The output is the better place, as PyTorch's and oneDNN's softmax use it: the folding pass
/// (softmax's `e = exp(x - max)`, summed) stores `e` at the point's own output position, so the
/// stores, and the fetch of the output's cache lines from memory, overlap the arithmetic; the
/// output pass (`out = e · (1/Σe)`) then rescales the row in place while it is still in cache,
/// instead of streaming a scratch row into memory on its own. It is correct when
/// - the output is dense over the space (point `p` at position `p`, so rows are disjoint and a point
///   owns its position) and has the reduction value's dtype;
/// - it is the only full output that reads the element: the output pass reads a point's element
///   before it stores the point's result there, but a second output would read it after;
/// - no earlier reduction keeps its elements there already.
///
/// An in-place output changes the order in which a kernel writes its buffers: see `plan.InPlace`.
public final class ElementHome {
    private ElementHome() {}

    /// The output that keeps reduction `k`'s elements, or -1 when a row array does (or none is kept).
    public static int of(Kernel kernel, int k) {
        var homes = new java.util.ArrayList<Integer>();
        for (int reduction = 0; reduction <= k; reduction++) {
            int home = candidate(kernel, reduction);
            homes.add(home >= 0 && homes.contains(home) ? -1 : home);
        }
        return homes.get(k);
    }

    /// The one dense full output of the right dtype that reads reduction `k`'s elements, or -1.
    private static int candidate(Kernel kernel, int k) {
        var reduction = kernel.reductions().get(k);
        var dense = IndexMap.contiguous(kernel.space());
        int home = -1;
        for (int i = 0; i < kernel.outputs().size(); i++) {
            var output = kernel.outputs().get(i);
            if (output.perRow() || !readsElement(output.value(), k)) continue;
            if (home >= 0 || !output.map().equals(dense) || output.dtype() != reduction.value().dtype()) return -1;
            home = i;
        }
        return home;
    }

    /// Whether `expr` reads reduction `k`'s [Expr.Element].
    public static boolean readsElement(Expr expr, int k) {
        var found = new boolean[1];
        Expr.walk(expr, node -> { if (node instanceof Expr.Element element && element.reduction() == k) found[0] = true; });
        return found[0];
    }
}
