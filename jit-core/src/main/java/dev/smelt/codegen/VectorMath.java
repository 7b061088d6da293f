// SPDX-License-Identifier: Apache-2.0
package dev.smelt.codegen;

import static org.objectweb.asm.Opcodes.DUP;
import static org.objectweb.asm.Opcodes.GETSTATIC;
import static org.objectweb.asm.Opcodes.DUP2_X1;
import static org.objectweb.asm.Opcodes.POP2;
import static org.objectweb.asm.Opcodes.IFNE;

import dev.smelt.ir.DType;
import dev.smelt.ir.UnaryOp;
import dev.smelt.kernel.Expr;
import org.objectweb.asm.Type;

/// The lanewise forms of the unary operators, of `pow`, and of the steps `kernel.Transcendentals`
/// writes the `f32` transcendentals as, for [VectorEmitter]. Each leaves one vector of the expression's
/// dtype on the stack; comments show the Java.
///
/// Every lane gets the bits the scalar twin computes for it, so that a tiered kernel may switch
/// variants without its results changing: `f32` `exp`, `log`, `tanh`, `sin`, `cos` and the
/// composites on `exp` arrive as trees of FMAs, bit operations and [Expr.Fallback]s, which both
/// emitters compute alike; the other transcendentals, `gelu_erf` and `pow` go lane by lane through
/// [Lanes], which calls what the scalar kernel calls. (The Vector API's own `lanewise(LOG)` and the like, SVML once C2 compiles
/// them and Java code before, differ from `Math` and from each other by an ulp here and there.)
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
            case STOP_GRADIENT -> vector.emit(x);                                                        // x
            case NEG -> { vector.emit(x); call(methods.neg()); }                                         // x.lanewise(NEG)
            case ABS -> { vector.emit(x); call(methods.abs()); }                                         // x.lanewise(ABS)
            case SQUARE -> { vector.emit(x); code.op(DUP); call(methods.mul()); }                        // x.lanewise(MUL, x)
            case RELU -> { vector.emit(x); relu(dtype); }
            case RECIPROCAL -> { vector.pushConstant(dtype, 1); vector.emit(x); call(methods.div()); }   // 1 / x
            case SQRT -> { vector.emit(x); vector.lanewise(dtype, UnaryOp.SQRT); }                       // x.lanewise(SQRT)
            // f32 exp, log, tanh, sin and cos arrive rewritten (Transcendentals), so these are f64's
            case EXP, LOG, TANH, SIN, COS, EXPM1, LOG1P, GELU_ERF -> { vector.emit(x); lanes(dtype, unary.op()); }  // Lanes.apply(x, LOG1P)
            case RSQRT -> {                                                                              // 1 / x.sqrt()
                vector.pushConstant(dtype, 1);
                vector.emit(x);
                vector.lanewise(dtype, UnaryOp.SQRT);
                call(methods.div());
            }
            case SIGN -> vector.withOperand(x, t -> emitSign(dtype, t));
            case SIGMOID, SILU, GELU_TANH, SOFTPLUS -> throw new IllegalStateException(unary.op() + " reaches emission rewritten (Transcendentals)");
        }
    }

    // a.lanewise(FMA, b, c)
    void emitFma(Expr.Fma fma) {
        vector.emit(fma.a());
        vector.emit(fma.b());
        vector.emit(fma.c());
        call(fma.dtype() == DType.F32 ? VectorApi.FLOAT_FMA : VectorApi.DOUBLE_FMA);
    }

    // x.viewAsIntegralLanes()   /   x.viewAsFloatingLanes()
    void emitBits(Expr.Bits bits) {
        vector.emit(bits.x());
        call(bits.dtype() == DType.I32 ? VectorApi.FLOAT_AS_INTS : VectorApi.INT_AS_FLOATS);
    }

    // a.lanewise(LSHL, 23) with a constant int, a.lanewise(XOR, b) with a vector
    void emitBitwise(Expr.Bitwise bitwise) {
        vector.emit(bitwise.left());
        (switch (bitwise.op()) {
            case AND -> VectorApi.AND;
            case OR -> VectorApi.OR;
            case XOR -> VectorApi.XOR;
            case SHL -> VectorApi.LSHL;
            case SHR -> VectorApi.LSHR;
        }).get(code.mv);
        if (bitwise.right() instanceof Expr.Constant constant) {
            code.pushInt((int) constant.value());
            call(VectorApi.INT_WITH_INT);
        } else {
            vector.emit(bitwise.right());
            call(VectorApi.INT.binary());
        }
    }

    // FloatVector result = <value>;
    // if (!<inRange>.allTrue()) result = Lanes.outside(x, result, <inRange>, OP);   (Math's in the lanes out of range)
    // The test costs a compare and a branch; the lanes' spill to arrays only where a lane needs it.
    // The range test is computed again on that path rather than kept: a mask live across the branch
    // into the call is one more value for C2 to keep (the emitter before the rewrite did the same).
    // (total: <value>)
    void emitFallback(Expr.Fallback fallback) {
        vector.emit(fallback.value());
        if (fallback.total()) return;
        vector.withTemp(result -> {
            vector.storeTemp(result);
            vector.emit(fallback.inRange());
            call(VectorApi.MASK_ALL_TRUE);
            code.ifThen(IFNE, () -> {
                vector.emit(fallback.x());
                vector.loadTemp(result);
                vector.emit(fallback.inRange());
                pushOperator(fallback.op());
                call(VectorApi.OUTSIDE);
                vector.storeTemp(result);
            });
            vector.loadTemp(result);
        });
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

    // Lanes.apply(<vector on the stack>, OP)
    private void lanes(DType dtype, UnaryOp op) {
        pushOperator(op);
        call(dtype == DType.F32 ? VectorApi.LANES_FLOAT : VectorApi.LANES_DOUBLE);
    }

    // UnaryOp.OP
    private void pushOperator(UnaryOp op) {
        code.mv.visitFieldInsn(GETSTATIC, Type.getInternalName(UnaryOp.class), op.name(), Type.getDescriptor(UnaryOp.class));
    }

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
