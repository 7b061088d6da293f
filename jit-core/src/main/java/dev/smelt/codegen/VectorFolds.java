// SPDX-License-Identifier: Apache-2.0
package dev.smelt.codegen;

import static org.objectweb.asm.Opcodes.DUP;
import static org.objectweb.asm.Opcodes.SWAP;

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
    // keyed: vacc = <keys of FloatVector.broadcast(SPECIES_F32, -∞)>   (all MIN_VALUE)
    void initAccumulator(Kernel.Reduction reduction, int slot) {
        vector.pushConstant(reduction.dtype(), reduction.op().identity());
        if (keyed(reduction)) emitKeys(reduction);
        vector.storeTemp(slot);
    }

    // vacc = vacc.add(<value>)  /  .mul
    // keyed (max, min over floats): vacc = vacc.max(<keys of <value>>)
    // kept: v = <value>; v.intoArray(element<k>, elementLine + j); vacc = vacc.add(v)
    //       (or v.intoArray(out<i>, line<i> + j) when output i keeps the values, ElementHome)
    void fold(int k, int slot) {
        fold(k, slot, keyed(kernel.reductions().get(k)));
    }

    // vacc = vacc.add(<value>)  /  .mul  /  .max  /  .min, for a ColumnPlan's accumulator of a tile
    // of rows, which is read and stored at every point: there keys would cost two conversions
    void foldValues(int k, int slot) {
        fold(k, slot, false);
    }

    private void fold(int k, int slot, boolean keyed) {
        var reduction = kernel.reductions().get(k);
        var methods = VectorApi.of(reduction.dtype());
        vector.loadTemp(slot);
        vector.emit(reduction.value());
        if (scalar.keeps(k)) {
            vector.code.op(DUP);
            scalar.pushElementPlace(k);
            methods.intoArray().invoke(vector.code.mv);
        }
        if (keyed) emitKeys(reduction);
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

    // v = vacc.add(vacc2); v = v.add(v.rearrange(ROTATE_F32_<LANES / 2>)); … (halves down to 1),
    // v.lane(0): LaneSums.sum(vacc, vacc2), inline, since C2 may stop inlining calls into a large
    // kernel and would then box both vectors for the call
    void sumLanes(Kernel.Reduction reduction, int slot, int second, int lanes) {
        var dtype = reduction.dtype();
        boolean f32 = dtype == DType.F32;
        vector.loadTemp(slot);
        vector.loadTemp(second);
        VectorApi.of(dtype).add().invoke(vector.code.mv);
        for (int half = lanes / 2; half > 0; half /= 2) {
            vector.code.op(DUP);
            vector.pushRotation(dtype, half);
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

    // bits = x.reinterpretAsInts()   (f64: reinterpretAsLongs(), and 63 for 31)
    // max: bits.lanewise(ASHR, 31).lanewise(OR, MIN_VALUE).lanewise(XOR, bits).lanewise(ADD, ROTATE)
    // min: bits.lanewise(ASHR, 31).lanewise(NOT).lanewise(AND, MAX_VALUE).lanewise(XOR, bits).lanewise(ADD, ROTATE)
    // Emitted rather than called: C2 leaves a call at a cold site out of line, and a key vector a
    // call returns is an object, which makes C2 allocate the accumulator it meets (see Lanes).
    private void emitKeys(Kernel.Reduction reduction) {
        var code = vector.code;
        boolean f64 = reduction.dtype() == DType.F64;
        (f64 ? VectorApi.DOUBLE_AS_LONGS : VectorApi.FLOAT_AS_INTS).invoke(code.mv);
        code.op(DUP);
        withScalar(VectorApi.ASHR, f64 ? 63 : 31, f64);
        if (reduction.op() == ReduceOp.MAX) {
            withScalar(VectorApi.OR, f64 ? Long.MIN_VALUE : Integer.MIN_VALUE, f64);
        } else {
            VectorApi.NOT.get(code.mv);
            (f64 ? VectorApi.LONG : VectorApi.INT).unary().invoke(code.mv);
            withScalar(VectorApi.AND, f64 ? Long.MAX_VALUE : Integer.MAX_VALUE, f64);
        }
        code.op(SWAP);                                                      // bits, t -> t, bits
        VectorApi.XOR.get(code.mv);
        code.op(SWAP);                                                      // t, bits, XOR -> t, XOR, bits
        (f64 ? VectorApi.LONG : VectorApi.INT).binary().invoke(code.mv);
        withScalar(VectorApi.ADD, f64 ? OrderKeys.ROTATE_64 : OrderKeys.ROTATE, f64);
    }

    // v.lanewise(OP, e): IntVector.lanewise(Binary, int), LongVector.lanewise(Binary, long)
    private void withScalar(FieldRef operator, long e, boolean f64) {
        operator.get(vector.code.mv);
        if (f64) vector.code.mv.visitLdcInsn(e);
        else vector.code.pushInt((int) e);
        (f64 ? VectorApi.LONG_WITH_LONG : VectorApi.INT_WITH_INT).invoke(vector.code.mv);
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
