// SPDX-License-Identifier: Apache-2.0
package dev.smelt.codegen;

import dev.smelt.ir.BinaryOp;
import dev.smelt.ir.DType;
import dev.smelt.ir.Distribution;
import dev.smelt.ir.ReduceOp;
import dev.smelt.ir.UnaryOp;
import jdk.incubator.vector.ByteVector;
import jdk.incubator.vector.DoubleVector;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.IntVector;
import jdk.incubator.vector.LongVector;
import jdk.incubator.vector.Vector;
import jdk.incubator.vector.VectorMask;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorShape;
import jdk.incubator.vector.VectorShuffle;
import jdk.incubator.vector.VectorSpecies;

/// Every Vector API member that generated kernels use, in one place, built by reflection (see
/// [MethodRef]). One [Methods] row per vector class; `bool` lanes are stored as `ByteVector`s of 0
/// and 1 and computed as [VectorMask]s.
final class VectorApi {
    private VectorApi() {}

    /// The methods generated code calls on one vector class (`FloatVector` for `f32`, …).
    record Methods(Class<?> vector, MethodRef fromArray, MethodRef gather, MethodRef intoArray,
                   MethodRef broadcast, MethodRef zero, MethodRef add, MethodRef sub, MethodRef mul, MethodRef div,
                   MethodRef max, MethodRef min, MethodRef neg, MethodRef abs, MethodRef unary, MethodRef binary,
                   MethodRef compare, MethodRef compareScalar, MethodRef blend, MethodRef blendScalar,
                   MethodRef reduceLanes, MethodRef castShape, MethodRef test) {
        private static Methods of(Class<?> vector, Class<?> element, Class<?> array) {
            return new Methods(vector,
                    MethodRef.of(vector, "fromArray", VectorSpecies.class, array, int.class),
                    MethodRef.of(vector, "fromArray", VectorSpecies.class, array, int.class, int[].class, int.class),
                    MethodRef.of(vector, "intoArray", array, int.class),
                    MethodRef.of(vector, "broadcast", VectorSpecies.class, element),
                    MethodRef.of(vector, "zero", VectorSpecies.class),
                    MethodRef.lanewise(vector, "ADD", 1), MethodRef.lanewise(vector, "SUB", 1), MethodRef.lanewise(vector, "MUL", 1),
                    MethodRef.lanewise(vector, "DIV", 1), MethodRef.lanewise(vector, "MAX", 1), MethodRef.lanewise(vector, "MIN", 1),
                    MethodRef.lanewise(vector, "NEG", 0), MethodRef.lanewise(vector, "ABS", 0), // not the shorthands a.add(b), a.neg(): see MethodRef
                    MethodRef.of(vector, "lanewise", VectorOperators.Unary.class),
                    MethodRef.of(vector, "lanewise", VectorOperators.Binary.class, Vector.class),
                    MethodRef.of(vector, "compare", VectorOperators.Comparison.class, Vector.class),
                    MethodRef.of(vector, "compare", VectorOperators.Comparison.class, long.class),
                    MethodRef.of(vector, "blend", Vector.class, VectorMask.class),
                    MethodRef.of(vector, "blend", long.class, VectorMask.class),
                    MethodRef.of(vector, "reduceLanes", VectorOperators.Associative.class),
                    MethodRef.of(vector, "castShape", VectorSpecies.class, int.class),
                    MethodRef.of(vector, "test", VectorOperators.Test.class));
        }
    }

    static final Methods FLOAT = Methods.of(FloatVector.class, float.class, float[].class);
    static final Methods DOUBLE = Methods.of(DoubleVector.class, double.class, double[].class);
    static final Methods INT = Methods.of(IntVector.class, int.class, int[].class);
    /// Only for the keys of an `f64` `max` or `min` reduction ([OrderKeys]).
    static final Methods LONG = Methods.of(LongVector.class, long.class, long[].class);
    static final Methods BYTE = Methods.of(ByteVector.class, byte.class, byte[].class);

    /// `IntVector.addIndex(1)` turns a broadcast `j` into the lane indices `j, j+1, …`.
    static final MethodRef ADD_INDEX = MethodRef.of(IntVector.class, "addIndex", int.class);

    /// [Lanes]: what vector code computes lane by lane, to give the scalar twin's bits.
    static final MethodRef POW_INT_LANES = MethodRef.of(Lanes.class, "pow", IntVector.class, IntVector.class);
    static final MethodRef POW_FLOAT_LANES = MethodRef.of(Lanes.class, "pow", FloatVector.class, FloatVector.class);
    static final MethodRef POW_DOUBLE_LANES = MethodRef.of(Lanes.class, "pow", DoubleVector.class, DoubleVector.class);
    static final MethodRef LANES_FLOAT = MethodRef.of(Lanes.class, "apply", FloatVector.class, UnaryOp.class);
    static final MethodRef LANES_DOUBLE = MethodRef.of(Lanes.class, "apply", DoubleVector.class, UnaryOp.class);
    static final MethodRef OUTSIDE = MethodRef.of(Lanes.class, "outside", FloatVector.class, FloatVector.class, VectorMask.class, UnaryOp.class);
    static final MethodRef SHUFFLE_IOTA = MethodRef.of(VectorShuffle.class, "iota", VectorSpecies.class, int.class, int.class, boolean.class);
    static final MethodRef FLOAT_REARRANGE = MethodRef.of(FloatVector.class, "rearrange", VectorShuffle.class);
    static final MethodRef DOUBLE_REARRANGE = MethodRef.of(DoubleVector.class, "rearrange", VectorShuffle.class);
    static final MethodRef FLOAT_LANE = MethodRef.of(FloatVector.class, "lane", int.class);
    static final MethodRef DOUBLE_LANE = MethodRef.of(DoubleVector.class, "lane", int.class);
    static final MethodRef LOOP_BOUND = MethodRef.of(VectorSpecies.class, "loopBound", int.class);
    static final MethodRef MASK_ALL = MethodRef.of(VectorSpecies.class, "maskAll", boolean.class);
    static final MethodRef SPECIES_OF = MethodRef.of(VectorSpecies.class, "of", Class.class, VectorShape.class);
    static final MethodRef SHAPE_FOR_BITS = MethodRef.of(VectorShape.class, "forBitSize", int.class);

    /// `VectorSpecies.of(float.class, VectorShape.forBitSize(bits))` on the stack: the constant
    /// species a generated class keeps in a `static final` field.
    static void speciesOf(org.objectweb.asm.MethodVisitor mv, DType dtype, int bits) {
        elementClass(dtype).get(mv);
        new Code(mv).pushInt(bits);
        SHAPE_FOR_BITS.invoke(mv);
        SPECIES_OF.invoke(mv);
    }

    static final MethodRef MASK_CAST = MethodRef.of(VectorMask.class, "cast", VectorSpecies.class);
    static final MethodRef MASK_AND = MethodRef.of(VectorMask.class, "and", VectorMask.class);
    static final MethodRef MASK_OR = MethodRef.of(VectorMask.class, "or", VectorMask.class);
    static final MethodRef MASK_AND_NOT = MethodRef.of(VectorMask.class, "andNot", VectorMask.class);
    static final MethodRef MASK_NOT = MethodRef.of(VectorMask.class, "not");
    static final MethodRef MASK_EQ = MethodRef.of(VectorMask.class, "eq", VectorMask.class);

    /// What the steps of a rewritten transcendental ([VectorMath]) call beyond the rows: FMA, the
    /// float bits as ints and back, int lanes with an int (`lanewise(LSHL, 23)`), and whether a mask
    /// holds in every lane.
    static final MethodRef FLOAT_FMA = MethodRef.lanewise(FloatVector.class, "FMA", 2);
    static final MethodRef DOUBLE_FMA = MethodRef.lanewise(DoubleVector.class, "FMA", 2);
    // viewAs…Lanes, not reinterpretAs…: the same bits, dispatched at the kernel's own call (see MethodRef#lanewise)
    static final MethodRef FLOAT_AS_INTS = MethodRef.of(FloatVector.class, "viewAsIntegralLanes");
    static final MethodRef INT_AS_FLOATS = MethodRef.of(IntVector.class, "viewAsFloatingLanes");
    static final MethodRef INT_WITH_INT = MethodRef.of(IntVector.class, "lanewise", VectorOperators.Binary.class, int.class);
    static final MethodRef MASK_ALL_TRUE = MethodRef.of(VectorMask.class, "allTrue");

    static final FieldRef LSHL = operator("LSHL");
    static final FieldRef XOR = operator("XOR");
    static final FieldRef AND = operator("AND");
    static final FieldRef OR = operator("OR");
    static final FieldRef LSHR = operator("LSHR");
    static final FieldRef LE = operator("LE");
    static final FieldRef NE = operator("NE");
    static final FieldRef GT = operator("GT");
    static final FieldRef LT = operator("LT");
    static final FieldRef EQ = operator("EQ");
    static final FieldRef IS_INFINITE = operator("IS_INFINITE");
    static final FieldRef POW = operator("POW");

    static Methods of(DType dtype) {
        return switch (dtype) {
            case BOOL -> BYTE;
            case I32 -> INT;
            case F32 -> FLOAT;
            case F64 -> DOUBLE;
        };
    }

    /// `Float.TYPE` (`float.class`) and the others: the element class `VectorSpecies.of` takes.
    static FieldRef elementClass(DType dtype) {
        return switch (dtype) {
            case BOOL -> FieldRef.of(Byte.class, "TYPE");
            case I32 -> FieldRef.of(Integer.class, "TYPE");
            case F32 -> FieldRef.of(Float.class, "TYPE");
            case F64 -> FieldRef.of(Double.class, "TYPE");
        };
    }

    /// The `VectorOperators` constant a lanewise transcendental uses (`EXP` for `exp`).
    static FieldRef operator(UnaryOp op) { return operator(op.name()); }

    /// The comparison constant for a comparison operator (`LT` for `lt`).
    static FieldRef comparison(BinaryOp op) { return operator(op.name()); }

    /// The `reduceLanes` operator that finishes a vector accumulator of `op`.
    static FieldRef associative(ReduceOp op) {
        return switch (op) {
            case SUM -> operator("ADD");
            case PROD -> operator("MUL");
            case MAX -> operator("MAX");
            case MIN -> operator("MIN");
            case ARGMAX, ARGMIN -> throw new IllegalArgumentException(op + " has no lanewise fold");
        };
    }

    private static FieldRef operator(String name) { return FieldRef.of(VectorOperators.class, name); }

    /// [Randoms]' vector form of `distribution` on `dtype`: `(species, positions, high, low)` to a vector.
    static MethodRef random(Distribution distribution, DType dtype) {
        String name = (distribution == Distribution.UNIFORM ? "uniform" : "normal") + (dtype == DType.F64 ? "Double" : "");
        return MethodRef.of(Randoms.class, name, VectorSpecies.class, IntVector.class, int.class, int.class);
    }
}
