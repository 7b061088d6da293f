// SPDX-License-Identifier: Apache-2.0
package dev.smelt.codegen;

import static org.objectweb.asm.Opcodes.*;

import dev.smelt.ir.DType;
import dev.smelt.ir.ReduceOp;
import dev.smelt.kernel.Kernel;
import java.util.BitSet;
import java.util.List;
import org.objectweb.asm.Type;

/// Emits the loops of one generated method: the rows, the reduced axes of a row, and the inner
/// axis, which has a vector main loop (when `vector` is set and the loop's body allows it) and then
/// a scalar tail. Each section (a pass of reductions, the full outputs, the row outputs) is one method here.
final class LoopEmitter {
    /// A loop body: the scalar form, the vector form or null, and for a reduction the vector form
    /// folding into its second accumulators (the loop is then unrolled by two), or null.
    private record Body(Runnable scalar, Runnable vector, Runnable secondVector) {
        Body(Runnable scalar, Runnable vector) { this(scalar, vector, null); }
    }

    private final Code code;
    private final Kernel kernel;
    private final LoopSpace space;
    private final KernelLayout layout;
    private final ScalarEmitter scalar;
    private final VectorEmitter vector;
    private final VectorPlan plan;
    private final SumOrder order;
    private final List<String> fallbacks;
    private final ScalarFolds folds;
    private final BlockedSums blocks;

    LoopEmitter(Code code, Kernel kernel, LoopSpace space, KernelLayout layout, ScalarEmitter scalar, VectorEmitter vector,
                VectorPlan plan, SumOrder order, List<String> fallbacks) {
        this.fallbacks = fallbacks;
        this.order = order;
        this.folds = new ScalarFolds(code, kernel, space, layout, scalar, order);
        this.code = code;
        this.kernel = kernel;
        this.space = space;
        this.layout = layout;
        this.scalar = scalar;
        this.vector = vector;
        this.plan = plan;
        this.blocks = new BlockedSums(code, kernel, space, layout, order, folds, vector, plan);
    }

    // float[] in0 = (float[]) buffers[0]; …   for each buffer in `buffers`
    void loadArrays(BitSet buffers) {
        for (int b = buffers.nextSetBit(0); b >= 0; b = buffers.nextSetBit(b + 1)) {
            code.load(Type.getType(Object.class), layout.buffers());
            code.pushInt(b);
            code.op(AALOAD);
            code.mv.visitTypeInsn(CHECKCAST, "[" + Code.elementType(dtypeOf(b)).getDescriptor());
            code.store(Type.getType(Object.class), layout.array(b));
        }
    }

    // float[] element1 = new float[rowLength]; …   for each reduction an Expr.Element reads
    void allocateElements() {
        for (int k = 0; k < kernel.reductions().size(); k++) {
            if (layout.elements().get(k) < 0) continue;
            code.pushInt(kernel.rowLength());
            code.newArray(kernel.reductions().get(k).value().dtype());
            code.store(Type.getType(Object.class), layout.elements().get(k));
        }
    }

    // float[] lanes0 = LaneSums.floats(2 * LANES); …   for each of `reductions` that scalar code sums in lanes (SumOrder)
    void allocateLanes(List<Integer> reductions) {
        if (vector == null) folds.allocateLanes(reductions);
    }

    // for (row = start; row < end; row++) <body>
    void rows(Runnable body) {
        code.loadInt(layout.start());
        code.storeInt(layout.row());
        code.forLoop(layout.row(), layout.end(), 1, body);
    }

    // rest = row; i1 = rest % dim1; rest /= dim1; i0 = rest   (the outer indices of the row in `slot`)
    void rowIndices(int slot) { decompose(slot, space.outerRank()); }

    /// A pointwise kernel's rows are its points. Walks `[start, end)` in segments that each lie on
    /// one line of the inner axis:
    /// ```
    /// for (int point = start; point < end; point += innerEnd - j) {
    ///     i0 = point / …; j = point % dim;                        // the point's indices
    ///     line0 = offset0 + i0 * stride0; …                       // each buffer at j = 0
    ///     innerEnd = Math.min(dim, j + (end - point));            // one loop: innerEnd = j + (end - point)
    ///     <inner loop over j>
    /// }
    /// ```
    /// With one loop, `j` is the point and the segment ends at `end`: the code never reads the
    /// extent, so one class serves every extent ([RowExtent]).
    void points(List<Integer> outputs) {
        int point = layout.row(), j = layout.axis(space.inner());
        boolean oneLoop = space.rank() == 1;
        code.line(outputLine(outputs.getFirst()));
        code.loadInt(layout.start());
        code.storeInt(point);
        code.whileLess(point, layout.end(), () -> {
            decompose(point, space.rank());
            lines(buffersOf(outputs));
            if (!oneLoop) code.pushInt(space.dim(space.inner()));
            code.loadInt(j);
            code.loadInt(layout.end());
            code.loadInt(point);
            code.op(ISUB);
            code.op(IADD);
            if (!oneLoop) JavaApi.MIN_INT.invoke(code.mv);
            code.storeInt(layout.innerEnd());
            code.loadInt(point);
            code.loadInt(layout.innerEnd());
            code.loadInt(j);
            code.op(ISUB);
            code.op(IADD);
            code.storeInt(point);
            innerLoop(outputsBody(outputs));
        });
    }

    /// `r<k> = <op>(<value>)`: folds the row, vector lanes first when the plan allows, then the
    /// scalar tail, then finishes: `r0 = (float) acc` for an `f32` sum, the index for `argmax`.
    /// When an [dev.smelt.kernel.Expr.Element] reads the reduction, each point's value is also
    /// stored in its element array. A sum in lanes ([SumOrder]) ends alike in both variants:
    /// ```
    /// acc = acc + (double) total(vacc.add(vacc2));     // vector code: the lanes halved with shuffles (VectorFolds.sumLanes)
    /// acc = acc + (double) LaneSums.sum(lanes0);         // scalar code, which folded into lanes0
    /// ```
    /// The reductions of one pass ([Kernel#reductionPasses]) fold in one loop over the row, their
    /// shared values computed once per point, when all or none of them have a vector loop;
    /// otherwise each folds in a loop of its own.
    void reductions(List<Integer> pass) {
        var reasons = pass.stream().map(k -> plan == null ? List.<String>of() : plan.whyScalar(kernel, space, k)).toList();
        if (vectorLoop() && reasons.stream().map(List::isEmpty).distinct().count() > 1) {
            pass.forEach(k -> reductions(List.of(k)));
            return;
        }
        boolean vectorizable = true;
        if (vectorLoop()) for (var why : reasons) vectorizable &= vectorizable(why);
        boolean vectorized = vectorLoop() && vectorizable;
        code.line(2 + kernel.inputs().size() + pass.getFirst());
        for (int k : pass) start(k, vectorized);
        var values = pass.stream().map(k -> kernel.reductions().get(k).value()).toList();
        var buffers = new BitSet();
        pass.forEach(k -> buffers.or(LoopSpace.reductionBuffers(kernel, k)));
        overRow(buffers, values, new Body(() -> {
            scalar.computeShared(values);
            for (int k : pass) folds.fold(k, order.striped(kernel, space, k) && !vectorized);
            if (!vectorized) blocks.flushLanes(pass, false);
            blocks.flushColumn(pass);
        }, vectorized ? () -> {
            vector.computeShared(values);
            for (int k : pass) vector.folds.fold(k, layout.vectorAccumulators().get(k));
        } : null, vectorized ? () -> {
            vector.computeShared(values);
            for (int k : pass) vector.folds.fold(k, layout.secondAccumulators().get(k));
            blocks.flushLanes(pass, true);
        } : null));
        for (int k : pass) end(k, vectorized);
    }

    // acc = identity; bestIndex = 0; vacc = vacc2 = identity (or Arrays.fill(lanes<k>, 0f))
    private void start(int k, boolean vectorized) {
        var reduction = kernel.reductions().get(k);
        var accumulator = order.accumulator(reduction);
        code.pushConstant(dtypeOf(accumulator), reduction.op().isArg() ? 0 : reduction.op().identity());
        code.store(accumulator, layout.accumulators().get(k));
        blocks.startColumn(k);
        code.pushInt(0);
        code.storeInt(layout.bestIndices().get(k));
        boolean striped = order.striped(kernel, space, k);
        boolean floatingSum = reduction.op() == ReduceOp.SUM && reduction.dtype().isFloating();
        if (vector != null && striped != (vectorized && floatingSum)) throw new IllegalStateException("r%d: the sum order does not follow the vector loop".formatted(k));
        if (vectorized) {
            vector.folds.initAccumulator(reduction, layout.vectorAccumulators().get(k));
            vector.folds.initAccumulator(reduction, layout.secondAccumulators().get(k));
        } else if (striped) folds.fillLanes(k);
    }

    // acc = op(acc, <the lanes>); r<k> = (float) acc
    private void end(int k, boolean vectorized) {
        var reduction = kernel.reductions().get(k);
        var accumulator = order.accumulator(reduction);
        boolean striped = order.striped(kernel, space, k);
        int lanes = layout.vectorAccumulators().get(k), second = layout.secondAccumulators().get(k);
        if (vectorized && !striped) {
            // acc = Math.max(acc, vacc.max(vacc2).reduceLanes(MAX))
            vector.folds.combineAccumulators(reduction, lanes, second);
            code.load(accumulator, layout.accumulators().get(k));
            vector.folds.reduceLanes(reduction, lanes);
            folds.combine(reduction.op(), accumulator);
            code.store(accumulator, layout.accumulators().get(k));
        }
        if (striped) folds.addLanes(k, vectorized ? () -> vector.folds.sumLanes(reduction, lanes, second, plan.lanes()) : null);
        blocks.endColumn(k);
        folds.finish(k);
    }

    // out<i>[…] = <value> at every point of the row
    void fullOutputs(List<Integer> outputs) {
        code.line(outputLine(outputs.getFirst()));
        overRow(buffersOf(outputs), values(outputs), outputsBody(outputs));
    }

    // out<i>[line] = <value>, once per row
    void rowOutputs(List<Integer> outputs) {
        lines(buffersOf(outputs));
        scalar.computeShared(values(outputs));
        for (int i : outputs) {
            code.line(outputLine(i));
            scalar.emitStore(i);
        }
    }

    private Body outputsBody(List<Integer> outputs) {
        var values = values(outputs);
        Runnable scalarStores = () -> {
            scalar.computeShared(values);
            outputs.forEach(i -> { code.line(outputLine(i)); scalar.emitStore(i); });
        };
        boolean vectorized = vectorLoop() && vectorizable(plan.whyScalar(kernel, space, outputs));
        return new Body(scalarStores, vectorized ? () -> {
            vector.computeShared(values);
            outputs.forEach(i -> { code.line(outputLine(i)); vector.emitStore(i); });
        } : null);
    }

    private List<dev.smelt.kernel.Expr> values(List<Integer> outputs) {
        return outputs.stream().map(i -> kernel.outputs().get(i).value()).toList();
    }

    /// Whether inner loops get a vector main loop at all: not in scalar kernels, nor where the inner
    /// axis is shorter than a vector, unless it is a pointwise kernel's one loop, whose extent is the
    /// row count (never read, see [RowExtent]).
    private boolean vectorLoop() {
        return vector != null && (kernel.reducedRank() == 0 && space.rank() == 1 || space.dim(space.inner()) >= plan.lanes());
    }

    /// Whether a loop gets a vector main loop: when nothing says it must run scalar. Records the reasons.
    private boolean vectorizable(List<String> reasons) {
        fallbacks.addAll(reasons);
        return reasons.isEmpty();
    }

    // float row0 = <value>; …   for (i1 = 0; i1 < dim1; i1++) … { lines; for (j = 0; j < dim; …) <body> }
    // over the reduced axes, with each of `values`' RowValues computed once, before the loops
    private void overRow(BitSet buffers, List<dev.smelt.kernel.Expr> values, Body body) {
        RowValues.around(values, scalar, () -> nest(space.outerRank(), buffers, body));
    }

    private void nest(int axis, BitSet buffers, Body body) {
        if (axis < space.inner()) {
            code.forRange(layout.axis(axis), space.dim(axis), () -> nest(axis + 1, buffers, body));
            return;
        }
        lines(buffers);
        if (space.rowHasLines() && !LoopSpace.elements(kernel).isEmpty()) elementLine();
        code.pushInt(0);
        code.storeInt(layout.axis(axis));
        code.pushInt(space.dim(axis));
        code.storeInt(layout.innerEnd());
        innerLoop(body);
    }

    /// ```
    /// <for a reduction: pairs of vectors, as above, into two accumulators>
    /// for (innerBound = j + SPECIES.loopBound(innerEnd - j); j < innerBound; j += LANES) <vector body>
    /// for (; j < innerEnd; j++) <scalar body>
    /// ```
    private void innerLoop(Body body) {
        int j = layout.axis(space.inner());
        if (body.secondVector() != null) {
            // innerBound = j + ((innerEnd - j) & -(2 * LANES));
            // for (; j < innerBound; j += LANES) { <vector body>; j += LANES; <second vector body> }
            code.loadInt(j);
            code.loadInt(layout.innerEnd());
            code.loadInt(j);
            code.op(ISUB);
            code.pushInt(-2 * plan.lanes());
            code.op(IAND);
            code.op(IADD);
            code.storeInt(layout.innerBound());
            code.forLoop(j, layout.innerBound(), plan.lanes(), () -> {
                body.vector().run();
                code.mv.visitIincInsn(j, plan.lanes());
                body.secondVector().run();
            });
        }
        if (body.vector() != null) {
            code.loadInt(j);
            vector.pushSpecies(plan.maskType());
            code.loadInt(layout.innerEnd());
            code.loadInt(j);
            code.op(ISUB);
            VectorApi.LOOP_BOUND.invoke(code.mv);
            code.op(IADD);
            code.storeInt(layout.innerBound());
            code.forLoop(j, layout.innerBound(), plan.lanes(), body.vector());
        }
        code.forLoop(j, layout.innerEnd(), 1, body.scalar());
    }

    // line<b> = offset<b> + i0 * stride<b,0> + …   (every axis but the inner one)
    void lines(BitSet buffers) {
        for (int b = buffers.nextSetBit(0); b >= 0; b = buffers.nextSetBit(b + 1)) {
            code.pushInt(space.offsets().get(b));
            for (int axis = 0; axis < space.inner(); axis++) {
                int stride = space.stride(b, axis);
                if (stride == 0) continue;
                code.loadInt(layout.axis(axis));
                if (stride != 1) {
                    code.pushInt(stride);
                    code.op(IMUL);
                }
                code.op(IADD);
            }
            code.storeInt(layout.line(b));
        }
    }

    // elementLine = i1 * elementStride1 + …   (the reduced axes but the inner one)
    private void elementLine() {
        code.pushInt(0);
        for (int axis = space.outerRank(); axis < space.inner(); axis++) {
            code.loadInt(layout.axis(axis));
            code.pushInt(space.elementStride(axis));
            code.op(IMUL);
            code.op(IADD);
        }
        code.storeInt(layout.elementLine());
    }

    // rest = flat; i<n-1> = rest % dim; rest /= dim; …; i0 = rest   (axes 0 until `to`)
    private void decompose(int flat, int to) {
        if (to == 0) return;
        code.loadInt(flat);
        code.storeInt(layout.rest());
        for (int axis = to - 1; axis > 0; axis--) {
            code.loadInt(layout.rest());
            code.pushInt(space.dim(axis));
            code.op(IREM);
            code.storeInt(layout.axis(axis));
            code.loadInt(layout.rest());
            code.pushInt(space.dim(axis));
            code.op(IDIV);
            code.storeInt(layout.rest());
        }
        code.loadInt(layout.rest());
        code.storeInt(layout.axis(0));
    }

    /// The buffers that writing `outputs` touches: the outputs and what their values load.
    BitSet buffersOf(List<Integer> outputs) {
        var buffers = new BitSet();
        for (int i : outputs) {
            buffers.set(kernel.inputs().size() + i);
            buffers.or(LoopSpace.loads(kernel.outputs().get(i).value()));
        }
        return buffers;
    }

    int outputLine(int output) { return 2 + kernel.inputs().size() + kernel.reductions().size() + output; }

    private DType dtypeOf(int buffer) {
        int inputs = kernel.inputs().size();
        return buffer < inputs ? kernel.inputs().get(buffer).dtype() : kernel.outputs().get(buffer - inputs).dtype();
    }

    private static DType dtypeOf(Type type) {
        return type == Type.DOUBLE_TYPE ? DType.F64 : type == Type.FLOAT_TYPE ? DType.F32 : DType.I32;
    }
}
