// SPDX-License-Identifier: Apache-2.0
package dev.smelt.codegen;

import static dev.smelt.codegen.Kernels.X;
import static dev.smelt.codegen.Kernels.binary;
import static dev.smelt.codegen.Kernels.result;
import static dev.smelt.codegen.Kernels.unary;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.smelt.ir.BinaryOp;
import dev.smelt.ir.DType;
import dev.smelt.ir.ReduceOp;
import dev.smelt.ir.Shape;
import dev.smelt.ir.UnaryOp;
import dev.smelt.kernel.Expr;
import dev.smelt.kernel.IndexMap;
import dev.smelt.kernel.Kernel;
import dev.smelt.kernel.KernelInterpreter;
import dev.smelt.kernel.Transcendentals;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/// The kernel interpreter, run on a kernel as [Transcendentals] rewrites it, computes the bits of
/// both generated variants: the polynomials are then tested apart from bytecode, and the variants
/// agree because they emit one tree. Inputs are random floats of every kind: uniform ranges,
/// magnitudes log-uniform over the whole exponent range, raw bit patterns (NaNs with payloads,
/// subnormals), special values and the edges of the polynomials' ranges, in lengths with a vector
/// tail. Bits are compared raw, except between two NaNs: which NaN operand's payload an operation
/// keeps is no part of the contract (nor of `TierAgreementTest`'s), and differs between the
/// interpreter's double arithmetic and float instructions once two NaNs meet.
class TranscendentalsTest {
    /// Not a multiple of any vector width: the last points run in the scalar tail of the vector variant.
    static final int POINTS = 4099;
    static final int CALLS = 12;

    static Stream<Arguments> rewritten() {
        return Stream.of(DType.F32, DType.F64).flatMap(dtype -> Arrays.stream(UnaryOp.values())
                .filter(op -> Transcendentals.rewrites(op, dtype)).map(op -> Arguments.of(op, dtype)));
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("rewritten")
    void interpreterOfTheRewriteGivesTheBitsOfBothVariants(UnaryOp op, DType dtype) {
        var space = Shape.of(POINTS);
        var map = IndexMap.contiguous(space);
        var kernel = new Kernel(space, 0, List.of(new Kernel.Input(dtype, POINTS, map)), List.of(),
                List.of(new Kernel.Output(new Expr.Unary(op, new Expr.Load(0, dtype)), POINTS, map, false)));
        assertEquals(CALLS * POINTS, compare(kernel, new Random(op.ordinal() * 7L + dtype.ordinal())));
    }

    /// Where the argument is the same along the inner axis, vector code computes it as a scalar and
    /// broadcasts it (a row's `exp(r0)` once before the loop, a stride-0 input's `cos` at each
    /// vector); elsewhere in the same kernel as vectors, inside a reduction, a select, and around
    /// another rewritten operator.
    @Test
    void rewritesInRowValuesBroadcastsReductionsAndNestingGiveTheSameBits() {
        var space = Shape.of(7, 37);
        var row = new Kernel.Input(DType.F32, 7, new IndexMap(0, List.of(1, 0)));
        Expr y = new Expr.Load(1, DType.F32);
        Expr shifted = unary(UnaryOp.EXP, binary(BinaryOp.SUB, X, result(0)));
        Expr value = binary(BinaryOp.ADD, binary(BinaryOp.MUL, shifted, unary(UnaryOp.SIN, result(0))),
                binary(BinaryOp.MUL, unary(UnaryOp.COS, y), unary(UnaryOp.SIGMOID, unary(UnaryOp.EXP, unary(UnaryOp.SIN, X)))));
        Expr selected = new Expr.Where(binary(BinaryOp.GT, X, y), unary(UnaryOp.SILU, X), unary(UnaryOp.GELU_TANH, y));
        var kernel = new Kernel(space, 1, List.of(Kernels.input(space), row),
                List.of(new Kernel.Reduction(ReduceOp.MAX, X), new Kernel.Reduction(ReduceOp.MIN, unary(UnaryOp.SOFTPLUS, selected))),
                List.of(Kernels.output(value, space), new Kernel.Output(binary(BinaryOp.ADD, unary(UnaryOp.EXP, result(1)), result(1)), 7,
                        new IndexMap(0, List.of(1, 0)), true)));
        assertEquals(CALLS * (7 * 37 + 7), compare(kernel, new Random(3)));
    }

    /// The rewrite leaves no operator it covers and nothing else: an `f32` log1p stays an operator.
    @Test
    void theRewriteReplacesExactlyTheOperatorsItCovers() {
        var kernel = Kernels.pointwise(Shape.of(8), binary(BinaryOp.ADD, unary(UnaryOp.SIGMOID, X), unary(UnaryOp.LOG1P, X)));
        var rewritten = Transcendentals.expand(kernel).outputs().getFirst().value();
        var operators = new java.util.ArrayList<UnaryOp>();
        Expr.walk(rewritten, node -> { if (node instanceof Expr.Unary u) operators.add(u.op()); });
        assertTrue(operators.contains(UnaryOp.LOG1P), rewritten.toString());
        assertFalse(operators.contains(UnaryOp.SIGMOID) || operators.contains(UnaryOp.EXP), rewritten.toString());
        var log = Kernels.pointwise(Shape.of(8), unary(UnaryOp.LOG1P, X));
        assertEquals(log.toString(), Transcendentals.expand(log).toString());
    }

    /// Runs the kernel `CALLS` times on fresh inputs with the interpreter on its rewritten form and
    /// with both variants, and fails on the first element whose bits differ; returns the elements compared.
    private static long compare(Kernel kernel, Random random) {
        var interpreter = new KernelInterpreter(Transcendentals.expand(kernel));
        var scalar = Compiled.of(kernel, Variant.SCALAR).function();
        var vector = Compiled.of(kernel, Variant.VECTOR).function();
        long compared = 0;
        for (int call = 0; call < CALLS; call++) {
            int inputs = kernel.inputs().size();
            Object[] expected = new Object[inputs + kernel.outputs().size()];
            for (int b = 0; b < inputs; b++) expected[b] = fill(kernel.inputs().get(b).dtype(), kernel.inputs().get(b).size(), random);
            for (int i = 0; i < kernel.outputs().size(); i++) {
                var output = kernel.outputs().get(i);
                expected[inputs + i] = output.dtype() == DType.F32 ? new float[output.size()] : new double[output.size()];
            }
            Object[] fromScalar = dev.smelt.testing.RandomData.copy(expected), fromVector = dev.smelt.testing.RandomData.copy(expected);
            interpreter.run(expected, 0, kernel.workItems());
            scalar.run(fromScalar, 0, kernel.workItems());
            vector.run(fromVector, 0, kernel.workItems());
            for (int i = 0; i < kernel.outputs().size(); i++) {
                int b = inputs + i;
                same(expected[b], fromVector[b], "vector", expected, kernel);
                compared += same(expected[b], fromScalar[b], "scalar", expected, kernel);
            }
        }
        return compared;
    }

    private static long same(Object expected, Object actual, String variant, Object[] buffers, Kernel kernel) {
        int length = java.lang.reflect.Array.getLength(expected);
        for (int i = 0; i < length; i++) {
            long a = bits(expected, i), b = bits(actual, i);
            if (a != b && !(isNaN(expected, i) && isNaN(actual, i))) fail("%s variant, element %d: interpreter %s, generated %s (input %s)%n%s".formatted(variant, i,
                    java.lang.reflect.Array.get(expected, i), java.lang.reflect.Array.get(actual, i), java.lang.reflect.Array.get(buffers[0], Math.min(i, java.lang.reflect.Array.getLength(buffers[0]) - 1)), kernel));
        }
        return length;
    }

    private static boolean isNaN(Object array, int i) { return array instanceof float[] f ? Float.isNaN(f[i]) : Double.isNaN(((double[]) array)[i]); }

    private static long bits(Object array, int i) {
        return array instanceof float[] f ? Float.floatToRawIntBits(f[i]) : Double.doubleToRawLongBits(((double[]) array)[i]);
    }

    private static final float[] SPECIAL = {Float.NaN, Float.intBitsToFloat(0x7fc01234), Float.intBitsToFloat(0xffa00001), 0f, -0f,
            Float.POSITIVE_INFINITY, Float.NEGATIVE_INFINITY, Float.MIN_VALUE, -Float.MIN_VALUE, 1e-40f, Float.MIN_NORMAL, Float.MAX_VALUE,
            -Float.MAX_VALUE, Transcendentals.EXP_HIGH, Math.nextUp(Transcendentals.EXP_HIGH), Transcendentals.EXP_LOW, Math.nextDown(Transcendentals.EXP_LOW), 88.37f, 88.72f, -87.3f, -103.9f,
            Transcendentals.TRIG_LIMIT, Math.nextUp(Transcendentals.TRIG_LIMIT), -Transcendentals.TRIG_LIMIT, 1e30f, -3e9f, 20f, Math.nextUp(20f),
            (float) Math.PI, (float) (Math.PI / 2), 1, -1};

    private static Object fill(DType dtype, int size, Random random) {
        double[] values = new double[size];
        for (int i = 0; i < size; i++)
            values[i] = switch (random.nextInt(6)) {
                case 0 -> random.nextDouble() * 20 - 10;
                case 1 -> random.nextDouble() * 300 - 150;
                case 2 -> Math.scalb(1 + random.nextDouble(), random.nextInt(300) - 150) * (random.nextBoolean() ? 1 : -1);
                case 3 -> Float.intBitsToFloat(random.nextInt());
                default -> SPECIAL[random.nextInt(SPECIAL.length)];
            };
        if (dtype == DType.F64) return values;
        float[] floats = new float[size];
        for (int i = 0; i < size; i++) floats[i] = (float) values[i];
        return floats;
    }
}
