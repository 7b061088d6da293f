// SPDX-License-Identifier: Apache-2.0
package dev.smelt.runtime.matmul;

import dev.smelt.codegen.MicroKernel;
import dev.smelt.codegen.MicroKernelShape;
import dev.smelt.kernel.Kernel;
import dev.smelt.kernel.KernelFunction;
import dev.smelt.kernel.MatMulKernel;
import java.util.Arrays;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/// Runs a [MatMulKernel]: the BLIS loops around a generated register-tile micro-kernel, then the
/// fused epilogue (a generated pointwise kernel) on each block of C while it is still in cache.
///
/// For each work item's rows and columns of one batch entry (all rows of a block of columns, or all
/// columns of a block of rows: [MatMulKernel#alongRows]):
/// ```
/// for (jc = first; jc < last; jc += blocking.columns)           // B panel: a quarter of L2
///     for (pc = 0; pc < K; pc += blocking.depth) {               // steps of K: B micro-panel in half of L1
///         pack B[pc…, jc…] into micro-panels of tile.columns
///         for (ic = top; ic < bottom; ic += blocking.rows) {     // A block: half of L2
///             pack A[ic…, pc…] into micro-panels of tile.rows
///             for (jr …) for (ir …) tile.run(…, C at [ic + ir, jc + jr], accumulate = pc > 0)
///             if (pc is the last step) epilogue rows ic… of columns jc…
///         }
///     }
/// ```
/// Edge tiles run the same micro-kernel into a scratch tile and copy its valid part. Packed panels
/// and the scratch tile are per thread and reused, so a call allocates nothing. Tiny products take
/// [TinyProduct] instead, once C2 has compiled it: through packing and the register tile an
/// 8×8×8 product costs about 0.3 µs, most of it an edge tile mostly empty (a scalar unpacked loop
/// was no better: 0.42 µs at 8³). C is the kernel's last output, which the epilogue then reads and
/// overwrites in place (see [MatMulKernel]). A product of a few rows against W's rows (`x @ W.t()`,
/// a decode step's projections) takes [Gemv] instead, which streams W once with no packing and
/// also reads a bf16 or int8 [dev.smelt.ir.PackedMatrix] W.
public final class MatMulFunction implements KernelFunction {
    private static final ThreadLocal<Scratch> SCRATCH = ThreadLocal.withInitial(Scratch::new);

    private final MatMulKernel kernel;
    private final MicroKernelShape tile;
    private final Supplier<MicroKernel> tiles;
    private final KernelFunction epilogue;
    private final Operand left, right;
    private final int[] batchDims, epilogueInputs;
    private final int rows, columns, depth, units, resultSize;
    private boolean tinyWarm; // once TinyProduct is warm it stays so: skips asking on every call
    private final boolean gemv; // a few rows against W's rows: the Gemv, whatever the size
    private final boolean alongRows; // work items are blocks of rows, not of columns
    private final int unitColumns; // columns per work item when along N
    private final Blocking blocking;
    private final BooleanSupplier tiny, vectorPacking;

    /// Products of at most this many multiply-adds take [TinyProduct] (when warm): up to 32³ it
    /// beats packing at every size measured (MatMulBench.Tiny, AMD EPYC AVX-512, 2026-11).
    static final long TINY_WORK = 32 * 32 * 32;

    /// `tiles` gives the micro-kernel (of shape `tile`) to use for each block; `epilogue` runs
    /// [MatMulKernel#epilogue], or is null for a plain product.
    public MatMulFunction(MatMulKernel kernel, MicroKernelShape tile, Supplier<MicroKernel> tiles, KernelFunction epilogue) {
        this(kernel, tile, tiles, epilogue, Blocking.of(tile, kernel.rows(), kernel.columns(), kernel.depth()));
    }

    private MatMulFunction(MatMulKernel kernel, MicroKernelShape tile, Supplier<MicroKernel> tiles, KernelFunction epilogue, Blocking blocking) {
        this(kernel, tile, tiles, epilogue, blocking, tinyWhenWarm(kernel, blocking), MicroKernels.of(kernel.dtype())::vectorPacking);
    }

    /// Only a product whose K is one block of the packed path may take [TinyProduct]: one chain of
    /// FMAs from 0 per element, as the tiles compute a block, so both give the same bits and a
    /// product does not change when the tiny path becomes warm.
    private static BooleanSupplier tinyWhenWarm(MatMulKernel kernel, Blocking blocking) {
        if (Gemv.applies(kernel) || (long) kernel.rows() * kernel.columns() * kernel.depth() > TINY_WORK || kernel.depth() > blocking.depth()) return () -> false;
        var tiles = MicroKernels.of(kernel.dtype());
        tiles.tiny(); // starts its warm-up now, before the first call
        return tiles::tiny;
    }

    /// With the given cache blocks (tests use tiny ones to reach every edge case on small matrices),
    /// taking [TinyProduct] whenever `tiny` says so and packing with vectors whenever
    /// `vectorPacking` does.
    MatMulFunction(MatMulKernel kernel, MicroKernelShape tile, Supplier<MicroKernel> tiles, KernelFunction epilogue, Blocking blocking,
                   BooleanSupplier tiny, BooleanSupplier vectorPacking) {
        this.kernel = kernel;
        this.tile = tile;
        this.tiles = tiles;
        this.epilogue = epilogue;
        this.left = Operand.left(kernel.inputs().get(kernel.left()).map());
        this.right = Operand.right(kernel.inputs().get(kernel.right()).map());
        this.batchDims = kernel.batch().toArray();
        this.epilogueInputs = kernel.epilogueInputs().stream().mapToInt(Integer::intValue).toArray();
        this.rows = kernel.rows();
        this.columns = kernel.columns();
        this.depth = kernel.depth();
        this.units = kernel.unitsPerBatch();
        this.resultSize = kernel.result().size();
        this.blocking = blocking;
        this.tiny = tiny;
        this.vectorPacking = vectorPacking;
        this.gemv = Gemv.applies(kernel);
        this.alongRows = kernel.alongRows();
        this.unitColumns = kernel.unitColumns();
    }

    /// The function for `kernel` with this machine's micro-kernel, its epilogue run by `epilogue`
    /// (null when the kernel is a plain product).
    public static MatMulFunction of(MatMulKernel kernel, KernelFunction epilogue) {
        if (kernel.plain() != (epilogue == null)) throw new IllegalArgumentException(kernel.plain() ? "a plain product has no epilogue" : "the epilogue's function is missing");
        var tiles = MicroKernels.of(kernel.dtype());
        var function = new MatMulFunction(kernel, tiles.shape(), tiles::current, epilogue);
        if (!function.gemv) tiles.current(); // starts the vector tile's warm-up now, before the first call (after the tiny product's, if this is one)
        return function;
    }

    /// Its right operand `in<right>`, when it runs as a GEMV reading the whole matrix row-major: a
    /// bf16 or int8 weight `[N, K]` is then read as its [dev.smelt.ir.PackedMatrix].
    @Override
    public boolean readsPacked(int position) { return position == kernel.right() && Gemv.readsWholeMatrix(kernel); }

    /// Which micro-kernel runs, and the epilogue's variant, for `explain()`.
    @Override
    public String tier() {
        return epilogue == null ? product() : product() + "; epilogue " + epilogue.tier();
    }

    private String product() {
        if (gemv) return "GEMV: %d row(s) of x against W's rows streamed once, unpacked (a bf16 or int8 weight is dequantised in registers)%s".formatted(rows, Gemv.PAGES);
        if (tiny.getAsBoolean()) return "tiny product (no packing)";
        return "%s; blocks of %d×%d, %d steps of K (L1 %d KiB, L2 %d KiB budgets: %s); threads split %s".formatted(MicroKernels.of(kernel.dtype()).tier(),
                blocking.rows(), blocking.columns(), blocking.depth(), Blocking.L1_BYTES >> 10, Blocking.L2_BYTES >> 10, Blocking.SOURCE,
                alongRows ? "M, each packing all of B" : "N, each packing all of A");
    }

    /// Accumulates in C, the last output, unless the epilogue reads an input in C's array (a
    /// parameter updated in place, `w - lr·(x@dy)`, see `InPlace.donatable`): then in a scratch
    /// array of this thread, as large as C, so the epilogue still reads the input's old values.
    /// The epilogue's table of buffers is this thread's too, emptied afterwards: a call allocates
    /// nothing.
    @Override
    public void run(Object[] buffers, int start, int end) {
        Object c = buffers[buffers.length - 1];
        if (epilogue == null) {
            products(buffers, c, null, start, end);
            return;
        }
        var scratch = SCRATCH.get();
        if (readsOwnOutput(buffers, c)) c = scratch.accumulator(tile.dtype(), resultSize);
        Object[] epilogueBuffers = epilogueBuffers(buffers, c, scratch.table(epilogueInputs.length + 1 + kernel.outputs().size()));
        try {
            products(buffers, c, epilogueBuffers, start, end);
        } finally {
            Arrays.fill(epilogueBuffers, null); // keeps no caller's array alive
        }
    }

    private void products(Object[] buffers, Object c, Object[] epilogueBuffers, int start, int end) {
        Object a = buffers[kernel.left()], b = buffers[kernel.right()];
        if (batchDims.length == 0) { // one batch entry: no division to find it (a tenth of an 8³ product)
            items(0, start, end, a, b, c, epilogueBuffers);
            return;
        }
        for (int unit = start; unit < end; ) {
            int batch = unit / units, stop = Math.min(end, (batch + 1) * units);
            items(batch, unit - batch * units, stop - batch * units, a, b, c, epilogueBuffers);
            unit = stop;
        }
    }

    // Items [from, to) of one batch entry: a block of rows for all columns, or of columns for all rows.
    private void items(int batch, int from, int to, Object a, Object b, Object c, Object[] epilogueBuffers) {
        if (alongRows) block(batch, from * MatMulKernel.UNIT_ROWS, Math.min(rows, to * MatMulKernel.UNIT_ROWS), 0, columns, a, b, c, epilogueBuffers);
        else block(batch, 0, rows, from * unitColumns, Math.min(columns, to * unitColumns), a, b, c, epilogueBuffers);
    }

    private boolean readsOwnOutput(Object[] buffers, Object c) {
        for (int input : epilogueInputs) if (buffers[input] == c) return true;
        return false;
    }

    // The epilogue's inputs, the accumulator C, then the outputs (see MatMulKernel.epilogue), in `bound`.
    private Object[] epilogueBuffers(Object[] buffers, Object c, Object[] bound) {
        int read = epilogueInputs.length;
        for (int i = 0; i < read; i++) bound[i] = buffers[epilogueInputs[i]];
        bound[read] = c;
        System.arraycopy(buffers, kernel.inputs().size(), bound, read + 1, bound.length - read - 1);
        return bound;
    }

    // Rows [top, bottom) and columns [first, last) of one batch entry's C.
    private void block(int batch, int top, int bottom, int first, int last, Object a, Object b, Object c, Object[] epilogueBuffers) {
        int aBase = left.base(batchDims, batch), bBase = right.base(batchDims, batch), cBase = batch * rows * columns;
        if (depth == 0) { // an empty sum: C is 0
            for (int m = top; m < bottom; m++) Scratch.zero(c, cBase + m * columns + first, cBase + m * columns + last);
            epilogue(epilogueBuffers, batch, top, bottom, first, last);
            return;
        }
        int aTop = aBase + top * left.outer(), cTop = cBase + top * columns, height = bottom - top;
        if (gemv) {
            Gemv.run((float[]) a, aTop, left, b, bBase, right.inner(), (float[]) c, cTop, columns, height, depth, first, last);
            epilogue(epilogueBuffers, batch, top, bottom, first, last);
        } else if (tinyWarm || (tinyWarm = tiny.getAsBoolean())) {
            int cAt = cTop + first;
            if (a instanceof float[] af) TinyProduct.run(af, aTop, left, (float[]) b, bBase, right, (float[]) c, cAt, columns, height, depth, first, last, SCRATCH);
            else DoubleTinyProduct.run((double[]) a, aTop, left, (double[]) b, bBase, right, (double[]) c, cAt, columns, height, depth, first, last, SCRATCH);
            epilogue(epilogueBuffers, batch, top, bottom, first, last);
        } else packed(batch, top, bottom, first, last, a, aBase, b, bBase, c, cBase, epilogueBuffers);
    }

    // The BLIS loops, apart from block so that C2 inlines the tiny path into run (8³: 3 ns).
    private void packed(int batch, int top, int bottom, int first, int last, Object a, int aBase, Object b, int bBase, Object c, int cBase,
                        Object[] epilogueBuffers) {
        var scratch = SCRATCH.get();
        boolean vector = vectorPacking.getAsBoolean();
        for (int jc = first; jc < last; jc += blocking.columns()) {
            int panelColumns = Math.min(blocking.columns(), last - jc);
            for (int pc = 0; pc < depth; pc += blocking.depth()) {
                int steps = Math.min(blocking.depth(), depth - pc);
                Object packedB = scratch.packedRight(tile.dtype(), roundUp(panelColumns, tile.columns()) * steps);
                if (b instanceof float[] bf) Packing.right(bf, bBase, right, pc, steps, jc, panelColumns, tile.columns(), (float[]) packedB, vector);
                else Packing.right((double[]) b, bBase, right, pc, steps, jc, panelColumns, tile.columns(), (double[]) packedB, vector);
                for (int ic = top; ic < bottom; ic += blocking.rows()) {
                    int blockRows = Math.min(blocking.rows(), bottom - ic);
                    Object packedA = scratch.packedLeft(tile.dtype(), roundUp(blockRows, tile.rows()) * steps);
                    if (a instanceof float[] af) Packing.left(af, aBase, left, ic, blockRows, pc, steps, tile.rows(), (float[]) packedA, vector);
                    else Packing.left((double[]) a, aBase, left, ic, blockRows, pc, steps, tile.rows(), (double[]) packedA, vector);
                    tiles(packedA, packedB, steps, c, cBase + ic * columns + jc, blockRows, panelColumns, pc > 0, scratch);
                    if (pc + steps == depth) epilogue(epilogueBuffers, batch, ic, ic + blockRows, jc, jc + panelColumns);
                }
            }
        }
    }

    /// One packed block: every register tile, full ones straight into C, edge ones via scratch.
    /// The micro-kernel is fetched per column of tiles, so a long first call switches to the
    /// vector tile as soon as it is warm.
    private void tiles(Object packedA, Object packedB, int steps, Object c, int cAt, int blockRows, int blockColumns, boolean accumulate, Scratch scratch) {
        for (int jr = 0; jr < blockColumns; jr += tile.columns()) {
            int width = Math.min(tile.columns(), blockColumns - jr);
            MicroKernel micro = tiles.get();
            for (int ir = 0; ir < blockRows; ir += tile.rows()) {
                int height = Math.min(tile.rows(), blockRows - ir), at = cAt + ir * columns + jr;
                if (height == tile.rows() && width == tile.columns()) {
                    micro.run(packedA, ir * steps, packedB, jr * steps, steps, c, at, columns, accumulate);
                } else {
                    Object edge = scratch.edge(tile.dtype(), tile.rows() * tile.columns());
                    micro.run(packedA, ir * steps, packedB, jr * steps, steps, edge, 0, tile.columns(), false);
                    Scratch.copyEdge(edge, tile.columns(), c, at, columns, height, width, accumulate);
                }
            }
        }
    }

    // The epilogue of rows [from, to) and columns [first, last): one contiguous run of points per row.
    private void epilogue(Object[] buffers, int batch, int from, int to, int first, int last) {
        if (epilogue == null) return;
        for (int m = from; m < to; m++) {
            int row = (batch * rows + m) * columns;
            epilogue.run(buffers, row + first, row + last);
        }
    }

    private static int roundUp(int value, int multiple) { return (value + multiple - 1) / multiple * multiple; }
}
