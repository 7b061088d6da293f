// SPDX-License-Identifier: Apache-2.0
package dev.smelt.kernel;

import dev.smelt.ir.DType;
import dev.smelt.ir.ReduceOp;
import dev.smelt.ir.Shape;
import java.util.List;

/// A loop kernel over the iteration space `space`, whose last `reducedRank` axes are reduced.
///
/// The outer axes (all but the reduced ones) index *rows*. For each row, the kernel folds each of
/// `reductions` in order over the row's points (a reduction's value may use [Expr.Accumulated]
/// results of earlier ones, as softmax's sum uses its max), then writes each output: a full output
/// at every point of the row, a row output once per row. Later reductions and full outputs may
/// reuse what an earlier reduction folded at the same point ([Expr.Element]). A pointwise kernel has `reducedRank` 0,
/// no reductions, and every point is its own row.
///
/// Inputs and outputs are flat buffers addressed through [IndexMap]s over `space`, so views are
/// read in place. The unit of work, which callers split across threads, is one row
/// ([#workItems]): `run(buffers, start, end)` computes rows `start` until `end`.
public record Kernel(Shape space, int reducedRank, List<Input> inputs, List<Reduction> reductions, List<Output> outputs) implements KernelForm {
    /// A buffer the kernel reads: its dtype, its length, and where each point of the space is in it.
    public record Input(DType dtype, int size, IndexMap map) {
        // the record's own, written out: generated ones are bootstrapped on first use, in a fresh JVM's first compile
        @Override
        public boolean equals(Object o) { return o instanceof Input i && dtype == i.dtype && size == i.size && map.equals(i.map); }

        @Override
        public int hashCode() { return (31 * dtype.hashCode() + size) * 31 + map.hashCode(); }
    }

    /// `op` folded over a row of `value`. `argmax`/`argmin` need exactly one reduced axis and give
    /// the `i32` index along it of the first extreme (NaN counting as the extreme).
    public record Reduction(ReduceOp op, Expr value) {
        public DType dtype() { return op.isArg() ? DType.I32 : value.dtype(); }
    }

    /// A buffer the kernel writes: `value` stored through `map`, at every point, or once per row
    /// (then `map`'s strides on the reduced axes are 0 and `value` must not vary within a row).
    public record Output(Expr value, int size, IndexMap map, boolean perRow) {
        public DType dtype() { return value.dtype(); }
    }

    public Kernel {
        inputs = List.copyOf(inputs);
        reductions = List.copyOf(reductions);
        outputs = List.copyOf(outputs);
        KernelCheck.verify(space, reducedRank, inputs, reductions, outputs);
    }

    /// The number of rows: the product of the outer axes.
    public int workItems() {
        int rows = 1;
        for (int axis = 0; axis < outerRank(); axis++) rows *= space.dim(axis);
        return rows;
    }

    public int outerRank() { return space.rank() - reducedRank; }

    /// The number of points in one row: the product of the reduced axes.
    public int rowLength() {
        int points = 1;
        for (int axis = outerRank(); axis < space.rank(); axis++) points *= space.dim(axis);
        return points;
    }

    /// This kernel with each reduction's and output's value replaced by `rewrite` of it.
    public Kernel withValues(java.util.function.Function<Expr, Expr> rewrite) {
        var rewrittenReductions = new java.util.ArrayList<Reduction>(reductions.size());
        for (Reduction r : reductions) rewrittenReductions.add(new Reduction(r.op(), rewrite.apply(r.value())));
        var rewrittenOutputs = new java.util.ArrayList<Output>(outputs.size());
        for (Output o : outputs) rewrittenOutputs.add(new Output(rewrite.apply(o.value()), o.size(), o.map(), o.perRow()));
        return new Kernel(space, reducedRank, inputs, rewrittenReductions, rewrittenOutputs);
    }

    /// The reductions in the passes generated code makes over a row, each pass folding its
    /// reductions together, their common values computed once per point, each input read once: in
    /// order, a pass takes reductions until one reads the result or the kept values of another in
    /// it ([Expr.Accumulated], [Expr.Element]), which exist only once that pass has ended; an
    /// arg-reduction, which keeps its best index beside its value, makes a pass of its own. Each
    /// reduction still folds its points in its own order, so a pass changes no bits.
    public List<List<Integer>> reductionPasses() {
        var passes = new java.util.ArrayList<List<Integer>>();
        var pass = new java.util.ArrayList<Integer>();
        for (int k = 0; k < reductions.size(); k++) {
            if (!pass.isEmpty() && (reductions.get(k).op().isArg() || reductions.get(pass.getFirst()).op().isArg() || readsAny(reductions.get(k).value(), pass))) {
                passes.add(List.copyOf(pass));
                pass.clear();
            }
            pass.add(k);
        }
        if (!pass.isEmpty()) passes.add(List.copyOf(pass));
        return passes;
    }

    private static boolean readsAny(Expr value, List<Integer> reductions) {
        for (Expr node : Expr.nodes(List.of(value)))
            if (node instanceof Expr.Accumulated a && reductions.contains(a.reduction()) || node instanceof Expr.Element e && reductions.contains(e.reduction())) return true;
        return false;
    }

    /// Every expression of the kernel: the reductions' values, then the outputs'.
    public List<Expr> expressions() {
        var expressions = new java.util.ArrayList<Expr>(reductions.size() + outputs.size());
        for (Reduction reduction : reductions) expressions.add(reduction.value());
        for (Output output : outputs) expressions.add(output.value());
        return expressions;
    }

    /// The bytes of the element that sizes a vector of this kernel: its widest dtype, or 8 when it
    /// draws random numbers (hashed in 64-bit lanes). Generated code uses as many lanes for every dtype.
    public int laneBytes() {
        int bytes = 1;
        for (Input input : inputs) bytes = Math.max(bytes, input.dtype().bytes());
        for (Reduction reduction : reductions) bytes = Math.max(bytes, reduction.dtype().bytes());
        for (Expr node : Expr.nodes(expressions()))
            bytes = Math.max(bytes, node instanceof Expr.Random ? Long.BYTES : node instanceof Expr.Index ? Math.max(node.dtype().bytes(), DType.I32.bytes()) : node.dtype().bytes());
        return bytes;
    }

    /// Every point of every row.
    @Override
    public long work() { return (long) workItems() * Math.max(1, rowLength()); }

    /// Blocks of 64 rows, so pointwise blocks start on vector-aligned elements.
    @Override
    public int splitGranule() { return 64; }

    @Override
    public String toString() { return KernelPrinter.print(this); }
}
