// SPDX-License-Identifier: Apache-2.0
package dev.smelt.kernel;

import dev.smelt.ir.BinaryOp;
import dev.smelt.ir.DType;
import dev.smelt.ir.ReduceOp;
import dev.smelt.ir.Shape;
import java.util.ArrayList;
import java.util.List;

/// A batched matmul with a fused epilogue, over the space `[batch…, M, N, K]`:
/// `r0[…, m, n] = Σ_k in<left>[…, m, k] · in<right>[…, k, n]`, then each output's expression over
/// `r0` and the other inputs at `[…, m, n]` (bias add, activation, residual add, scaling).
///
/// Operands are read through their index maps, so a transposed or permuted operand (`x @ w.T`, the
/// backward products `dC·Bᵀ` and `Aᵀ·dC`) and a broadcast batch axis (stride 0) cost no copy: the
/// left map does not move along N, the right map not along M. Every output is written once per
/// `[…, m, n]` (its map does not move along K). The last output is dense `[batch…, M, N]` in the
/// matmul's dtype: generated code accumulates `r0` there and the epilogue then overwrites it in
/// place, point for point, after every other output has read it.
///
/// The unit of work is a block of [#unitColumns] columns of one batch entry, for all M rows, or,
/// when the product is taller than wide ([#alongRows]), a block of [#UNIT_ROWS] rows for all N
/// columns: `run(buffers, start, end)` computes blocks `start` until `end`, batch entry by batch
/// entry.
public record MatMulKernel(Shape space, List<Kernel.Input> inputs, int left, int right, List<Kernel.Output> outputs) implements KernelForm {
    /// Columns per work item: a multiple of every micro-kernel width codegen picks (16, 32 or 64
    /// lanes of f32 or f64), so a parallel split cuts no register tile in two.
    public static final int UNIT_COLUMNS = 64;
    /// Columns per work item of a product of at most [#FEW_ROWS] rows, which streams W row by row
    /// (a GEMV) and has no register tile to keep whole: fine enough that two threads cut a
    /// stories15M product of 288 columns into equal halves (64-column items left them 128 and 160).
    public static final int FEW_ROWS_UNIT_COLUMNS = 16;
    /// Products of at most this many rows take [#FEW_ROWS_UNIT_COLUMNS].
    public static final int FEW_ROWS = 4;
    /// Rows per work item along M: a multiple of every micro-kernel height codegen picks (6 or 12
    /// rows), so a split cuts no register tile in two either.
    public static final int UNIT_ROWS = 12;

    public MatMulKernel {
        inputs = List.copyOf(inputs);
        outputs = List.copyOf(outputs);
        require(space.rank() >= 3, "matmul space %s needs [batch…, M, N, K]", space);
        require(left >= 0 && left < inputs.size() && right >= 0 && right < inputs.size(), "operands in%d, in%d of %d inputs", left, right, inputs.size());
        var dtype = inputs.get(left).dtype();
        require(dtype.isFloating() && inputs.get(right).dtype() == dtype, "matmul of %s and %s: f32 or f64 operands of one dtype", dtype, inputs.get(right).dtype());
        int rank = space.rank();
        require(inputs.get(left).map().stride(rank - 2) == 0, "left operand %s moves along N", inputs.get(left).map());
        require(inputs.get(right).map().stride(rank - 3) == 0, "right operand %s moves along M", inputs.get(right).map());
        for (var output : outputs) require(output.perRow(), "matmul output %s is not written once per [m, n]", output.map());
        var accumulator = outputs.isEmpty() ? null : outputs.getLast();
        var result = new Shape(space.dims().subList(0, rank - 1));
        require(accumulator != null && accumulator.dtype() == dtype && accumulator.size() == result.size() && accumulator.map().equals(dense(space)),
                "the last output %s must be dense %s %s, where the accumulator lives", accumulator, dtype, result);
        asLoops(space, inputs, left, right, outputs); // checks bounds and expressions as for any kernel
    }

    public DType dtype() { return inputs.get(left).dtype(); }

    /// `[batch…]`: the leading axes of the space.
    public Shape batch() { return new Shape(space.dims().subList(0, space.rank() - 3)); }

    /// `[batch…, M, N]`: the shape of the product and of every output.
    public Shape result() { return new Shape(space.dims().subList(0, space.rank() - 1)); }

    public int rows() { return space.dim(space.rank() - 3); }

    public int columns() { return space.dim(space.rank() - 2); }

    public int depth() { return space.dim(space.rank() - 1); }

    /// Whether work items are blocks of rows rather than of columns. A block of columns packs all
    /// of A's rows for itself and a block of rows all of B's columns, so two threads splitting N
    /// pack `2·M·K + K·N` values and splitting M `M·K + 2·K·N`: items run along the longer side. A
    /// product of a few rows (a GEMV, which streams W once) runs along N.
    public boolean alongRows() { return rows() > Math.max(columns(), 8); }

    public int unitsPerBatch() { return alongRows() ? (rows() + UNIT_ROWS - 1) / UNIT_ROWS : (columns() + unitColumns() - 1) / unitColumns(); }

    /// Columns per work item along N.
    public int unitColumns() { return rows() <= FEW_ROWS ? FEW_ROWS_UNIT_COLUMNS : UNIT_COLUMNS; }

    @Override
    public int workItems() { return batch().size() * unitsPerBatch(); }

    /// Multiply-adds over 32: the vector micro-kernel does about 32 (0.021 ns each at 95 GFLOP/s)
    /// in the time a pointwise kernel spends on an element (0.6 ns for `sin(x·y + z)`), the unit
    /// of [KernelForm#work]. So products from about 160³ split across threads. A product of a few
    /// rows (a GEMV) is bound by reading its right operand instead: a third of a unit per element
    /// (4 bytes of f32 weight in 0.2 ns at about 20 GB/s), so a 768×768 weight splits.
    @Override
    public long work() {
        long multiplyAdds = (long) result().size() * Math.max(1, depth()) / MULTIPLY_ADDS_PER_ELEMENT;
        return Math.max(1, Math.max(multiplyAdds, inputs.get(right).size() / WEIGHTS_PER_ELEMENT));
    }

    private static final int MULTIPLY_ADDS_PER_ELEMENT = 32, WEIGHTS_PER_ELEMENT = 3;

    @Override
    public int splitGranule() { return 1; }

    /// One: a call on a range of columns packs the left operand's rows for itself, so more pieces
    /// would pack them more often; a product of a few rows (a GEMV) packs none and takes the default.
    @Override
    public int chunksPerThread() { return rows() <= 8 ? KernelForm.super.chunksPerThread() : 1; }

    /// The same computation as a loop kernel reducing K (what the [MatMulInterpreter] runs).
    public Kernel asLoops() { return asLoops(space, inputs, left, right, outputs); }

    private static Kernel asLoops(Shape space, List<Kernel.Input> inputs, int left, int right, List<Kernel.Output> outputs) {
        return new Kernel(space, 1, inputs, List.of(product(left, right, inputs.get(left).dtype())), outputs);
    }

    /// `r0 = Σ_k in<left> · in<right>`: the product as a loop reduces it, the meaning of `r0`.
    public static Kernel.Reduction product(int left, int right, DType dtype) {
        return new Kernel.Reduction(ReduceOp.SUM, new Expr.Binary(BinaryOp.MUL, new Expr.Load(left, dtype), new Expr.Load(right, dtype)));
    }

    /// Whether the outputs are just the product (`out0 = r0`): then there is no epilogue to run.
    public boolean plain() {
        return outputs.size() == 1 && outputs.getFirst().value() instanceof Expr.Accumulated;
    }

    /// The inputs the epilogue reads, in order: those the outputs load or gather from.
    public List<Integer> epilogueInputs() {
        var used = new java.util.TreeSet<Integer>();
        for (var output : outputs)
            Expr.walk(output.value(), e -> {
                if (e instanceof Expr.Load load) used.add(load.input());
                if (e instanceof Expr.Gather gather) used.add(gather.input());
            });
        return List.copyOf(used);
    }

    /// The epilogue as a pointwise kernel over `[batch…, M, N]`: the [#epilogueInputs] (maps
    /// without the K axis), then the accumulator (the last output's buffer, read in place) as one
    /// more input, and the outputs, with the product `r0` read from the accumulator.
    public Kernel epilogue() {
        var result = result();
        var used = epilogueInputs();
        var pointInputs = new ArrayList<Kernel.Input>();
        for (int index : used) {
            var input = inputs.get(index);
            pointInputs.add(new Kernel.Input(input.dtype(), input.size(), withoutDepth(input.map())));
        }
        pointInputs.add(new Kernel.Input(dtype(), result.size(), IndexMap.contiguous(result)));
        var accumulator = new Expr.Load(used.size(), dtype());
        var pointwise = pointwise(used, accumulator);
        var pointOutputs = outputs.stream()
                .map(o -> new Kernel.Output(pointwise.apply(o.value()), o.size(), withoutDepth(o.map()), false)).toList();
        return new Kernel(result, 0, pointInputs, List.of(), pointOutputs);
    }

    private static IndexMap withoutDepth(IndexMap map) {
        return new IndexMap(map.offset(), map.strides().subList(0, map.rank() - 1));
    }

    // An output's expression over the epilogue's inputs: loads and gathers renumbered (a gather's
    // index too), r0 read from the accumulator.
    private static Rewrite pointwise(List<Integer> used, Expr.Load accumulator) {
        var rewrite = new Rewrite[1];
        rewrite[0] = Rewrite.topDown(expr -> switch (expr) {
            case Expr.Accumulated _ -> accumulator;
            case Expr.Load load -> new Expr.Load(used.indexOf(load.input()), load.dtype());
            case Expr.Gather g -> new Expr.Gather(used.indexOf(g.input()), rewrite[0].apply(g.index()), g.stride(), g.limit(), g.dtype());
            default -> null;
        });
        return rewrite[0];
    }

    /// Row-major over `[batch…, M, N]`, not moving along K.
    private static IndexMap dense(Shape space) {
        var strides = new ArrayList<Integer>();
        for (int stride : new Shape(space.dims().subList(0, space.rank() - 1)).contiguousStrides()) strides.add(stride);
        strides.add(0);
        return new IndexMap(0, strides);
    }

    private static void require(boolean condition, String format, Object... args) {
        if (!condition) throw new IllegalArgumentException("matmul kernel: " + format.formatted(args));
    }

    @Override
    public String toString() { return KernelPrinter.print(this); }
}
