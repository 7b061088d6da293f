// SPDX-License-Identifier: Apache-2.0
package dev.smelt.codegen;

import static org.objectweb.asm.Opcodes.DUP;
import static org.objectweb.asm.Opcodes.DUP2_X1;
import static org.objectweb.asm.Opcodes.POP2;
import static org.objectweb.asm.Opcodes.IFNE;
import static org.objectweb.asm.Opcodes.SWAP;

import dev.smelt.ir.DType;
import dev.smelt.ir.UnaryOp;
import dev.smelt.kernel.Expr;

/// The lanewise forms of the unary operators and of `pow`, for [VectorEmitter]. Each leaves one
/// vector of the expression's dtype on the stack; comments show the Java.
///
/// The transcendentals are `lanewise` calls (Intel SVML on x86 once C2 compiles them, within a few
/// ulps: see the tests' `Tolerance`), except `f32` `exp`, `sin` and `cos`, which are inline ([#exp],
/// [#sinOrCos]); the composites
/// are built from them, in forms that avoid
/// cancellation (`gelu_tanh` as `x·sigmoid(2y)`). `gelu_erf` and `i32` `pow` go lane by lane through
/// [Lanes], which computes the scalar definition.
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
            case EXPM1, LOG, LOG1P, SQRT, TANH -> { vector.emit(x); vector.lanewise(dtype, unary.op()); } // x.lanewise(LOG)
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
            case GELU_ERF -> {                                                                           // Lanes.geluErf(x)
                vector.emit(x);
                call(dtype == DType.F32 ? JavaApi.GELU_ERF_FLOAT_LANES : JavaApi.GELU_ERF_DOUBLE_LANES);
            }
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

    // exp(t).lanewise(LOG1P).blend(t, t.compare(GT, 20))   (exp: see #exp)
    private void emitSoftplus(DType dtype, int t) {
        vector.loadTemp(t);
        exp(dtype);
        vector.lanewise(dtype, UnaryOp.LOG1P);
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

    /// `exp` of the vector on the stack. For `f64` the JDK's (`lanewise(EXP)`). For `f32` inline, in
    /// the way of Cephes' `expf` with a polynomial of one degree less (see [#POLYNOMIAL]): SVML's
    /// `exp` is a call, around which C2 spills every live vector register: over 4M floats in L1 (a harness, best of 50), softmax's loop (load, subtract, `exp`,
    /// store, sum) took 2.1 ms with SVML and 0.88 ms inline (0.84 without the range check).
    /// A vector with a lane outside [-86.9, 86.9] (past it the result may not be a normal float) or
    /// a NaN takes the JDK's path whole. Against `StrictMath.exp` on every float of that range: at
    /// most 1 ulp, and 99.5% correctly rounded (the JDK's SVML `exp` is also within 1 ulp).
    // FloatVector t = x.fma(LOG2E, SHIFT);                       // n + 1.5·2^23: n = round(x / ln 2) in the low bits
    // FloatVector n = t.sub(SHIFT);
    // FloatVector r = n.fma(-LN2_LO, n.fma(-LN2_HI, x));         // x - n·ln 2, in two steps (Cody and Waite)
    // FloatVector e = P6.fma(r, P5).fma(r, P4).fma(r, P3).fma(r, P2).fma(r, 1).fma(r, 1); // e^r, |r| ≤ ln 2 / 2
    // e = e.reinterpretAsInts().add(t.reinterpretAsInts().lanewise(LSHL, 23)).reinterpretAsFloats(); // e^r · 2^n
    // if (!x.abs().compare(LE, LIMIT).allTrue()) e = x.lanewise(EXP);
    void exp(DType dtype) {
        if (dtype != DType.F32) {
            vector.lanewise(dtype, UnaryOp.EXP);
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
            jdkPastLimit(x, LIMIT, UnaryOp.EXP, e);
        });
    }

    /// `sin` or `cos` of the vector on the stack. For `f64` the JDK's; for `f32` inline, 2.4–2.5× as
    /// fast as SVML's call (4M floats, a harness: `sin` 0.91 against 2.24 ms, `cos` 0.99 against
    /// 2.38), within 2 ulps of `StrictMath` where SVML is within 1: x is reduced by the nearest
    /// multiple of π (of π/2, odd, for `cos`) in three FMAs (Cody and Waite, sleef's constants), so
    /// r is in [-π/2, π/2], and `sin r` is an odd polynomial of degree 9 fitted for that range; the
    /// multiple's parity gives the sign. A vector with a lane outside [-125, 125], or a NaN, takes the
    /// JDK's path whole. Over every float of that range: `sin` 98.4% and `cos` 94.4% correctly
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
    // if (!x.abs().compare(LE, TRIG_LIMIT).allTrue()) s = x.lanewise(SIN);
    void sinOrCos(DType dtype, boolean cos) {
        if (dtype != DType.F32) {
            vector.lanewise(dtype, cos ? UnaryOp.COS : UnaryOp.SIN);
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
            jdkPastLimit(x, TRIG_LIMIT, cos ? UnaryOp.COS : UnaryOp.SIN, s);
        });
    }

    // if (!x.abs().compare(LE, limit).allTrue()) result = x.lanewise(OP);  then result on the stack:
    // an inline f32 form hands a vector with a lane past its range, or a NaN, to the JDK whole
    private void jdkPastLimit(int x, double limit, UnaryOp op, int result) {
        var methods = VectorApi.FLOAT;
        vector.loadTemp(x);
        call(methods.abs());
        VectorApi.LE.get(code.mv);
        vector.pushConstant(DType.F32, limit);
        call(methods.compare());
        call(VectorApi.MASK_ALL_TRUE);
        code.ifThen(IFNE, () -> {
            vector.loadTemp(x);
            VectorApi.operator(op).get(code.mv);
            call(methods.unary());
            vector.storeTemp(result);
        });
        vector.loadTemp(result);
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

    private static final double INV_PI = 0.318309886183790671538f;
    /// π as three floats (sleef's `PI_A2f`, `PI_B2f`, `PI_C2f`): the first has 15 significant bits,
    /// so n·PI_A is exact for |n| < 2^9 and the first reduction step loses nothing below |x| = 125.
    private static final double[] PI_PARTS = {3.1414794921875f, 0.00011315941810607910156f, 1.9841872589410058936e-09f};
    /// `sin r = r + r³·s(r²)`, s of degree 3 fitted (minimax, by linear programming) to the relative
    /// error on |r| ≤ π/2, which it keeps below 0.11 · 2^-24 before rounding; highest power first.
    private static final double[] SINE = {2.6053612600662746e-06f, -0.0001980941742658615f, 0.008333063684403896f, -0.16666659712791443f};
    private static final double TRIG_LIMIT = 125;

    private static final double LOG2E = 1.44269504f, SHIFT = 0x1.8p23, LN2_HI = 0.693145751953125, LN2_LO = 1.428606765330187e-06f;
    /// `1 + r + r²·p(r)` in Horner form, highest power first: p of degree 4 fitted (minimax, by linear
    /// programming) to the relative error of e^r on |r| ≤ 0.3467, which it keeps below 0.06 · 2^-24
    /// before rounding. Cephes' `expf` has p of degree 5, one FMA more: on every float of the range
    /// both are within 1 ulp of `StrictMath.exp` (99.55% and 99.53% correctly rounded), and the FMA
    /// fewer took softmax over [4096, 1024] from 1.73 to 1.65 ms into a tensor (a harness, one thread).
    private static final double[] POLYNOMIAL = {0.0013814484f, 0.008368736f, 0.041668393f, 0.16666521f, 0.49999994f, 1, 1};
    /// Below it in magnitude, n is in [-125, 125] and `e^r · 2^n` a normal float, so the exponent add is exact.
    private static final double LIMIT = 86.9f;

    // a.lanewise(POW, b).blend(1, a == 1 | a == -1 & b is ±∞): C's pow where Java's gives NaN
    // i32: Lanes.pow(a, b)
    void emitPow(Expr.Binary binary) {
        var dtype = binary.left().dtype();
        if (dtype == DType.I32) {
            vector.emit(binary.left());
            vector.emit(binary.right());
            call(JavaApi.POW_INT_LANES);
            return;
        }
        vector.withOperand(binary.left(), a -> vector.withOperand(binary.right(), b -> {
            var methods = VectorApi.of(dtype);
            vector.loadTemp(a);
            VectorApi.POW.get(code.mv);
            vector.loadTemp(b);
            call(methods.binary());
            code.mv.visitLdcInsn(1L);
            vector.loadTemp(a);
            vector.compareScalar(dtype, VectorApi.EQ, 1);
            vector.loadTemp(a);
            vector.compareScalar(dtype, VectorApi.EQ, -1);
            vector.loadTemp(b);
            VectorApi.IS_INFINITE.get(code.mv);
            call(methods.test());
            call(VectorApi.MASK_AND);
            call(VectorApi.MASK_OR);
            call(methods.blendScalar());
        }));
    }

    private void call(MethodRef method) { method.invoke(code.mv); }
}
