// SPDX-License-Identifier: Apache-2.0
package dev.smelt.codegen;

import static org.objectweb.asm.Opcodes.*;

import dev.smelt.ir.DType;
import dev.smelt.kernel.Expr;

/// The scalar forms of the steps `kernel.Transcendentals` writes the `f32` transcendentals as, for
/// [ScalarEmitter]: each the Java operation the vector twin's lanewise form ([VectorMath]) computes
/// in every lane, so both variants give the same bits. Each leaves one value on the stack.
final class ScalarMath {
    private final ScalarEmitter scalar;
    private final Code code;

    ScalarMath(ScalarEmitter scalar, Code code) {
        this.scalar = scalar;
        this.code = code;
    }

    // Math.fma(a, b, c)
    void emitFma(Expr.Fma fma) {
        scalar.emit(fma.a());
        scalar.emit(fma.b());
        scalar.emit(fma.c());
        (fma.dtype() == DType.F32 ? JavaApi.FMA_FLOAT : JavaApi.FMA_DOUBLE).invoke(code.mv);
    }

    // Float.floatToRawIntBits(x)   /   Float.intBitsToFloat(x)
    void emitBits(Expr.Bits bits) {
        scalar.emit(bits.x());
        (bits.dtype() == DType.I32 ? JavaApi.FLOAT_TO_BITS : JavaApi.BITS_TO_FLOAT).invoke(code.mv);
    }

    // a & b, a | b, a ^ b, a << b, a >>> b
    void emitBitwise(Expr.Bitwise bitwise) {
        scalar.emit(bitwise.left());
        scalar.emit(bitwise.right());
        code.op(switch (bitwise.op()) {
            case AND -> IAND;
            case OR -> IOR;
            case XOR -> IXOR;
            case SHL -> ISHL;
            case SHR -> IUSHR;
        });
    }

    // <inRange> ? <value> : (float) Math.sin((double) x)   /   total: <value>
    void emitFallback(Expr.Fallback fallback) {
        if (fallback.total()) { scalar.emit(fallback.value()); return; }
        var type = Code.scalarType(fallback.dtype());
        scalar.emit(fallback.inRange());
        code.ifElse(IFEQ, () -> scalar.emit(fallback.value()), () -> {
            scalar.emitWidened(fallback.x(), type);
            JavaApi.function(fallback.op()).invoke(code.mv);
            scalar.narrow(type);
        });
    }
}
