// SPDX-License-Identifier: Apache-2.0
package dev.smelt.ref;

import static dev.smelt.ref.Evaluate.assertValues;
import static dev.smelt.ref.Evaluate.f32;
import static dev.smelt.ref.Evaluate.f64;
import static dev.smelt.ref.Evaluate.input;
import static dev.smelt.ref.Evaluate.run;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.smelt.ir.DType;
import dev.smelt.ir.Node;
import dev.smelt.ir.Shape;
import dev.smelt.ir.Storage;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;

/// Known cases for [Node.MatMul], and every transpose combination against a naive triple loop.
class InterpreterMatMulTest {
    static final int BATCH = 2, M = 2, K = 3, N = 4;

    @Test
    void knownProduct() {
        // [[1,2,3],[4,5,6]] · [[7,8],[9,10],[11,12]] = [[58,64],[139,154]]
        var a = input(0, DType.F64, 2, 3);
        var b = input(1, DType.F64, 3, 2);
        assertValues(DType.F64, new double[] {58, 64, 139, 154},
                run(new Node.MatMul(a, b, false, false), f64(1, 2, 3, 4, 5, 6), f64(7, 8, 9, 10, 11, 12)));
    }

    @ParameterizedTest(name = "transposeA={0}, transposeB={1}")
    @CsvSource({"false,false", "false,true", "true,false", "true,true"})
    void batchedProductMatchesNaiveLoop(boolean transposeA, boolean transposeB) {
        double[][][] a = matrices(BATCH, M, K, 1), b = matrices(BATCH, K, N, 2);
        var left = input(0, DType.F32, transposeA ? new int[] {BATCH, K, M} : new int[] {BATCH, M, K});
        var right = input(1, DType.F32, transposeB ? new int[] {BATCH, N, K} : new int[] {BATCH, K, N});
        var matMul = new Node.MatMul(left, right, transposeA, transposeB);
        assertEquals(Shape.of(BATCH, M, N), matMul.shape());
        assertValues(DType.F32, naiveProduct(a, b), run(matMul, stored(a, transposeA), stored(b, transposeB)));
    }

    @Test
    void emptyContractionGivesZerosAndEmptyRowsGiveNothing() {
        var a = input(0, DType.F32, 2, 0);
        var b = input(1, DType.F32, 0, 3);
        assertValues(DType.F32, new double[] {0, 0, 0, 0, 0, 0}, run(new Node.MatMul(a, b, false, false), f32(), f32()));
        var rows = input(0, DType.F32, 0, 2);
        var c = input(1, DType.F32, 2, 3);
        assertValues(DType.F32, new double[] {}, run(new Node.MatMul(rows, c, false, false), f32(), f32(1, 2, 3, 4, 5, 6)));
    }

    @Test
    void f32ProductAccumulatesInDoubleAndRoundsOnce() {
        // In float, 1e8 + 1 = 1e8 and the dot product would be 0.
        var a = input(0, DType.F32, 1, 3);
        var b = input(1, DType.F32, 3, 1);
        assertValues(DType.F32, new double[] {1}, run(new Node.MatMul(a, b, false, false), f32(1e8f, 1, -1e8f), f32(1, 1, 1)));
    }

    @Test
    void nanAndInfinityPropagate() {
        var a = input(0, DType.F64, 2, 2);
        var b = input(1, DType.F64, 2, 1);
        assertValues(DType.F64, new double[] {Double.NaN, Double.POSITIVE_INFINITY},
                run(new Node.MatMul(a, b, false, false), f64(0, 1, 1, 1), f64(Double.POSITIVE_INFINITY, 1)));
    }

    // Values with fractions, so that any mix-up of indices changes the result.
    private static double[][][] matrices(int batches, int rows, int columns, int seed) {
        double[][][] matrices = new double[batches][rows][columns];
        for (int batch = 0; batch < batches; batch++)
            for (int row = 0; row < rows; row++)
                for (int column = 0; column < columns; column++)
                    matrices[batch][row][column] = (float) (((batch * 31 + row * 7 + column * 3 + seed * 5) % 13 - 6) / 8.0 + 0.1 * seed);
        return matrices;
    }

    // The logical matrices laid out row-major, or with their two last axes swapped.
    private static Storage stored(double[][][] matrices, boolean transposed) {
        int rows = matrices[0].length, columns = matrices[0][0].length;
        var storage = Storage.allocate(DType.F32, matrices.length * rows * columns);
        int index = 0;
        for (double[][] matrix : matrices)
            for (int outer = 0; outer < (transposed ? columns : rows); outer++)
                for (int inner = 0; inner < (transposed ? rows : columns); inner++)
                    storage.set(index++, transposed ? matrix[inner][outer] : matrix[outer][inner]);
        return storage;
    }

    private static double[] naiveProduct(double[][][] a, double[][][] b) {
        double[] product = new double[BATCH * M * N];
        for (int batch = 0; batch < BATCH; batch++)
            for (int i = 0; i < M; i++)
                for (int j = 0; j < N; j++) {
                    double sum = 0;
                    for (int p = 0; p < K; p++) sum += a[batch][i][p] * b[batch][p][j];
                    product[(batch * M + i) * N + j] = sum;
                }
        return product;
    }
}
