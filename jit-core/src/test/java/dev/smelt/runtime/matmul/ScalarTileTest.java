// SPDX-License-Identifier: Apache-2.0
package dev.smelt.runtime.matmul;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.smelt.codegen.MicroKernelShape;
import dev.smelt.ir.DType;
import java.util.Random;
import org.junit.jupiter.api.Test;

/// The scalar tile against one FMA chain per element on every tile shape up to 7 rows and 9 columns
/// (rows left over from its blocks of three, columns from its blocks of four), with and without
/// accumulating, at offsets, in f32 and f64: bit for bit, as the vector tile is.
class ScalarTileTest {
    @Test
    void everyShapeIsOneChainOfFmasPerElement() {
        var random = new Random(7);
        for (DType dtype : new DType[] {DType.F32, DType.F64})
            for (int rows = 1; rows <= 7; rows++)
                for (int lanes = 1; lanes <= 3; lanes++)
                    for (int vectors = 1; vectors <= 3; vectors++) {
                        var shape = new MicroKernelShape(dtype, rows, vectors, lanes);
                        int columns = shape.columns(), depth = 1 + random.nextInt(9), ldc = columns + random.nextInt(3), offset = random.nextInt(4);
                        double[] a = values(random, offset + rows * depth), b = values(random, offset + columns * depth), c = values(random, offset + rows * ldc);
                        boolean accumulate = random.nextBoolean();
                        if (dtype == DType.F32) checkFloats(shape, a, b, c, depth, ldc, offset, accumulate);
                        else checkDoubles(shape, a, b, c, depth, ldc, offset, accumulate);
                    }
    }

    private static void checkFloats(MicroKernelShape shape, double[] a, double[] b, double[] c, int depth, int ldc, int offset, boolean accumulate) {
        float[] fa = floats(a), fb = floats(b), fc = floats(c), expected = fc.clone();
        for (int r = 0; r < shape.rows(); r++)
            for (int j = 0; j < shape.columns(); j++) {
                float sum = 0;
                for (int p = 0; p < depth; p++) sum = Math.fma(fa[offset + p * shape.rows() + r], fb[offset + p * shape.columns() + j], sum);
                int at = offset + r * ldc + j;
                expected[at] = accumulate ? expected[at] + sum : sum;
            }
        new ScalarTile(shape).run(fa, offset, fb, offset, depth, fc, offset, ldc, accumulate);
        for (int i = 0; i < fc.length; i++) assertEquals(Float.floatToRawIntBits(expected[i]), Float.floatToRawIntBits(fc[i]), shape + " element " + i);
    }

    private static void checkDoubles(MicroKernelShape shape, double[] a, double[] b, double[] c, int depth, int ldc, int offset, boolean accumulate) {
        double[] expected = c.clone();
        for (int r = 0; r < shape.rows(); r++)
            for (int j = 0; j < shape.columns(); j++) {
                double sum = 0;
                for (int p = 0; p < depth; p++) sum = Math.fma(a[offset + p * shape.rows() + r], b[offset + p * shape.columns() + j], sum);
                int at = offset + r * ldc + j;
                expected[at] = accumulate ? expected[at] + sum : sum;
            }
        new ScalarTile(shape).run(a, offset, b, offset, depth, c, offset, ldc, accumulate);
        for (int i = 0; i < c.length; i++) assertEquals(Double.doubleToRawLongBits(expected[i]), Double.doubleToRawLongBits(c[i]), shape + " element " + i);
    }

    private static double[] values(Random random, int length) {
        double[] values = new double[length];
        for (int i = 0; i < length; i++) values[i] = random.nextGaussian();
        return values;
    }

    private static float[] floats(double[] values) {
        float[] floats = new float[values.length];
        for (int i = 0; i < values.length; i++) floats[i] = (float) values[i];
        return floats;
    }
}
