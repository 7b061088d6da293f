// SPDX-License-Identifier: Apache-2.0
package dev.smelt.codegen;

import dev.smelt.ir.DType;
import dev.smelt.ir.Distribution;
import dev.smelt.ir.ReduceOp;
import dev.smelt.ir.UnaryOp;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import jdk.incubator.vector.DoubleVector;
import jdk.incubator.vector.FloatVector;

/// Every JDK and [Scalars]/[LaneSums]/[OrderKeys] method that scalar kernel code calls, built by reflection like
/// [VectorApi]. The `double` forms serve `f32` too: the value is widened, computed in double and
/// rounded once, which is the interpreter's arithmetic.
final class JavaApi {
    private JavaApi() {}

    static final MethodRef MAX_FLOAT = MethodRef.of(Math.class, "max", float.class, float.class);
    static final MethodRef MIN_FLOAT = MethodRef.of(Math.class, "min", float.class, float.class);
    static final MethodRef MAX_DOUBLE = MethodRef.of(Math.class, "max", double.class, double.class);
    static final MethodRef MIN_DOUBLE = MethodRef.of(Math.class, "min", double.class, double.class);
    static final MethodRef MAX_INT = MethodRef.of(Math.class, "max", int.class, int.class);
    static final MethodRef MIN_INT = MethodRef.of(Math.class, "min", int.class, int.class);
    static final MethodRef ABS_FLOAT = MethodRef.of(Math.class, "abs", float.class);
    static final MethodRef FMA_FLOAT = MethodRef.of(Math.class, "fma", float.class, float.class, float.class);
    static final MethodRef FMA_DOUBLE = MethodRef.of(Math.class, "fma", double.class, double.class, double.class);
    static final MethodRef FLOAT_TO_BITS = MethodRef.of(Float.class, "floatToRawIntBits", float.class);
    static final MethodRef BITS_TO_FLOAT = MethodRef.of(Float.class, "intBitsToFloat", int.class);
    static final MethodRef ABS_DOUBLE = MethodRef.of(Math.class, "abs", double.class);
    static final MethodRef ABS_INT = MethodRef.of(Math.class, "abs", int.class);
    static final MethodRef SIGNUM_INT = MethodRef.of(Integer.class, "signum", int.class);
    static final MethodRef SQRT = math("sqrt");
    static final MethodRef POW = MethodRef.of(Scalars.class, "pow", double.class, double.class);
    static final MethodRef POW_INT = MethodRef.of(Scalars.class, "pow", int.class, int.class);

    static final MethodRef FLOAT_LANES = MethodRef.of(LaneSums.class, "floats", int.class, int.class);
    static final MethodRef DOUBLE_LANES = MethodRef.of(LaneSums.class, "doubles", int.class, int.class);
    static final MethodRef FILL_FLOAT = MethodRef.of(java.util.Arrays.class, "fill", float[].class, float.class);
    static final MethodRef FILL_DOUBLE = MethodRef.of(java.util.Arrays.class, "fill", double[].class, double.class);
    private static final MethodRef SUM_FLOAT_LANES = MethodRef.of(LaneSums.class, "sum", float[].class);
    private static final MethodRef SUM_DOUBLE_LANES = MethodRef.of(LaneSums.class, "sum", double[].class);

    /// [LaneSums#sum] of a reduction's lanes of `dtype` (`f32` or `f64`), in an array (scalar code).
    static MethodRef lanesTotal(DType dtype) { return dtype == DType.F32 ? SUM_FLOAT_LANES : SUM_DOUBLE_LANES; }


    /// What a `max` or `min` reduction over `f32` or `f64` vectors calls ([OrderKeys]): the keys of a
    /// vector, the key vector's methods (`IntVector` for `f32`), and the value of a reduced key.
    record OrderKeyRefs(MethodRef keys, VectorApi.Methods keyVector, MethodRef value) {}

    /// A holder: vector code alone asks for order keys, and building them loads the Vector API's
    /// classes (VectorApi), which cost a fresh JVM's first scalar kernel 6-9 ms.
    private static final class OrderKeyTable {
        static final OrderKeyRefs MAX_F32 = orderKeyRefs("max", FloatVector.class, VectorApi.INT, int.class),
                MIN_F32 = orderKeyRefs("min", FloatVector.class, VectorApi.INT, int.class),
                MAX_F64 = orderKeyRefs("max", DoubleVector.class, VectorApi.LONG, long.class),
                MIN_F64 = orderKeyRefs("min", DoubleVector.class, VectorApi.LONG, long.class);
    }

    static OrderKeyRefs orderKeys(ReduceOp op, DType dtype) {
        boolean max = op == ReduceOp.MAX;
        return switch (dtype) {
            case F32 -> max ? OrderKeyTable.MAX_F32 : OrderKeyTable.MIN_F32;
            case F64 -> max ? OrderKeyTable.MAX_F64 : OrderKeyTable.MIN_F64;
            case I32, BOOL -> throw new IllegalArgumentException(op + " over " + dtype + " folds its values");
        };
    }

    // OrderKeys.maxKeys(FloatVector) and OrderKeys.fromMaxKey(int), and the others
    private static OrderKeyRefs orderKeyRefs(String op, Class<?> vector, VectorApi.Methods keyVector, Class<?> key) {
        String suffix = op.equals("max") ? "Max" : "Min";
        return new OrderKeyRefs(MethodRef.of(OrderKeys.class, op + "Keys", vector), keyVector, MethodRef.of(OrderKeys.class, "from" + suffix + "Key", key));
    }

    private static final Map<UnaryOp, MethodRef> FUNCTIONS = new EnumMap<>(UnaryOp.class);
    static {
        for (var op : UnaryOp.values()) {
            var function = resolve(op);
            if (function != null) FUNCTIONS.put(op, function);
        }
    }

    /// The `double -> double` method that computes `op` (`Math.exp` for `exp`), for the operators
    /// that are one call; the others are inline bytecode.
    static MethodRef function(UnaryOp op) {
        var function = FUNCTIONS.get(op);
        if (function == null) throw new IllegalArgumentException(op + " is inline bytecode");
        return function;
    }

    private static MethodRef resolve(UnaryOp op) {
        return switch (op) {
            case EXP, EXPM1, LOG, LOG1P, SIN, COS, TANH, SQRT -> math(op.name().toLowerCase(java.util.Locale.ROOT));
            case SIGN -> scalars("sign");
            case SIGMOID -> scalars("sigmoid");
            case GELU_TANH -> scalars("geluTanh");
            case GELU_ERF -> scalars("geluErf");
            case SILU -> scalars("silu");
            case SOFTPLUS -> scalars("softplus");
            case NEG, ABS, RSQRT, RECIPROCAL, SQUARE, RELU, STOP_GRADIENT -> null;
        };
    }

    private static MethodRef math(String name) { return MethodRef.of(Math.class, name, double.class); }

    private static MethodRef scalars(String name) { return MethodRef.of(Scalars.class, name, double.class); }

    /// [Randoms]' scalar form of `distribution` on `dtype`: `(position, high, low)` to a `float` or `double`.
    static MethodRef random(Distribution distribution, DType dtype) {
        String name = (distribution == Distribution.UNIFORM ? "uniform" : "normal") + (dtype == DType.F64 ? "Double" : "");
        return MethodRef.of(Randoms.class, name, int.class, int.class, int.class);
    }
}
