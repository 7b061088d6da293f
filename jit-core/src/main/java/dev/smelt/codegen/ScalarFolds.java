// SPDX-License-Identifier: Apache-2.0
package dev.smelt.codegen;

import static org.objectweb.asm.Opcodes.*;

import dev.smelt.ir.DType;
import dev.smelt.ir.ReduceOp;
import dev.smelt.kernel.Kernel;
import java.util.List;
import org.objectweb.asm.Type;

/// Folds a kernel's reductions one point at a time, for [LoopEmitter]'s scalar loops: into the
/// reduction's accumulator, or, for a sum the vector variant adds in lanes ([SumOrder]), into the
/// lane that vector code would use, so that both variants end with the same bits. Finishes a
/// reduction into its result.
final class ScalarFolds {
    private final Code code;
    private final Kernel kernel;
    private final LoopSpace space;
    private final KernelLayout layout;
    private final ScalarEmitter scalar;
    private final SumOrder order;

    ScalarFolds(Code code, Kernel kernel, LoopSpace space, KernelLayout layout, ScalarEmitter scalar, SumOrder order) {
        this.code = code;
        this.kernel = kernel;
        this.space = space;
        this.layout = layout;
        this.scalar = scalar;
        this.order = order;
    }

    // float[] lanes0 = LaneSums.floats(2 * LANES, <its place in its pass>); …   for each of `reductions` that sums in lanes
    void allocateLanes(List<Integer> reductions) {
        for (int k : reductions) {
            if (!order.striped(kernel, space, k)) continue;
            code.pushInt(order.places());
            code.pushInt(placeInPass(k));
            (kernel.reductions().get(k).dtype() == DType.F32 ? JavaApi.FLOAT_LANES : JavaApi.DOUBLE_LANES).invoke(code.mv);
            code.store(Type.getType(Object.class), layout.laneArrays().get(k));
        }
    }

    private int placeInPass(int k) {
        for (var pass : kernel.reductionPasses()) if (pass.contains(k)) return pass.indexOf(k);
        throw new IllegalStateException("r%d is in no pass".formatted(k));
    }

    // Arrays.fill(lanes<k>, 0f)
    void fillLanes(int k) {
        var dtype = kernel.reductions().get(k).dtype();
        code.load(Type.getType(Object.class), layout.laneArrays().get(k));
        code.pushConstant(dtype, 0);
        (dtype == DType.F32 ? JavaApi.FILL_FLOAT : JavaApi.FILL_DOUBLE).invoke(code.mv);
    }

    // acc = acc + (double) <value>  /  Math.max(acc, <value>)  /  the arg-reduction update
    // kept: candidate = <value>; element<k>[elementLine + j] = candidate; acc = acc + (double) candidate
    // in lanes (SumOrder): candidate = <value>;
    //     if (j < dim & -LANES) lanes<k>[j & (2 * LANES - 1)] += candidate; else acc = acc + (double) candidate;
    void fold(int k, boolean inLanes) {
        var reduction = kernel.reductions().get(k);
        var accumulator = order.accumulator(reduction);
        var valueType = Code.scalarType(reduction.value().dtype());
        int slot = layout.accumulators().get(k);
        if (reduction.op().isArg()) {
            scalar.emit(reduction.value());
            code.store(accumulator, layout.candidate());
            ArgUpdate.emit(code, layout.candidate(), layout.axis(space.inner()), reduction.op(), accumulator, slot, layout.bestIndices().get(k));
            return;
        }
        boolean kept = scalar.keeps(k);
        if (kept || inLanes) {
            scalar.emit(reduction.value());
            code.store(valueType, layout.candidate());
        }
        if (kept) scalar.storeElement(k, () -> code.load(valueType, layout.candidate()));
        Runnable toAccumulator = () -> {
            code.load(accumulator, slot);
            if (kept || inLanes) code.load(valueType, layout.candidate());
            else scalar.emit(reduction.value());
            if (accumulator != valueType) code.op(F2D);
            combine(reduction.op(), accumulator);
            code.store(accumulator, slot);
        };
        if (!inLanes) {
            toAccumulator.run();
            return;
        }
        int j = layout.axis(space.inner());
        code.loadInt(j);
        code.pushInt(space.dim(space.inner()) & -order.lanes().lanes());
        code.ifElse(IF_ICMPGE, () -> {
            code.load(Type.getType(Object.class), layout.laneArrays().get(k));
            code.loadInt(j);
            code.pushInt(order.places() - 1);
            code.op(IAND);
            code.op(DUP2);
            code.op(valueType.getOpcode(IALOAD));
            code.load(valueType, layout.candidate());
            combine(reduction.op(), valueType);
            code.op(valueType.getOpcode(IASTORE));
        }, toAccumulator);
    }

    void combine(ReduceOp op, Type accumulator) {
        switch (op) {
            case SUM -> code.op(accumulator.getOpcode(IADD));
            case PROD -> code.op(accumulator.getOpcode(IMUL));
            case MAX -> scalar.maximum(accumulator);
            case MIN -> scalar.minimum(accumulator);
            case ARGMAX, ARGMIN -> throw new IllegalStateException("arg-reductions keep an index");
        }
    }

    // acc = acc + (double) LaneSums.sum(lanes<k>)   (a sum in lanes: see SumOrder; `vectors` pushes
    // the vector loop's total instead, when it ran)
    void addLanes(int k, Runnable vectors) {
        var reduction = kernel.reductions().get(k);
        var accumulator = order.accumulator(reduction);
        code.load(accumulator, layout.accumulators().get(k));
        if (vectors != null) vectors.run();
        else {
            code.load(Type.getType(Object.class), layout.laneArrays().get(k));
            JavaApi.lanesTotal(reduction.dtype()).invoke(code.mv);
        }
        if (accumulator != Code.scalarType(reduction.dtype())) code.op(F2D);
        combine(reduction.op(), accumulator);
        code.store(accumulator, layout.accumulators().get(k));
    }

    // r<k> = (float) acc   /   r<k> = bestIndex
    void finish(int k) {
        var reduction = kernel.reductions().get(k);
        var accumulator = order.accumulator(reduction);
        var result = Code.scalarType(reduction.dtype());
        if (reduction.op().isArg()) code.loadInt(layout.bestIndices().get(k));
        else {
            code.load(accumulator, layout.accumulators().get(k));
            if (accumulator != result) code.op(D2F);
        }
        code.store(result, layout.results().get(k));
    }
}
