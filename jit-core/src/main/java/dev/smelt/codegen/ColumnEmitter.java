// SPDX-License-Identifier: Apache-2.0
package dev.smelt.codegen;

import static org.objectweb.asm.Opcodes.*;

import dev.smelt.ir.DType;
import dev.smelt.ir.ReduceOp;
import dev.smelt.kernel.Expr;
import dev.smelt.kernel.Kernel;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.Set;
import org.objectweb.asm.Type;

/// Emits `run` for a [ColumnPlan]: tiles of rows, one lane per row. For `sum(x, 0)` of a
/// row-major `f32[B, F]` (`kernel [F,B] reduce 1 { in0: f32 @0[1,F]; r0 = sum(in0); out0 = r0 }`)
/// on an AVX-512 host (16 lanes, tiles of 512 rows) the class is, as Java:
/// ```
/// public void run(Object[] buffers, int start, int end) {
///     float[] in0 = (float[]) buffers[0], out0 = (float[]) buffers[1];
///     float[] acc0 = new float[Math.min(512, end - start)];     // r0 of each row of a tile
///     for (int row = start; row < end; ) {
///         int i0 = row, j = i0;                                  // the row's indices; j: the column axis
///         int innerEnd = Math.min(F, j + (end - row));           // this line of rows ends at F or at `end`
///         int innerBound = j + ((innerEnd - j) & -16);
///         row += innerBound - j;
///         while (j < innerBound) {                               // a tile: rows -accumulatorLine … tileEnd
///             int accumulatorLine = -j;                          // (tileEnd = Math.min(j + 512, innerBound))
///             for (j = -accumulatorLine; j < tileEnd; j += 16)
///                 FloatVector.broadcast(SPECIES_F32, 0f).intoArray(acc0, accumulatorLine + j);
///             for (int i1 = 0; i1 < B; i1++) {                   // the reduced axes
///                 int line0 = 0 + i1 * F;
///                 for (j = -accumulatorLine; j < tileEnd; j += 16) {   // the tile's slice of row i1: contiguous
///                     FloatVector vacc0 = FloatVector.fromArray(SPECIES_F32, acc0, accumulatorLine + j);
///                     vacc0 = vacc0.add(FloatVector.fromArray(SPECIES_F32, in0, line0 + j));
///                     vacc0.intoArray(acc0, accumulatorLine + j);
///                 }
///             }
///             for (j = -accumulatorLine; j < tileEnd; j += 16)   // row outputs, r0 read from acc0
///                 FloatVector.fromArray(SPECIES_F32, acc0, accumulatorLine + j).intoArray(out0, 0 + j);
///             j = tileEnd;
///         }
///         for (start = row + innerEnd - innerBound; row < start; row++) <one row, as LoopEmitter's scalar loops>
///     }
/// }
/// ```
/// Reductions that read none of one another's results share one pass over the points
/// ([Kernel#reductionPasses]): their common values are computed once per point, and each input
/// streams once, not once per reduction. Each lane adds its row's points in the row's order, so lanes differ from the scalar kernel only
/// where vector arithmetic does (`f32` sums add in `float`, not `double`). Later reductions, full
/// outputs and row outputs read the results as vectors ([VectorEmitter] with row results). A
/// reduction that an [Expr.Element] reads keeps each point's values for the tile in its element
/// array, at `(reduced point) · tile + (j - tile start)`, which is `elementLine + j`. `start` is
/// dead once `row` holds it and then ends the rows left over.
final class ColumnEmitter {
    private final Code code;
    private final Kernel kernel;
    private final ColumnPlan plan;
    private final LoopSpace columns;
    private final KernelLayout layout;
    private final int lanes;
    private final LoopEmitter rowLoops, columnLoops;
    private final VectorEmitter vector;
    private final SumOrder order;
    private final ColumnTileBlocks tileBlocks;

    ColumnEmitter(Code code, Kernel kernel, LoopSpace space, ColumnPlan plan, KernelLayout layout, VectorPlan vectorPlan,
                  String className, Set<Integer> strideMaps) {
        this.code = code;
        this.kernel = kernel;
        this.plan = plan;
        this.columns = plan.columns();
        this.layout = layout;
        this.lanes = vectorPlan.lanes();
        this.order = SumOrder.of(vectorPlan, plan);
        this.rowLoops = new LoopEmitter(code, kernel, space, layout, new ScalarEmitter(code, kernel, space, layout), null, vectorPlan, order, new ArrayList<>());
        var scalar = new ScalarEmitter(code, kernel, columns, layout);
        this.vector = new VectorEmitter(code, kernel, columns, layout, vectorPlan, scalar, className, strideMaps, layout.vectorAccumulators());
        this.columnLoops = new LoopEmitter(code, kernel, columns, layout, scalar, vector, vectorPlan, order, new ArrayList<>());
        this.tileBlocks = new ColumnTileBlocks(code, kernel, layout, layout.axis(plan.columnAxis()), layout.axis(columns.outerRank()), body -> overTile(1, body));
    }

    // <arrays>; <element and accumulator arrays>; for (row = start; row < end; ) <segment>; return
    void run(BitSet used, List<Integer> fullOutputs, List<Integer> rowOutputs) {
        rowLoops.loadArrays(used);
        allocateArrays();
        code.loadInt(layout.start());
        code.storeInt(layout.row());
        code.whileLess(layout.row(), layout.end(), () -> segment(fullOutputs, rowOutputs));
        code.op(RETURN);
    }

    // float[] element1 = new float[rowLength * tile]; …   (a LoopEmitter row uses the first rowLength)
    // float[] acc0 = new float[Math.min(tile, end - start)]; …   (an arg-reduction: int[] acc0 and float[] best0)
    // A tile never holds more rows than the call has, and a small kernel's call has few: sized by
    // the tile alone, the accumulators of an Adam step's bias sums were most of what the step
    // allocated. Element arrays keep the tile as their stride.
    private void allocateArrays() {
        for (int k = 0; k < kernel.reductions().size(); k++) {
            var dtype = kernel.reductions().get(k).dtype();
            if (layout.elements().get(k) >= 0) {
                code.pushInt(kernel.rowLength() * plan.tile());
                code.newArray(kernel.reductions().get(k).value().dtype());
                code.store(Type.getType(Object.class), layout.elements().get(k));
            }
            pushAccumulatorLength();
            code.newArray(dtype);
            code.store(Type.getType(Object.class), layout.vectorAccumulators().get(k));
            if (order.blocked(kernel, k)) { // double[] blocks0 = new double[Math.min(tile, end - start)]   (ColumnTileBlocks)
                pushAccumulatorLength();
                code.newArray(DType.F64);
                code.store(Type.getType(Object.class), layout.laneArrays().get(k));
            }
            if (kernel.reductions().get(k).op().isArg()) {
                pushAccumulatorLength();
                code.newArray(kernel.reductions().get(k).value().dtype());
                code.store(Type.getType(Object.class), layout.secondAccumulators().get(k));
            }
        }
    }

    // Math.min(tile, end - start)
    private void pushAccumulatorLength() {
        code.pushInt(plan.tile());
        code.loadInt(layout.end());
        code.loadInt(layout.start());
        code.op(ISUB);
        JavaApi.MIN_INT.invoke(code.mv);
    }

    /// The rows from `row` to the end of its line along the column axis (or to `end`):
    /// ```
    /// i0 = …; j = <the row's index on the column axis>;
    /// innerEnd = Math.min(dim, j + (end - row));
    /// innerBound = j + ((innerEnd - j) & -LANES);
    /// row += innerBound - j;
    /// while (j < innerBound) <tile>
    /// for (start = row + innerEnd - innerBound; row < start; row++) { <row indices>; <the row as LoopEmitter emits it> }
    /// ```
    private void segment(List<Integer> fullOutputs, List<Integer> rowOutputs) {
        int row = layout.row(), j = layout.axis(plan.columnAxis());
        rowLoops.rowIndices(row);
        code.loadInt(layout.axis(columns.outerRank()));
        code.storeInt(j);
        code.pushInt(columns.dim(plan.columnAxis()));
        code.loadInt(j);
        code.loadInt(layout.end());
        code.loadInt(row);
        code.op(ISUB);
        code.op(IADD);
        JavaApi.MIN_INT.invoke(code.mv);
        code.storeInt(layout.innerEnd());
        code.loadInt(j);
        code.loadInt(layout.innerEnd());
        code.loadInt(j);
        code.op(ISUB);
        code.pushInt(-lanes);
        code.op(IAND);
        code.op(IADD);
        code.storeInt(layout.innerBound());
        code.loadInt(row);
        code.loadInt(layout.innerBound());
        code.loadInt(j);
        code.op(ISUB);
        code.op(IADD);
        code.storeInt(row);
        code.whileLess(j, layout.innerBound(), () -> tile(fullOutputs, rowOutputs));
        code.loadInt(row);
        code.loadInt(layout.innerEnd());
        code.op(IADD);
        code.loadInt(layout.innerBound());
        code.op(ISUB);
        code.storeInt(layout.start());
        code.forLoop(row, layout.start(), 1, () -> {
            rowLoops.rowIndices(row);
            kernel.reductionPasses().forEach(rowLoops::reductions);
            if (!fullOutputs.isEmpty()) rowLoops.fullOutputs(fullOutputs);
            if (!rowOutputs.isEmpty()) rowLoops.rowOutputs(rowOutputs);
        });
    }

    // accumulatorLine = -j; <each reduction>; for (<reduced points>) <full outputs>; <row outputs>; j = tileEnd
    private void tile(List<Integer> fullOutputs, List<Integer> rowOutputs) {
        code.loadInt(layout.axis(plan.columnAxis()));
        code.op(INEG);
        code.storeInt(layout.accumulatorLine());
        for (var pass : kernel.reductionPasses()) {
            if (kernel.reductions().get(pass.getFirst()).op().isArg()) argReduction(pass.getFirst());
            else reductions(pass);
        }
        if (!fullOutputs.isEmpty()) {
            code.line(columnLoops.outputLine(fullOutputs.getFirst()));
            var values = values(fullOutputs);
            overPoints(columnLoops.buffersOf(fullOutputs), () -> overTile(() -> {
                vector.computeShared(values);
                fullOutputs.forEach(i -> { code.line(columnLoops.outputLine(i)); vector.emitStore(i); });
            }));
        }
        if (!rowOutputs.isEmpty()) {
            columnLoops.lines(columnLoops.buffersOf(rowOutputs));
            var values = values(rowOutputs);
            overTile(() -> {
                vector.computeShared(values);
                rowOutputs.forEach(i -> { code.line(columnLoops.outputLine(i)); vector.emitStore(i); });
            });
        }
        pushTileEnd();
        code.storeInt(layout.axis(plan.columnAxis()));
    }

    // for (j = -accumulatorLine; j < tileEnd; j += LANES) XVector.broadcast(SPECIES_X, identity).intoArray(acc<k>, accumulatorLine + j);   (each k of the pass)
    // for (<reduced points>) for (j = -accumulatorLine; j < tileEnd; j += LANES) {
    //     <the pass's shared values>;
    //     vacc = XVector.fromArray(SPECIES_X, acc<k>, accumulatorLine + j);   (each k of the pass)
    //     vacc = vacc.add(<value>);                  (kept: <value>.intoArray(element<k>, elementLine + j) first)
    //     vacc.intoArray(acc<k>, accumulatorLine + j);
    // }
    private void reductions(List<Integer> pass) {
        code.line(2 + kernel.inputs().size() + pass.getFirst());
        overTile(() -> pass.forEach(k -> {
            var reduction = kernel.reductions().get(k);
            vector.pushConstant(reduction.dtype(), reduction.op().identity());
            storeRowVector(layout.vectorAccumulators().get(k), reduction.dtype());
        }));
        var values = pass.stream().map(k -> kernel.reductions().get(k).value()).toList();
        var buffers = new BitSet();
        values.forEach(value -> buffers.or(LoopSpace.loads(value)));
        var blocked = pass.stream().filter(k -> order.blocked(kernel, k)).toList();
        overPoints(buffers, () -> {
            overTile(() -> {
                vector.computeShared(values);
                for (int k : pass) {
                    int lanesOfRows = layout.secondAccumulators().get(k);
                    code.line(2 + kernel.inputs().size() + k);
                    vector.emit(new Expr.Accumulated(k, kernel.reductions().get(k).dtype()));
                    code.store(Type.getType(Object.class), lanesOfRows);
                    vector.folds.foldValues(k, lanesOfRows);
                    vector.loadTemp(lanesOfRows);
                    storeRowVector(layout.vectorAccumulators().get(k), kernel.reductions().get(k).dtype());
                }
            });
            if (!blocked.isEmpty()) tileBlocks.flush(blocked);
        });
        if (!blocked.isEmpty()) tileBlocks.finish(blocked);
    }

    /// `argmax`, with NaN the extreme and the first of ties, as [LoopEmitter]'s scalar update (which
    /// starts from the first point; starting from -∞ and index 0 gives the same answer):
    /// ```
    /// for (j = -accumulatorLine; j < tileEnd; j += LANES) {
    ///     FloatVector.broadcast(SPECIES_F32, Float.NEGATIVE_INFINITY).intoArray(best<k>, accumulatorLine + j);
    ///     IntVector.broadcast(SPECIES_I32, 0).intoArray(acc<k>, accumulatorLine + j);
    /// }
    /// for (i1 = 0; i1 < dim1; i1++) { line<b> = …; for (j = -accumulatorLine; j < tileEnd; j += LANES) {
    ///     FloatVector v = <value>, best = FloatVector.fromArray(SPECIES_F32, best<k>, accumulatorLine + j);
    ///     VectorMask<Float> take = best.compare(EQ, best).and(v.compare(NE, v).or(v.compare(GT, best)));  // i32: v.compare(GT, best)
    ///     best.blend(v, take).intoArray(best<k>, accumulatorLine + j);
    ///     IntVector.fromArray(SPECIES_I32, acc<k>, accumulatorLine + j)
    ///             .blend(IntVector.broadcast(SPECIES_I32, i1), take.cast(SPECIES_I32)).intoArray(acc<k>, accumulatorLine + j);
    /// } }
    /// ```
    /// `argmin` compares with LT and starts from +∞.
    private void argReduction(int k) {
        var reduction = kernel.reductions().get(k);
        var values = reduction.value().dtype();
        var valueMethods = VectorApi.of(values);
        int indices = layout.vectorAccumulators().get(k), bests = layout.secondAccumulators().get(k);
        code.line(2 + kernel.inputs().size() + k);
        overTile(() -> {
            vector.pushConstant(values, reduction.op().identity());
            storeRowVector(bests, values);
            vector.pushConstant(DType.I32, 0);
            storeRowVector(indices, DType.I32);
        });
        var comparison = reduction.op() == ReduceOp.ARGMAX ? VectorApi.GT : VectorApi.LT;
        overPoints(LoopSpace.loads(reduction.value()), () -> overTile(() -> vector.withTemp(v -> vector.withTemp(best -> vector.withTemp(take -> {
            vector.computeShared(List.of(reduction.value()));
            vector.emit(reduction.value());
            code.store(Type.getType(Object.class), v);
            vector.pushSpecies(values);
            code.load(Type.getType(Object.class), bests);
            vector.pushRowResultPosition();
            valueMethods.fromArray().invoke(code.mv);
            code.store(Type.getType(Object.class), best);
            if (values.isFloating()) {
                compare(best, VectorApi.EQ, best, values);
                compare(v, VectorApi.NE, v, values);
                compare(v, comparison, best, values);
                VectorApi.MASK_OR.invoke(code.mv);
                VectorApi.MASK_AND.invoke(code.mv);
            } else compare(v, comparison, best, values);
            code.store(Type.getType(Object.class), take);
            vector.loadTemp(best);
            vector.loadTemp(v);
            vector.loadTemp(take);
            valueMethods.blend().invoke(code.mv);
            storeRowVector(bests, values);
            vector.pushSpecies(DType.I32);
            code.load(Type.getType(Object.class), indices);
            vector.pushRowResultPosition();
            VectorApi.INT.fromArray().invoke(code.mv);
            vector.pushSpecies(DType.I32);
            code.loadInt(layout.axis(columns.outerRank()));
            VectorApi.INT.broadcast().invoke(code.mv);
            vector.loadTemp(take);
            vector.castMask(values, DType.I32);
            VectorApi.INT.blend().invoke(code.mv);
            storeRowVector(indices, DType.I32);
        })))));
    }

    // a.compare(OP, b)
    private void compare(int a, FieldRef op, int b, DType dtype) {
        vector.loadTemp(a);
        op.get(code.mv);
        vector.loadTemp(b);
        VectorApi.of(dtype).compare().invoke(code.mv);
    }

    // <vector on the stack>.intoArray(array, accumulatorLine + j)
    private void storeRowVector(int array, DType dtype) {
        code.load(Type.getType(Object.class), array);
        vector.pushRowResultPosition();
        VectorApi.of(dtype).intoArray().invoke(code.mv);
    }

    // for (j = -accumulatorLine; j < Math.min(-accumulatorLine + tile, innerBound); j += LANES) <body>
    private void overTile(Runnable body) { overTile(lanes, body); }

    // for (j = -accumulatorLine; j < Math.min(-accumulatorLine + tile, innerBound); j += step) <body>
    private void overTile(int step, Runnable body) {
        int j = layout.axis(plan.columnAxis());
        code.loadInt(layout.accumulatorLine());
        code.op(INEG);
        code.storeInt(j);
        code.forLoop(j, this::pushTileEnd, step, body);
    }

    // Math.min(-accumulatorLine + tile, innerBound)
    private void pushTileEnd() {
        code.loadInt(layout.accumulatorLine());
        code.op(INEG);
        code.pushInt(plan.tile());
        code.op(IADD);
        code.loadInt(layout.innerBound());
        JavaApi.MIN_INT.invoke(code.mv);
    }

    /// ```
    /// for (i1 = 0; i1 < dim1; i1++) … {                            // the reduced axes
    ///     line<b> = offset<b> + i0 * stride<b,0> + i1 * stride<b,1> + …;   // for each buffer in `buffers`
    ///     elementLine = accumulatorLine + (i1 * after1 + …) * tile;  // when some reduction keeps its values
    ///     <body>
    /// }
    /// ```
    private void overPoints(BitSet buffers, Runnable body) {
        nest(columns.outerRank(), buffers, body);
    }

    private void nest(int axis, BitSet buffers, Runnable body) {
        if (axis < plan.columnAxis()) {
            code.forRange(layout.axis(axis), columns.dim(axis), () -> nest(axis + 1, buffers, body));
            return;
        }
        columnLoops.lines(buffers);
        if (!LoopSpace.elements(kernel).isEmpty()) elementLine();
        body.run();
    }

    // elementLine = accumulatorLine + (i1 * after1 + …) * tile   (after: the points of the reduced axes after i1)
    private void elementLine() {
        code.loadInt(layout.accumulatorLine());
        int after = plan.tile();
        for (int axis = plan.columnAxis() - 1; axis >= columns.outerRank(); axis--) {
            code.loadInt(layout.axis(axis));
            code.pushInt(after);
            code.op(IMUL);
            code.op(IADD);
            after *= columns.dim(axis);
        }
        code.storeInt(layout.elementLine());
    }

    private List<Expr> values(List<Integer> outputs) {
        return outputs.stream().map(i -> kernel.outputs().get(i).value()).toList();
    }
}
