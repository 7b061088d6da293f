// SPDX-License-Identifier: Apache-2.0
package dev.smelt.codegen;

import static org.objectweb.asm.Opcodes.DUP;

import dev.smelt.ir.DType;
import dev.smelt.ir.UnaryOp;
import dev.smelt.kernel.Expr;

/// The lanewise forms of the unary operators and of `pow`, for [VectorEmitter]. Each leaves one
/// vector of the expression's dtype on the stack; comments show the Java.
///
/// The transcendentals are `lanewise` calls (Intel SVML on x86 once C2 compiles them, within a few
/// ulps: see the tests' `Tolerance`); the composites are built from them, in forms that avoid
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
            case RELU -> { vector.emit(x); vector.pushConstant(dtype, 0); call(methods.max()); }         // x.max(0)
            case RECIPROCAL -> { vector.pushConstant(dtype, 1); vector.emit(x); call(methods.div()); }   // 1 / x
            case EXP, EXPM1, LOG, LOG1P, SQRT, SIN, COS, TANH -> { vector.emit(x); vector.lanewise(dtype, unary.op()); } // x.lanewise(EXP)
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
        vector.lanewise(dtype, UnaryOp.EXP);
        vector.pushConstant(dtype, 1);
        call(methods.add());
        call(methods.div());
    }

    // t.lanewise(EXP).lanewise(LOG1P).blend(t, t.compare(GT, 20))
    private void emitSoftplus(DType dtype, int t) {
        vector.loadTemp(t);
        vector.lanewise(dtype, UnaryOp.EXP);
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
        vector.lanewise(dtype, UnaryOp.EXP);
        vector.pushConstant(dtype, 1);
        call(methods.add());
    }

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
