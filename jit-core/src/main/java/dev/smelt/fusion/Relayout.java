// SPDX-License-Identifier: Apache-2.0
package dev.smelt.fusion;

import dev.smelt.ir.Node;
import dev.smelt.kernel.Decision;
import dev.smelt.kernel.IndexMap;
import dev.smelt.kernel.MatMulKernel;
import java.util.ArrayList;
import java.util.List;

/// The layout of each matmul operand that is a view other than the plain row-major or transposed
/// matrix (a permuted einsum operand, a head axis in the middle): packed in place through its
/// strides, or first written out in `[batch…, rows, K]` order by a copy kernel, whichever the
/// prices below make cheaper. Packing copies each operand block into the micro-kernel's order
/// anyway; it runs fast when either the rows or the steps of K are contiguous (vector copies or
/// register transposes) and gathers element by element otherwise. ([CostModel#stridedPack] and
/// [CostModel#relayoutCopy] price the two.)
final class Relayout {
    private Relayout() {}

    /// Columns of B per packed block, after which A is packed again: `runtime.matmul.Blocking`'s
    /// `f32` figure at the default cache budgets (a quarter of 2 MiB over 256 steps of 4 bytes).
    static final int COLUMNS_PER_PACKING = 512;

    /// One operand's layout: its strides across its lanes (rows of A, columns of B) and along K.
    private record Layout(String name, Node node, int across, int along, long elements, long packings) {
        boolean strided() { return across > 1 && along > 1; }

        boolean plain(long lanes, long depth) { return across == 1 && along == lanes || along == 1 && across == depth; }

        String strides() { return "lanes %d apart, steps of K %d apart".formatted(across, along); }
    }

    /// The operands of `kernel` worth a word: a [Decision] for each that is packed through its
    /// strides, and a demand (added to `demands`) for each that is cheaper written out first.
    static List<Decision> choose(int launch, Node.MatMul matmul, MatMulKernel kernel, java.util.Set<Node> realized, List<Realize> demands, CostModel costs) {
        int rank = kernel.space().rank();
        IndexMap a = kernel.inputs().get(kernel.left()).map(), b = kernel.inputs().get(kernel.right()).map();
        long batch = kernel.batch().size(), rows = kernel.rows(), columns = kernel.columns(), depth = kernel.depth();
        var operands = List.of(
                new Layout("A", matmul.a(), a.stride(rank - 3), a.stride(rank - 1), batch * rows * depth, (columns + COLUMNS_PER_PACKING - 1) / COLUMNS_PER_PACKING),
                new Layout("B", matmul.b(), b.stride(rank - 2), b.stride(rank - 1), batch * columns * depth, 1));
        double scale = kernel.dtype().bytes() / 4.0;
        var decisions = new ArrayList<Decision>();
        for (var operand : operands) {
            if (operand.plain(operand.name().equals("A") ? rows : columns, depth)) continue;
            double inPlace = operand.strided() ? costs.stridedPack(operand.elements() * operand.packings()) * scale : 0;
            double copied = costs.relayoutCopy(operand.elements()) * scale + costs.launch();
            var subject = new Decision.Subject.InKernel(launch, new Decision.Subject.Value(operand.name() + " of the matmul"));
            if (inPlace > copied && !realized.contains(operand.node())) {
                demands.add(new Realize(operand.node(), Realize.Kind.LOOP, Decision.Choice.RELAYOUT, ("packing %s through its strides (%s) gathers element by element, "
                        + "%d time(s); writing it once in row-major order is cheaper").formatted(operand.name(), operand.strides(), operand.packings()), copied, inPlace));
                continue;
            }
            decisions.add(Decision.costed(subject, Decision.Choice.PACK_IN_PLACE, inPlace, copied,
                    operand.strided() ? "a row-major copy would cost more than gathering it" : "its " + (operand.across() == 1 ? "lanes" : "steps of K")
                            + " are contiguous, so packing copies runs of memory; a row-major copy would only add its own pass").withDetail("(" + operand.strides() + ")"));
        }
        return decisions;
    }
}
