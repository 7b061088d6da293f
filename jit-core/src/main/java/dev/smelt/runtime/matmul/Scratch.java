// SPDX-License-Identifier: Apache-2.0
package dev.smelt.runtime.matmul;

import dev.smelt.ir.DType;
import java.util.Arrays;

/// One thread's packing buffers, edge tile, (for an epilogue updating an input in place) product
/// accumulator and epilogue tables of buffers, grown on demand and reused by every matmul the
/// thread runs, so a call allocates nothing once warm.
final class Scratch {
    private Object left, right, edge, accumulator;
    private Object[][] tables = new Object[0][];

    /// An empty table of `length` buffers; the caller empties it again after use.
    Object[] table(int length) {
        if (length >= tables.length) tables = Arrays.copyOf(tables, length + 1);
        if (tables[length] == null) tables[length] = new Object[length];
        return tables[length];
    }

    Object packedLeft(DType dtype, int length) { return left = fit(left, dtype, length); }

    Object packedRight(DType dtype, int length) { return right = fit(right, dtype, length); }

    Object edge(DType dtype, int length) { return edge = fit(edge, dtype, length); }

    Object accumulator(DType dtype, int length) { return accumulator = fit(accumulator, dtype, length); }

    private static Object fit(Object array, DType dtype, int length) {
        if (dtype == DType.F32) return array instanceof float[] f && f.length >= length ? f : new float[length];
        return array instanceof double[] d && d.length >= length ? d : new double[length];
    }

    static void zero(Object array, int from, int to) {
        if (array instanceof float[] f) java.util.Arrays.fill(f, from, to, 0f);
        else java.util.Arrays.fill((double[]) array, from, to, 0d);
    }

    /// `C[at + r·ldc + j] (+)= tile[r·width + j]` for the `height × valid` part of an edge tile.
    static void copyEdge(Object tile, int width, Object c, int at, int ldc, int height, int valid, boolean accumulate) {
        for (int r = 0; r < height; r++) {
            int from = r * width, to = at + r * ldc;
            if (tile instanceof float[] t) {
                float[] out = (float[]) c;
                for (int j = 0; j < valid; j++) out[to + j] = accumulate ? out[to + j] + t[from + j] : t[from + j];
            } else {
                double[] t = (double[]) tile, out = (double[]) c;
                for (int j = 0; j < valid; j++) out[to + j] = accumulate ? out[to + j] + t[from + j] : t[from + j];
            }
        }
    }
}
