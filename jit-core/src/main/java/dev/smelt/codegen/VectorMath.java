// SPDX-License-Identifier: Apache-2.0
package dev.smelt.codegen;

import static org.objectweb.asm.Opcodes.DUP;
import static org.objectweb.asm.Opcodes.GETSTATIC;
import static org.objectweb.asm.Opcodes.DUP2_X1;
import static org.objectweb.asm.Opcodes.POP2;
import static org.objectweb.asm.Opcodes.IFNE;
import static org.objectweb.asm.Opcodes.SWAP;

import dev.smelt.ir.DType;
import dev.smelt.ir.UnaryOp;
import dev.smelt.kernel.Expr;
import org.objectweb.asm.Type;

/// The lanewise forms of the unary operators and of `pow`, for [VectorEmitter]. Each leaves one
/// vector of the expression's dtype on the stack; comments show the Java.
///
/// Every lane gets the bits the scalar twin computes for it, so that a tiered kernel may switch
/// variants without its results changing: `f32` `exp`, `sin` and `cos` are inline ([#exp],
/// [#sinOrCos]) and [InlineMath] is their scalar form; the composites are built from them in the
/// order `InlineMath` follows, in forms that avoid cancellation (`gelu_tanh` as `x·sigmoid(2y)`);
/// the other transcendentals, `gelu_erf` and `pow` go lane by lane through [Lanes], which calls
/// what the scalar kernel calls. (The Vector API's own `lanewise(LOG)` and the like, SVML once C2
/// compiles them and Java code before, differ from `Math` and from each other by an ulp here and
/// there.)
final class VectorMath {
    private final VectorEmitter vector;
    private final Code code;

    VectorMath(VectorEmitter vector) {
        this.vector = vector;
        this.code = vector.code;
    }

    void emitUnary(Expr.Unary unary) {
        var dtype = unary.dtype();
        var methods = VectorApi.of(dtype);
        var x = unary.x();
        switch (unary.op()) {
            case NEG -> { vector.emit(x); call(methods.neg()); }                                         // x.neg()
            case ABS -> { vector.emit(x); call(methods.abs()); }                                         // x.abs()
            case SQUARE -> { vector.emit(x); code.op(DUP); call(methods.mul()); }                        // x.mul(x)
            case RELU -> { vector.emit(x); relu(dtype); }
            case RECIPROCAL -> { vector.pushConstant(dtype, 1); vector.emit(x); call(methods.div()); }   // 1 / x
            case EXP -> { vector.emit(x); exp(dtype); }
            case SIN, COS -> { vector.emit(x); sinOrCos(dtype, unary.op() == UnaryOp.COS); }
            case SQRT -> { vector.emit(x); vector.lanewise(dtype, UnaryOp.SQRT); }                       // x.lanewise(SQRT)
            case LOG, TANH -> {                                                                          // LaneMath.log(x)   /   f64: Lanes.apply(x, LOG)
                vector.emit(x);
                if (dtype == DType.F32) call(unary.op() == UnaryOp.LOG ? VectorApi.LOG_LANES : VectorApi.TANH_LANES);
                else lanes(dtype, unary.op());
            }
            case EXPM1, LOG1P -> { vector.emit(x); lanes(dtype, unary.op()); }                           // Lanes.apply(x, LOG1P)
            case RSQRT -> {                                                                              // 1 / x.sqrt()
                vector.pushConstant(dtype, 1);
                vector.emit(x);
                vector.lanewise(dtype, UnaryOp.SQRT);
                call(methods.div());
            }
            case SIGMOID -> {                                                                            // 1 / (1 + exp(-x))
                vector.pushConstant(dtype, 1);
                vector.emit(x);
                onePlusExp(dtype);
                call(methods.div());
            }
            case SILU -> vector.withOperand(x, t -> emitSilu(dtype, t));
            case GELU_TANH -> vector.withOperand(x, t -> emitGeluTanh(dtype, t));
            case SOFTPLUS -> vector.withOperand(x, t -> emitSoftplus(dtype, t));
            case SIGN -> vector.withOperand(x, t -> emitSign(dtype, t));
            case GELU_ERF -> { vector.emit(x); lanes(dtype, UnaryOp.GELU_ERF); }                         // Lanes.apply(x, GELU_ERF)
        }
    }

    // t / (1 + exp(-t))
    private void emitSilu(DType dtype, int t) {
        vector.loadTemp(t);
        vector.loadTemp(t);
        onePlusExp(dtype);
        call(VectorApi.of(dtype).div());
    }

    // t / (1 + exp(-2y)), y = √(2/π)·(t + 0.044715·t³): gelu_tanh's x/2·(1 + tanh y) without the
    // cancellation of 1 + tanh y for negative t (it equals x·sigmoid(2y))
    private void emitGeluTanh(DType dtype, int t) {
        var methods = VectorApi.of(dtype);
        vector.loadTemp(t);
        vector.pushConstant(dtype, Math.sqrt(2 / Math.PI));
        vector.loadTemp(t);
        vector.pushConstant(dtype, 0.044715);
        for (int power = 0; power < 3; power++) {
            vector.loadTemp(t);
            call(methods.mul());
        }
        call(methods.add());
        call(methods.mul());
        vector.pushConstant(dtype, -2);
        call(methods.mul());
        exp(dtype);
        vector.pushConstant(dtype, 1);
        call(methods.add());
        call(methods.div());
    }

    // Lanes.apply(exp(t), LOG1P).blend(t, t.compare(GT, 20))   (exp: see #exp)
    private void emitSoftplus(DType dtype, int t) {
        vector.loadTemp(t);
        exp(dtype);
        lanes(dtype, UnaryOp.LOG1P);
        vector.loadTemp(t);
        vector.loadTemp(t);
        vector.compareScalar(dtype, VectorApi.GT, 20);
        call(VectorApi.of(dtype).blend());
    }

    // t.blend(0, t == 0).blend(1, t > 0).blend(-1, t < 0): NaN stays, ±0 gives +0
    // i32: IntVector.zero(S).blend(1, t > 0).blend(-1, t < 0)
    private void emitSign(DType dtype, int t) {
        var methods = VectorApi.of(dtype);
        if (dtype == DType.I32) {
            vector.pushSpecies(dtype);
            call(methods.zero());
        } else {
            vector.loadTemp(t);
            blendWhere(dtype, 0, t, VectorApi.EQ);
        }
        blendWhere(dtype, 1, t, VectorApi.GT);
        blendWhere(dtype, -1, t, VectorApi.LT);
    }

    // .blend(value, t <comparison> 0)
    private void blendWhere(DType dtype, long value, int t, FieldRef comparison) {
        code.mv.visitLdcInsn(value);
        vector.loadTemp(t);
        vector.compareScalar(dtype, comparison, 0);
        call(VectorApi.of(dtype).blendScalar());
    }

    // <vector on the stack> → 1 + exp(-x)
    private void onePlusExp(DType dtype) {
        var methods = VectorApi.of(dtype);
        call(methods.neg());
        exp(dtype);
        vector.pushConstant(dtype, 1);
        call(methods.add());
    }

    // x.blend(0, x.compare(LE, 0)): Math.max(x, 0), as x.max(0), in two instructions where
    // FloatVector.max takes six: NaN <= 0 is false, so NaN stays; -0 <= 0 is true, so -0 becomes +0.
    // i32: x.max(0), one instruction.
    private void relu(DType dtype) {
        var methods = VectorApi.of(dtype);
        if (!dtype.isFloating()) {
            vector.pushConstant(dtype, 0);
            call(methods.max());
            return;
        }
        code.op(DUP);
        vector.compareScalar(dtype, VectorApi.LE, 0);
        code.mv.visitLdcInsn(0L);
        code.op(DUP2_X1);                                                   // x, mask, 0L -> x, 0L, mask
        code.op(POP2);
        call(methods.blendScalar());
    }

    /// `exp` of the vector on the stack. For `f64` `Math.exp`'s, lane by lane. For `f32` inline, in
    /// the way of Cephes' `expf` with a polynomial of one degree less (see [#POLYNOMIAL]): SVML's
    /// `exp` is a call, around which C2 spills every live vector register: over 4M floats in L1 (a harness, best of 50), softmax's loop (load, subtract, `exp`,
    /// store, sum) took 2.1 ms with SVML and 0.88 ms inline (0.84 without the range check).
    /// A lane outside [-86.9, 86.9] (past it the result may not be a normal float) or a NaN takes
    /// `Math.exp`, lane by lane. Against `StrictMath.exp` on every float of that range: at
    /// most 1 ulp, and 99.5% correctly rounded (the JDK's SVML `exp` is also within 1 ulp).
    // FloatVector t = x.fma(LOG2E, SHIFT);                       // n + 1.5·2^23: n = round(x / ln 2) in the low bits
    // FloatVector n = t.sub(SHIFT);
    // FloatVector r = n.fma(-LN2_LO, n.fma(-LN2_HI, x));         // x - n·ln 2, in two steps (Cody and Waite)
    // FloatVector e = P6.fma(r, P5).fma(r, P4).fma(r, P3).fma(r, P2).fma(r, 1).fma(r, 1); // e^r, |r| ≤ ln 2 / 2
    // e = e.reinterpretAsInts().add(t.reinterpretAsInts().lanewise(LSHL, 23)).reinterpretAsFloats(); // e^r · 2^n
    // if (!x.abs().compare(LE, LIMIT).allTrue()) e = Lanes.pastLimit(x, e, EXP, LIMIT);
    void exp(DType dtype) {
        if (dtype != DType.F32) {
            lanes(dtype, UnaryOp.EXP);
            return;
        }
        vector.withTemps(4, first -> {
            int x = first, t = first + 1, n = first + 2, r = first + 3, e = n;
            var methods = VectorApi.FLOAT;
            vector.storeTemp(x);
            vector.loadTemp(x);
            vector.pushConstant(dtype, LOG2E);
            vector.pushConstant(dtype, SHIFT);
            call(VectorApi.FLOAT_FMA);
            vector.storeTemp(t);
            vector.loadTemp(t);
            vector.pushConstant(dtype, SHIFT);
            call(methods.sub());
            vector.storeTemp(n);
            vector.loadTemp(n);
            vector.pushConstant(dtype, -LN2_HI);
            vector.loadTemp(x);
            call(VectorApi.FLOAT_FMA);
            vector.storeTemp(r);
            vector.loadTemp(n);
            vector.pushConstant(dtype, -LN2_LO);
            vector.loadTemp(r);
            call(VectorApi.FLOAT_FMA);
            vector.storeTemp(r);
            vector.pushConstant(dtype, POLYNOMIAL[0]);
            for (int k = 1; k < POLYNOMIAL.length; k++) {
                vector.loadTemp(r);
                vector.pushConstant(dtype, POLYNOMIAL[k]);
                call(VectorApi.FLOAT_FMA);
            }
            call(VectorApi.FLOAT_AS_INTS);
            shiftedBits(t, 23);
            call(VectorApi.INT.add());
            call(VectorApi.INT_AS_FLOATS);
            vector.storeTemp(e);
            pastLimit(x, LIMIT, UnaryOp.EXP, e);
        });
    }

    /// `sin` or `cos` of the vector on the stack. For `f64` `Math`'s, lane by lane; for `f32` inline, 2.4–2.5× as
    /// fast as SVML's call (4M floats, a harness: `sin` 0.91 against 2.24 ms, `cos` 0.99 against
    /// 2.38), within 2 ulps of `StrictMath` where SVML is within 1: x is reduced by the nearest
    /// multiple of π (of π/2, odd, for `cos`) in three FMAs (Cody and Waite, sleef's constants), so
    /// r is in [-π/2, π/2], and `sin r` is an odd polynomial of degree 9 fitted for that range; the
    /// multiple's parity gives the sign. A lane outside [-125, 125], or a NaN, takes `Math`'s, lane by
    /// lane. Over every float of that range: `sin` 98.4% and `cos` 94.4% correctly
    /// rounded, none past 2 ulps (0.005% and 0.012% at 2).
    // FloatVector t = x.fma(INV_PI, SHIFT);                          // n + 1.5·2^23: n = round(x / π)
    // FloatVector q = t.sub(SHIFT);                                   // sin x = (-1)^n sin(x - nπ)
    //   cos: t = x.fma(INV_PI, -0.5).add(SHIFT); q = t.sub(SHIFT).fma(2, 1); // cos x = (-1)^(n+1) sin(x - qπ/2)
    // FloatVector r = q.fma(-PI_C, q.fma(-PI_B, q.fma(-PI_A, x)));   // (π/2 and its parts for cos)
    // FloatVector r2 = r.mul(r);
    // FloatVector s = S9.fma(r2, S7).fma(r2, S5).fma(r2, S3).fma(r2.mul(r), r);
    // IntVector sign = r.reinterpretAsInts().lanewise(XOR, t.reinterpretAsInts().lanewise(LSHL, 31)  // cos: .lanewise(XOR, MIN_VALUE)
    //         ).lanewise(AND, MIN_VALUE);                                 // sin r has r's sign, -0 too
    // s = s.abs().reinterpretAsInts().lanewise(XOR, sign).reinterpretAsFloats();
    // if (!x.abs().compare(LE, TRIG_LIMIT).allTrue()) s = Lanes.pastLimit(x, s, SIN, TRIG_LIMIT);
    void sinOrCos(DType dtype, boolean cos) {
        if (dtype != DType.F32) {
            lanes(dtype, cos ? UnaryOp.COS : UnaryOp.SIN);
            return;
        }
        vector.withTemps(4, first -> {
            int x = first, t = first + 1, q = first + 2, r = first + 3, r2 = q, s = q;
            var methods = VectorApi.FLOAT;
            double part = cos ? 0.5 : 1;
            vector.storeTemp(x);
            vector.loadTemp(x);
            vector.pushConstant(dtype, INV_PI);
            vector.pushConstant(dtype, cos ? -0.5 : SHIFT);
            call(VectorApi.FLOAT_FMA);
            if (cos) {
                vector.pushConstant(dtype, SHIFT);
                call(methods.add());
            }
            vector.storeTemp(t);
            vector.loadTemp(t);
            vector.pushConstant(dtype, SHIFT);
            call(methods.sub());
            if (cos) {
                vector.pushConstant(dtype, 2);
                vector.pushConstant(dtype, 1);
                call(VectorApi.FLOAT_FMA);
            }
            vector.storeTemp(q);
            int source = x;
            for (double piPart : PI_PARTS) {
                vector.loadTemp(q);
                vector.pushConstant(dtype, -piPart * part);
                vector.loadTemp(source);
                call(VectorApi.FLOAT_FMA);
                vector.storeTemp(r);
                source = r;
            }
            vector.loadTemp(r);
            vector.loadTemp(r);
            call(methods.mul());
            vector.storeTemp(r2);
            vector.pushConstant(dtype, SINE[0]);
            for (int k = 1; k < SINE.length; k++) {
                vector.loadTemp(r2);
                vector.pushConstant(dtype, SINE[k]);
                call(VectorApi.FLOAT_FMA);
            }
            vector.loadTemp(r2);
            vector.loadTemp(r);
            call(methods.mul());
            vector.loadTemp(r);
            call(VectorApi.FLOAT_FMA);
            call(methods.abs());
            call(VectorApi.FLOAT_AS_INTS);
            vector.loadTemp(r);
            call(VectorApi.FLOAT_AS_INTS);
            shiftedBits(t, 31);
            if (cos) {
                VectorApi.XOR.get(code.mv);
                code.pushInt(Integer.MIN_VALUE);
                call(VectorApi.INT_WITH_INT);
            }
            xorBelow();
            VectorApi.AND.get(code.mv);
            code.pushInt(Integer.MIN_VALUE);
            call(VectorApi.INT_WITH_INT);
            xorBelow();
            call(VectorApi.INT_AS_FLOATS);
            vector.storeTemp(s);
            pastLimit(x, TRIG_LIMIT, cos ? UnaryOp.COS : UnaryOp.SIN, s);
        });
    }

    // if (!x.abs().compare(LE, limit).allTrue()) result = Lanes.pastLimit(x, result, OP, limit);  then
    // result on the stack: the lanes past an inline f32 form's range, or NaN, take Math's
    private void pastLimit(int x, float limit, UnaryOp op, int result) {
        var methods = VectorApi.FLOAT;
        vector.loadTemp(x);
        call(methods.abs());
        VectorApi.LE.get(code.mv);
        vector.pushConstant(DType.F32, limit);
        call(methods.compare());
        call(VectorApi.MASK_ALL_TRUE);
        code.ifThen(IFNE, () -> {
            vector.loadTemp(x);
            vector.loadTemp(result);
            pushOperator(op);
            code.mv.visitLdcInsn(limit);
            call(VectorApi.PAST_LIMIT);
            vector.storeTemp(result);
        });
        vector.loadTemp(result);
    }

    // Lanes.apply(<vector on the stack>, OP)
    private void lanes(DType dtype, UnaryOp op) {
        pushOperator(op);
        call(dtype == DType.F32 ? VectorApi.LANES_FLOAT : VectorApi.LANES_DOUBLE);
    }

    // UnaryOp.OP
    private void pushOperator(UnaryOp op) {
        code.mv.visitFieldInsn(GETSTATIC, Type.getInternalName(UnaryOp.class), op.name(), Type.getDescriptor(UnaryOp.class));
    }

    // t.reinterpretAsInts().lanewise(LSHL, bits): the low bits of a shifted float (n of `x·k + 1.5·2^23`) moved up
    private void shiftedBits(int t, int bits) {
        vector.loadTemp(t);
        call(VectorApi.FLOAT_AS_INTS);
        VectorApi.LSHL.get(code.mv);
        code.pushInt(bits);
        call(VectorApi.INT_WITH_INT);
    }

    // a.lanewise(XOR, b), a and b the two IntVectors on top of the stack
    private void xorBelow() {
        VectorApi.XOR.get(code.mv);
        code.op(SWAP);
        call(VectorApi.INT.binary());
    }

    private static final float INV_PI = InlineMath.INV_PI, SHIFT = InlineMath.SHIFT, LOG2E = InlineMath.LOG2E, LN2_HI = InlineMath.LN2_HI,
            LN2_LO = InlineMath.LN2_LO, LIMIT = InlineMath.LIMIT, TRIG_LIMIT = InlineMath.TRIG_LIMIT;
    private static final float[] PI_PARTS = InlineMath.PI_PARTS, SINE = InlineMath.SINE, POLYNOMIAL = InlineMath.POLYNOMIAL;

    // Lanes.pow(a, b): C's pow, as the scalar kernel's Scalars.pow
    void emitPow(Expr.Binary binary) {
        var dtype = binary.left().dtype();
        vector.emit(binary.left());
        vector.emit(binary.right());
        call(switch (dtype) {
            case I32 -> VectorApi.POW_INT_LANES;
            case F32 -> VectorApi.POW_FLOAT_LANES;
            case F64 -> VectorApi.POW_DOUBLE_LANES;
            case BOOL -> throw new IllegalStateException("pow of bool passed KernelCheck");
        });
    }

    private void call(MethodRef method) { method.invoke(code.mv); }
}
