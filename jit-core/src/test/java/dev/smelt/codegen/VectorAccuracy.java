// SPDX-License-Identifier: Apache-2.0
package dev.smelt.codegen;

import dev.smelt.ir.BinaryOp;
import dev.smelt.ir.DType;
import dev.smelt.ir.Shape;
import dev.smelt.ir.UnaryOp;
import dev.smelt.kernel.Expr;
import dev.smelt.kernel.IndexMap;
import dev.smelt.kernel.Kernel;
import dev.smelt.kernel.KernelInterpreter;
import dev.smelt.testing.Tolerance;
import java.util.List;
import java.util.Random;

/// Measures how far each approximate operator of the vector variant is from the interpreter, by
/// running one-operator kernels `out0 = op(in0)` (or `pow(in0, in1)`) as generated code.
///
/// Run as a program for the numbers in `Tolerance` (it warms each kernel up until C2 has compiled
/// it, so the SVML paths are measured, not the Vector API's Java fallback):
/// `java --add-modules jdk.incubator.vector -cp … dev.smelt.codegen.VectorAccuracy [batches]`.
/// `VectorAccuracyTest` runs a short version against the documented bounds.
final class VectorAccuracy {
    static final int POINTS = 4096;

    /// The worst error seen: in ulps (bit distance in the dtype) where the difference exceeds the
    /// operator's absolute floor, and the largest absolute difference where it does not.
    record Error(long ulps, double absolute, double worstInput, double worstSecond) {}

    static Error measure(Kernel kernel, DType dtype, int batches, int warmups, long seed) {
        var compiled = Compiled.of(kernel, Variant.VECTOR);
        var interpreter = new KernelInterpreter(kernel);
        var random = new Random(seed);
        int arity = kernel.inputs().size();
        Object[] buffers = new Object[arity + 1];
        for (int i = 0; i < warmups; i++) {
            if (i % 256 == 0) fill(buffers, dtype, random, arity);
            compiled.function().run(buffers, 0, POINTS);
        }
        var floor = kernel.outputs().getFirst().value() instanceof Expr.Unary unary ? Tolerance.of(unary.op(), dtype).absolute() : Tolerance.pow(dtype).absolute();
        long worstUlps = 0;
        double worstAbsolute = 0, worstInput = 0, worstSecond = 0;
        for (int batch = 0; batch < batches; batch++) {
            fill(buffers, dtype, random, arity);
            Object[] expected = buffers.clone();
            expected[arity] = dtype == DType.F32 ? new float[POINTS] : new double[POINTS];
            interpreter.run(expected, 0, POINTS);
            compiled.function().run(buffers, 0, POINTS);
            for (int i = 0; i < POINTS; i++) {
                double want = get(expected[arity], i), got = get(buffers[arity], i), difference = Math.abs(want - got);
                boolean bothNaN = Double.isNaN(want) && Double.isNaN(got);
                long ulps = bothNaN ? 0 : Double.isNaN(want) || Double.isNaN(got) ? Long.MAX_VALUE : Tolerance.ulpDistance(dtype, want, got);
                if (ulps > 4 && difference > worstAbsolute && !(Double.isNaN(want) ^ Double.isNaN(got))) worstAbsolute = difference;
                if (difference <= floor && !(Double.isNaN(want) ^ Double.isNaN(got))) continue;
                if (ulps > worstUlps) {
                    worstUlps = ulps;
                    worstInput = get(buffers[0], i);
                    worstSecond = arity > 1 ? get(buffers[1], i) : 0;
                }
            }
        }
        return new Error(worstUlps, worstAbsolute, worstInput, worstSecond);
    }

    static Kernel unary(UnaryOp op, DType dtype) {
        var map = IndexMap.contiguous(Shape.of(POINTS));
        return new Kernel(Shape.of(POINTS), 0, List.of(new Kernel.Input(dtype, POINTS, map)), List.of(),
                List.of(new Kernel.Output(new Expr.Unary(op, new Expr.Load(0, dtype)), POINTS, map, false)));
    }

    static Kernel pow(DType dtype) {
        var map = IndexMap.contiguous(Shape.of(POINTS));
        var input = new Kernel.Input(dtype, POINTS, map);
        return new Kernel(Shape.of(POINTS), 0, List.of(input, input), List.of(),
                List.of(new Kernel.Output(new Expr.Binary(BinaryOp.POW, new Expr.Load(0, dtype), new Expr.Load(1, dtype)), POINTS, map, false)));
    }

    /// Inputs from several ranges: uniform on [-10, 10] and [-100, 100], magnitudes log-uniform over
    /// 2^-60 … 2^60 of either sign, and special values. For `pow`, exponents are uniform on [-8, 8]
    /// or small integers.
    static void fill(Object[] buffers, DType dtype, Random random, int arity) {
        for (int b = 0; b < arity; b++) {
            double[] values = new double[POINTS];
            for (int i = 0; i < POINTS; i++) values[i] = b == 0 ? sample(random) : random.nextBoolean() ? random.nextInt(9) - 4 : random.nextDouble() * 16 - 8;
            buffers[b] = dtype == DType.F32 ? floats(values) : values;
        }
        buffers[arity] = dtype == DType.F32 ? new float[POINTS] : new double[POINTS];
    }

    private static double sample(Random random) {
        return switch (random.nextInt(8)) {
            case 0, 1 -> random.nextDouble() * 20 - 10;
            case 2, 3 -> random.nextDouble() * 200 - 100;
            case 4, 5, 6 -> Math.scalb(1 + random.nextDouble(), random.nextInt(121) - 60) * (random.nextBoolean() ? 1 : -1);
            default -> new double[] {0.0, -0.0, Double.NaN, Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY, 1, -1,
                    Float.MIN_VALUE, Float.MAX_VALUE, 20, 88.72, -87.3, 709.7}[random.nextInt(13)];
        };
    }

    private static float[] floats(double[] values) {
        float[] floats = new float[values.length];
        for (int i = 0; i < values.length; i++) floats[i] = (float) values[i];
        return floats;
    }

    private static double get(Object array, int i) { return array instanceof float[] f ? f[i] : ((double[]) array)[i]; }

    public static void main(String[] args) {
        int batches = args.length > 0 ? Integer.parseInt(args[0]) : 256;
        for (var dtype : List.of(DType.F32, DType.F64)) {
            for (var op : UnaryOp.values()) {
                if (Tolerance.of(op, dtype).ulps() == 0 && Tolerance.of(op, dtype).absolute() == 0 && args.length < 2) continue;
                report(op.toString(), dtype, measure(unary(op, dtype), dtype, batches, 4000, 1));
            }
            report("pow", dtype, measure(pow(dtype), dtype, batches, 4000, 1));
        }
    }

    private static void report(String op, DType dtype, Error error) {
        System.out.printf("%-10s %s  max %d ulps (at %s, %s), max difference where over 4 ulps %.3g%n", op, dtype, error.ulps(), error.worstInput(), error.worstSecond(), error.absolute());
    }
}
