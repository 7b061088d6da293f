// SPDX-License-Identifier: Apache-2.0
package dev.smelt;

import static dev.smelt.TensorAssertions.assertClose;
import static dev.smelt.TensorAssertions.assertTensor;
import static dev.smelt.TensorAssertions.shape;

import dev.smelt.ir.DType;
import org.junit.jupiter.api.Test;

/// NumPy `matmul`: vectors, matrices and broadcast batches, checked by hand and against a naive
/// triple loop that accumulates in double and rounds once, as the interpreter specifies.
class MatMulTest {
    private static final Tensor M = Tensor.of(new float[] {1, 2, 3, 4, 5, 6}, 2, 3);   // [[1,2,3],[4,5,6]]

    @Test
    void vectorDotVectorIsZeroDimensional() {
        var dot = Tensor.of(new float[] {1, 2, 3}).matmul(Tensor.of(new float[] {4, 5, 6}));
        assertTensor(dot, DType.F32, shape(), 32);
    }

    @Test
    void vectorTimesMatrixAndMatrixTimesVectorDropTheVectorAxis() {
        assertTensor(Tensor.of(new float[] {1, 2}).matmul(M), DType.F32, shape(3), 9, 12, 15);
        assertTensor(M.matmul(Tensor.of(new float[] {1, 0, -1})), DType.F32, shape(2), -2, -2);
    }

    @Test
    void matrixTimesMatrix() {
        var b = Tensor.of(new float[] {1, 0, 0, 1, 2, -1}, 3, 2);
        assertTensor(M.matmul(b), DType.F32, shape(2, 2), 7, -1, 16, -1);
        assertTensor(M.matmul(M.t()), DType.F32, shape(2, 2), 14, 32, 32, 77);
        assertTensor(M.t().matmul(M), DType.F32, shape(3, 3), 17, 22, 27, 22, 29, 36, 27, 36, 45);
    }

    @Test
    void batchDimensionsBroadcast() {
        var generator = new Generator(11);
        var a = Tensor.randn(generator, 2, 1, 3, 4);
        var b = Tensor.randn(generator, 5, 4, 2);
        var product = a.matmul(b);
        assertClose(product, DType.F32, shape(2, 5, 3, 2), bound(4), naive(a.expand(2, 5, 3, 4), b.expand(2, 5, 4, 2)));
        assertClose(b.matmul(b.t()), DType.F32, shape(5, 4, 4), bound(2), naive(b, b.transpose(1, 2)));
    }

    @Test
    void vectorsBroadcastAgainstBatches() {
        var batch = Tensor.arange(24).reshape(2, 3, 4).to(DType.F32);
        var vector = Tensor.of(new float[] {1, -1, 2});
        // [3] · [2,3,4] -> [2,4]: the vector is a row, its axis removed.
        assertTensor(vector.matmul(batch), DType.F32, shape(2, 4), 12, 14, 16, 18, 36, 38, 40, 42);
        // [2,3,4] · [4] -> [2,3]
        assertTensor(batch.matmul(Tensor.ones(4)), DType.F32, shape(2, 3), 6, 22, 38, 54, 70, 86);
    }

    @Test
    void emptyContractionGivesZerosAndEmptyOperandsGiveEmptyResults() {
        assertTensor(Tensor.zeros(2, 0).matmul(Tensor.zeros(0, 3)), DType.F32, shape(2, 3), 0, 0, 0, 0, 0, 0);
        assertTensor(Tensor.zeros(0).matmul(Tensor.zeros(0)), DType.F32, shape(), 0);
        assertTensor(Tensor.zeros(0, 3).matmul(Tensor.ones(3, 2)), DType.F32, shape(0, 2));
        assertTensor(Tensor.ones(2, 3).matmul(Tensor.ones(3, 0)), DType.F32, shape(2, 0));
        assertTensor(Tensor.ones(0, 2, 3).matmul(Tensor.ones(3, 4)), DType.F32, shape(0, 2, 4));
        assertTensor(Tensor.ones(1, 1).matmul(Tensor.ones(1, 1)), DType.F32, shape(1, 1), 1);
    }

    @Test
    void stridedOperandsMatchTheirDenseCopies() {
        var generator = new Generator(5);
        var a = Tensor.randn(generator, 6, 4);
        var b = Tensor.randn(generator, 3, 8);
        var stepped = b.slice(1, 0, 8, 2);                                        // [3,4], stride 2
        assertClose(a.slice(0, 1, 6, 2).matmul(stepped.t()), DType.F32, shape(3, 3), bound(a.dim(1)),
                naive(a.slice(0, 1, 6, 2).contiguous(), stepped.t().contiguous()));
        var row = Tensor.randn(generator, 1, 4).expand(3, 4);
        assertClose(row.matmul(a.t()), DType.F32, shape(3, 6), bound(a.dim(1)), naive(row, a.t()));
    }

    @Test
    void doublesAccumulateInF64AndMixedFloatsPromote() {
        var a = Tensor.of(new double[] {0.1, 0.2, 0.3}, 1, 3);
        var b = Tensor.of(new double[] {0.3, 0.2, 0.1}, 3, 1);
        assertTensor(a.matmul(b), DType.F64, shape(1, 1), 0.1 * 0.3 + 0.2 * 0.2 + 0.3 * 0.1);
        var mixed = Tensor.of(new float[] {0.1f, 0.2f, 0.3f}, 1, 3).matmul(b);
        assertTensor(mixed, DType.F64, shape(1, 1), (double) 0.1f * 0.3 + (double) 0.2f * 0.2 + (double) 0.3f * 0.1);
    }

    @Test
    void largerRandomProductsMatchTheNaiveLoop() {
        var generator = new Generator(99);
        var a = Tensor.randn(generator, 17, 31);
        var b = Tensor.randn(generator, 31, 13);
        assertClose(a.matmul(b), DType.F32, shape(17, 13), bound(31), naive(a, b));
    }

    /// A batch of matrices times one matrix is one product of all the rows, as in PyTorch: checked on
    /// random shapes (size-1 and odd axes, a permuted left operand, a 1-D right one), eagerly and
    /// compiled, and the compiled program's product has the folded `[b·m, n, k]` loop.
    @Test
    void aBatchTimesOneMatrixIsOneProductOfAllTheRows() {
        var generator = new Generator(21);
        var random = new java.util.Random(21);
        for (int trial = 0; trial < 12; trial++) {
            int b1 = 1 + random.nextInt(3), b2 = 1 + random.nextInt(4), m = 1 + random.nextInt(9), k = 1 + random.nextInt(40), n = 1 + random.nextInt(37);
            boolean permuted = trial % 3 == 0, vector = trial % 4 == 1;
            Tensor a = permuted ? Tensor.randn(generator, b2, b1, m, k).transpose(0, 1) : Tensor.randn(generator, b1, b2, m, k);
            Tensor w = vector ? Tensor.randn(generator, k) : Tensor.randn(generator, k, n);
            Tensor wide = vector ? w.reshape(k, 1) : w;
            double[] expected = naive(a.contiguous(), wide.reshape(1, 1, k, wide.dim(1)).expand(b1, b2, k, wide.dim(1)));
            int[] dims = vector ? shape(b1, b2, m) : shape(b1, b2, m, n);
            String what = "[%d,%d,%d,%d] · %s".formatted(b1, b2, m, k, vector ? "[" + k + "]" : "[" + k + "," + n + "]");
            assertClose(a.matmul(w), DType.F32, dims, bound(k), expected);
            var compiled = Jit.compile((Tensor x, Tensor y) -> x.matmul(y));
            for (int call = 0; call < 2; call++) assertClose(compiled.apply(a, w), DType.F32, dims, bound(k), expected);
            String explained = compiled.explain(a, w);
            org.junit.jupiter.api.Assertions.assertTrue(explained.contains("matmul [%d,%d,%d]".formatted(b1 * b2 * m, wide.dim(1), k)), what + ":\n" + explained);
        }
    }

    /// The numerics contract for a product over `k` terms: the naive loop sums exact double
    /// products, kernels round in f32 (or fuse multiply-adds) in another order, so the difference
    /// grows with K: relative to `max(1, |value|)`, at most `k` roundings of 2⁻²⁴ on terms of the
    /// size of the operands' (unit-variance) products.
    private static double bound(int k) { return 4.0 * k * Math.ulp(1f); }

    /// `out[…, i, j] = Σₚ a[…, i, p] · b[…, p, j]` over operands of equal rank ≥ 2 and equal batch
    /// dimensions, read with [Tensor#get]; summed in double in `p` order.
    private static double[] naive(Tensor a, Tensor b) {
        int rank = a.rank(), m = a.dim(-2), k = a.dim(-1), n = b.dim(-1);
        int batches = a.size() / (m * k);
        double[] out = new double[batches * m * n];
        int[] index = new int[rank];
        for (int batch = 0; batch < batches; batch++)
            for (int i = 0; i < m; i++)
                for (int j = 0; j < n; j++) {
                    double sum = 0;
                    for (int p = 0; p < k; p++) sum += at(a, index, batch, i, p) * at(b, index, batch, p, j);
                    out[(batch * m + i) * n + j] = sum;
                }
        return out;
    }

    /// A value shaped like the matmul's loop `[M, N, K]` beside its epilogue (random program seed
    /// 35200 of the stress run): with K = 1 it is an epilogue value in keepDims form, written once
    /// per `[m, n]`; with K > 1 it is not the product's at all and gets a kernel of its own.
    @Test
    void aValueShapedLikeTheProductsLoopBesideItsEpilogueMatchesTheInterpreter() {
        var generator = new Generator(35200);
        for (int k : new int[] {1, 2}) {
            Tensor a = Tensor.randn(generator, DType.F64, 4, k), b = Tensor.randn(generator, DType.F64, k, k);
            Jit.FunctionN program = args -> {
                Tensor c = args.get(0).matmul(args.get(1));
                return java.util.List.of(c.unsqueeze(-1).expand(4, k, k).exp(), c.sin());
            };
            var expected = Jit.trace(program, java.util.List.of(a, b)).interpret(a, b);
            var actual = Jit.compile(program, 2).applyAll(a, b);
            for (int i = 0; i < 2; i++)
                assertClose(actual.get(i), DType.F64, expected.get(i).shape().dims().stream().mapToInt(Integer::intValue).toArray(), 1e-12, expected.get(i).toDoubleArray());
        }
    }

    /// A gather in a matmul's epilogue (an embedding row added to a product, or autograd's rule for a
    /// sliceUpdate beside a matmul's gradient, random gradient seed 785): its source is an input of
    /// the epilogue too. It was left out of the epilogue's inputs, so the gather read another
    /// input's array or the kernel check refused it. Both layouts of the left operand, `gather` and
    /// `indexSelect`, sizes up to past a vector's lanes.
    @Test
    void aGatherInAMatmulsEpilogueReadsItsOwnSource() {
        var generator = new Generator(52);
        var random = new java.util.Random(52);
        for (int trial = 0; trial < 16; trial++) {
            int m = 1 + random.nextInt(40), k = 1 + random.nextInt(40), n = 1 + random.nextInt(70), rows = 1 + random.nextInt(9);
            DType dtype = trial % 2 == 0 ? DType.F32 : DType.F64;
            boolean transposed = trial % 4 >= 2, select = trial % 8 >= 4;
            Tensor a = Tensor.randn(generator, dtype, transposed ? k : m, transposed ? m : k), b = Tensor.randn(generator, dtype, k, n), table = Tensor.randn(generator, dtype, rows, n);
            int[] ids = new int[select ? m : m * n];
            for (int i = 0; i < ids.length; i++) ids[i] = random.nextInt(rows);
            Tensor index = select ? Tensor.of(ids, m) : Tensor.of(ids, m, n);
            Jit.FunctionN program = args -> {
                Tensor left = transposed ? args.get(0).t() : args.get(0);
                Tensor rowsOf = select ? args.get(2).indexSelect(0, args.get(3)) : args.get(2).gather(0, args.get(3));
                return java.util.List.of(left.matmul(args.get(1)).mul(2).add(rowsOf));
            };
            var expected = Jit.trace(program, java.util.List.of(a, b, table, index)).interpret(a, b, table, index).getFirst();
            Tensor actual = Jit.compile(program, 4).apply(a, b, table, index);
            assertClose(actual, dtype, new int[] {m, n}, dtype == DType.F32 ? 1e-4 : 1e-12, expected.toDoubleArray());
        }
    }

    // Element [batch…, row, column], the flat batch number unravelled over the leading axes.
    private static double at(Tensor x, int[] index, int batch, int row, int column) {
        for (int axis = x.rank() - 3; axis >= 0; axis--) {
            index[axis] = batch % x.dim(axis);
            batch /= x.dim(axis);
        }
        index[x.rank() - 2] = row;
        index[x.rank() - 1] = column;
        return x.get(index);
    }
}
