// SPDX-License-Identifier: Apache-2.0
package dev.smelt.codegen;

import static org.objectweb.asm.Opcodes.DUP;

import dev.smelt.ir.DType;
import dev.smelt.ir.ReduceOp;
import dev.smelt.kernel.Kernel;

/// Folds a kernel's reductions into vector accumulators, [VectorPlan#lanes] points at a time:
/// initialise, fold a vector of values, combine two chains, reduce the lanes to one result. `max`
/// and `min` over floats fold [OrderKeys] (integers ordered as the floats) where the accumulator
/// stays in a register.
final class VectorFolds {
    private final VectorEmitter vector;
    private final Kernel kernel;
    private final ScalarEmitter scalar;

    VectorFolds(VectorEmitter vector, Kernel kernel, ScalarEmitter scalar) {
        this.vector = vector;
        this.kernel = kernel;
        this.scalar = scalar;
    }

    // vacc = XVector.broadcast(SPECIES_X, identity)
    // keyed: vacc = OrderKeys.maxKeys(FloatVector.broadcast(SPECIES_F32, -∞))   (all MIN_VALUE)
    void initAccumulator(Kernel.Reduction reduction, int slot) {
        vector.pushConstant(reduction.dtype(), reduction.op().identity());
        if (keyed(reduction)) orderKeys(reduction).keys().invoke(vector.code.mv);
        vector.storeTemp(slot);
    }

    // vacc = <value>.lanewise(ADD, vacc)  /  MUL
    // keyed (max, min over floats): vacc = OrderKeys.maxKeys(<value>).lanewise(MAX, vacc)
    // kept: v = <value>; v.intoArray(element<k>, elementLine + j); vacc = v.lanewise(ADD, vacc)
    //       (or v.intoArray(out<i>, line<i> + j) when output i keeps the values, ElementHome)
    // The accumulator is the operand, not the receiver: a loop-carried value, whose class C2 cannot
    // prove while parsing, so as the receiver its call was inlined behind a type-profile check,
    // which needs the vector as an object, and some JVMs boxed it at every fold. The value's class
    // is known from the intrinsic that made it; the operations are commutative, so the bits are the same.
    void fold(int k, int slot) {
        fold(k, slot, keyed(kernel.reductions().get(k)));
    }

    // vacc = <value>.lanewise(ADD, vacc)  /  MUL  /  MAX  /  MIN, for a ColumnPlan's accumulator of a tile
    // of rows, which is read and stored at every point: there keys would cost two conversions
    void foldValues(int k, int slot) {
        fold(k, slot, false);
    }

    private void fold(int k, int slot, boolean keyed) {
        var reduction = kernel.reductions().get(k);
        var methods = VectorApi.of(reduction.dtype());
        vector.emit(reduction.value());
        if (scalar.keeps(k)) {
            vector.code.op(DUP);
            scalar.pushElementPlace(k);
            methods.intoArray().invoke(vector.code.mv);
        }
        if (keyed) orderKeys(reduction).keys().invoke(vector.code.mv);
        vector.loadTemp(slot);
        combiner(reduction, keyed).invoke(vector.code.mv);
        vector.storeTemp(slot);
    }

    // vacc = vacc.add(vacc2)   (the two chains of a loop unrolled by two, before their lanes are reduced)
    void combineAccumulators(Kernel.Reduction reduction, int slot, int second) {
        vector.loadTemp(slot);
        vector.loadTemp(second);
        combiner(reduction, keyed(reduction)).invoke(vector.code.mv);
        vector.storeTemp(slot);
    }

    // v = vacc.add(vacc2); v = v.add(v.rearrange(VectorShuffle.iota(SPECIES, LANES / 2, 1, true))); …
    // (halves down to 1), v.lane(0): LaneSums.sum(vacc, vacc2), inline, since C2 may stop inlining
    // calls into a large kernel and would then box both vectors for the call
    void sumLanes(Kernel.Reduction reduction, int slot, int second, int lanes) {
        var dtype = reduction.dtype();
        boolean f32 = dtype == DType.F32;
        vector.loadTemp(slot);
        vector.loadTemp(second);
        VectorApi.of(dtype).add().invoke(vector.code.mv);
        for (int half = lanes / 2; half > 0; half /= 2) {
            vector.code.op(DUP);
            vector.pushSpecies(dtype);
            vector.code.pushInt(half);
            vector.code.pushInt(1);
            vector.code.pushInt(1);
            VectorApi.SHUFFLE_IOTA.invoke(vector.code.mv);
            (f32 ? VectorApi.FLOAT_REARRANGE : VectorApi.DOUBLE_REARRANGE).invoke(vector.code.mv);
            VectorApi.of(dtype).add().invoke(vector.code.mv);
        }
        vector.code.pushInt(0);
        (f32 ? VectorApi.FLOAT_LANE : VectorApi.DOUBLE_LANE).invoke(vector.code.mv);
    }

    // .add / .mul / .max / .min: how a reduction folds a vector into its accumulator
    private static MethodRef combiner(Kernel.Reduction reduction, boolean keyed) {
        if (keyed) return orderKeys(reduction).keyVector().max();
        var methods = VectorApi.of(reduction.dtype());
        return switch (reduction.op()) {
            case SUM -> methods.add();
            case PROD -> methods.mul();
            case MAX -> methods.max();
            case MIN -> methods.min();
            case ARGMAX, ARGMIN -> throw new IllegalStateException("arg-reductions run scalar");
        };
    }

    // vacc.reduceLanes(ADD)   (integer sums, exact in any order)
    // keyed: OrderKeys.fromMaxKey(vacc.reduceLanes(MAX))
    void reduceLanes(Kernel.Reduction reduction, int slot) {
        vector.loadTemp(slot);
        if (keyed(reduction)) {
            var keys = orderKeys(reduction);
            VectorApi.associative(ReduceOp.MAX).get(vector.code.mv);
            keys.keyVector().reduceLanes().invoke(vector.code.mv);
            keys.value().invoke(vector.code.mv);
            return;
        }
        VectorApi.associative(reduction.op()).get(vector.code.mv);
        VectorApi.of(reduction.dtype()).reduceLanes().invoke(vector.code.mv);
    }

    /// Whether a reduction folds [OrderKeys] instead of its values: `max` and `min` over `f32` and
    /// `f64`, whose `FloatVector.max` costs five more instructions than an integer `max`.
    private static boolean keyed(Kernel.Reduction reduction) {
        return (reduction.op() == ReduceOp.MAX || reduction.op() == ReduceOp.MIN) && reduction.dtype().isFloating();
    }

    private static JavaApi.OrderKeyRefs orderKeys(Kernel.Reduction reduction) {
        return JavaApi.orderKeys(reduction.op(), reduction.dtype());
    }
}
