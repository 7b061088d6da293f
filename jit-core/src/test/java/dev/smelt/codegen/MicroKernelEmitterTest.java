// SPDX-License-Identifier: Apache-2.0
package dev.smelt.codegen;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.smelt.ir.DType;
import dev.smelt.runtime.KernelLoader;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.Random;
import java.util.stream.Stream;
import jdk.incubator.vector.FloatVector;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.objectweb.asm.ClassReader;
import org.objectweb.asm.util.CheckClassAdapter;

/// Every micro-kernel shape the machine could ask for (rows, vectors, lanes, f32 and f64) verifies
/// with ASM's `CheckClassAdapter`, stays under HotSpot's 8000-byte limit, and computes
/// `C (+)= A·B` on packed panels within the K-scaled bound of f32/f64 summation, with and without
/// accumulating, at an offset and a row stride wider than the tile.
class MicroKernelEmitterTest {
    static Stream<MicroKernelShape> shapes() {
        int bits = FloatVector.SPECIES_PREFERRED.vectorBitSize();
        var shapes = Stream.<MicroKernelShape>builder();
        for (DType dtype : new DType[] {DType.F32, DType.F64})
            for (int width = 128; width <= bits; width *= 2)
                for (int[] tile : new int[][] {{1, 1}, {6, 2}, {6, 4}, {8, 3}, {3, 1}})
                    shapes.add(new MicroKernelShape(dtype, tile[0], tile[1], width / (dtype.bytes() * 8)));
        shapes.add(MicroKernelShape.of(DType.F32)).add(MicroKernelShape.of(DType.F64));
        return shapes.build();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("shapes")
    void microKernelsVerifyAndMultiply(MicroKernelShape shape) {
        var generated = MicroKernelEmitter.emit(shape);
        var report = new StringWriter();
        CheckClassAdapter.verify(new ClassReader(generated.bytes()), getClass().getClassLoader(), false, new PrintWriter(report));
        if (!report.toString().isEmpty()) fail(shape + " does not verify:\n" + report);
        assertTrue(generated.runCodeSize() <= KernelEmitter.METHOD_LIMIT, generated.toString());
        var tile = KernelLoader.load(generated, MicroKernel.class);
        var random = new Random(shape.hashCode());
        for (int depth : new int[] {0, 1, 7, 33})
            for (boolean accumulate : new boolean[] {false, true}) check(shape, tile, depth, accumulate, random);
    }

    private static void check(MicroKernelShape shape, MicroKernel tile, int depth, boolean accumulate, Random random) {
        int rows = shape.rows(), columns = shape.columns(), ldc = columns + 5, offset = 3;
        double[] a = values(random, 2 + rows * depth), b = values(random, 1 + columns * depth), c = values(random, offset + rows * ldc);
        Object result = array(shape.dtype(), c);
        tile.run(array(shape.dtype(), a), 2, array(shape.dtype(), b), 1, depth, result, offset, ldc, accumulate);
        double epsilon = shape.dtype() == DType.F32 ? Math.ulp(1f) : Math.ulp(1d);
        for (int r = 0; r < rows; r++)
            for (int j = 0; j < columns; j++) {
                double exact = accumulate ? c[offset + r * ldc + j] : 0, magnitude = Math.abs(exact);
                for (int p = 0; p < depth; p++) {
                    exact += a[2 + p * rows + r] * b[1 + p * columns + j];
                    magnitude += Math.abs(a[2 + p * rows + r] * b[1 + p * columns + j]);
                }
                double got = java.lang.reflect.Array.getDouble(result, offset + r * ldc + j);
                if (Math.abs(got - exact) > (depth + 2) * epsilon * magnitude)
                    fail("%s, depth %d, accumulate %b: C[%d][%d] = %s, exact %s".formatted(shape, depth, accumulate, r, j, got, exact));
            }
    }

    // Values exact in f32, so the reference sees what the kernel reads.
    private static double[] values(Random random, int length) {
        double[] values = new double[length];
        for (int i = 0; i < length; i++) values[i] = (float) random.nextGaussian();
        return values;
    }

    private static Object array(DType dtype, double[] values) {
        if (dtype == DType.F64) return values.clone();
        float[] floats = new float[values.length];
        for (int i = 0; i < values.length; i++) floats[i] = (float) values[i];
        return floats;
    }
}
