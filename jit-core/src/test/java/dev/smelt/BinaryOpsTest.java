// SPDX-License-Identifier: Apache-2.0
package dev.smelt;

import static dev.smelt.TensorAssertions.assertTensor;
import static dev.smelt.TensorAssertions.shape;

import dev.smelt.ir.DType;
import java.util.List;
import org.junit.jupiter.api.Test;

/// Elementwise binary ops with tensor and Java-scalar operands, NumPy broadcasting, strided
/// operands, `where` and `concat`. Promotion has its own test ([PromotionTest]).
class BinaryOpsTest {
    private static final float INF = Float.POSITIVE_INFINITY, NAN = Float.NaN;
    private static final Tensor A = Tensor.of(new float[] {1, -2, 3.5f, 0, -0.0f, NAN, 1});
    private static final Tensor B = Tensor.of(new float[] {2, 4, -0.5f, 0, 0, 1, NAN});

    @Test
    void arithmeticFollowsIeee() {
        assertTensor(A.add(B), DType.F32, shape(7), 3, 2, 3, 0, 0, NAN, NAN);
        assertTensor(A.sub(B), DType.F32, shape(7), -1, -6, 4, 0, -0.0, NAN, NAN);
        assertTensor(A.mul(B), DType.F32, shape(7), 2, -8, -1.75, 0, -0.0, NAN, NAN);
        assertTensor(A.div(B), DType.F32, shape(7), 0.5, -0.5, -7, NAN, NAN, NAN, NAN);
        var x = Tensor.of(new float[] {1, -1, 0, 1});
        var y = Tensor.of(new float[] {0, 0, 0, -0.0f});
        assertTensor(x.div(y), DType.F32, shape(4), INF, -INF, NAN, -INF);
    }

    @Test
    void powFollowsC() {
        var base = Tensor.of(new float[] {2, 2, -8, 0, NAN, 1, 4, -2});
        var exponent = Tensor.of(new float[] {3, -1, 1 / 3f, -1, 0, NAN, 0.5f, 2});
        // pow(NaN, 0) = 1 and pow(1, NaN) = 1, as in C and PyTorch (Math.pow gives NaN for the
        // latter). A negative base with a fractional exponent is NaN.
        assertTensor(base.pow(exponent), DType.F32, shape(8), 8, 0.5, NAN, INF, 1, 1, 2, 4);
        assertTensor(Tensor.of(new float[] {3, 0.5f}).pow(2), DType.F32, shape(2), 9, 0.25);
        assertTensor(Tensor.of(new float[] {9, 2}).pow(0.5), DType.F32, shape(2), 3, Math.sqrt(2));
    }

    @Test
    void maximumAndMinimumPropagateNaNAndOrderSignedZeros() {
        assertTensor(A.maximum(B), DType.F32, shape(7), 2, 4, 3.5, 0, 0.0, NAN, NAN);
        assertTensor(A.minimum(B), DType.F32, shape(7), 1, -2, -0.5, 0, -0.0, NAN, NAN);
        var negativeZero = Tensor.of(new float[] {-0.0f});
        assertTensor(negativeZero.maximum(0.0), DType.F32, shape(1), 0.0);
        assertTensor(negativeZero.minimum(0.0), DType.F32, shape(1), -0.0);
        assertTensor(Tensor.of(new float[] {-1, 2}).maximum(0), DType.F32, shape(2), 0, 2);
        assertTensor(Tensor.of(new float[] {-1, 2}).minimum(0), DType.F32, shape(2), -1, 0);
    }

    @Test
    void comparisonsGiveBoolAndNaNIsUnequalToEverything() {
        assertTensor(A.eq(B), DType.BOOL, shape(7), 0, 0, 0, 1, 1, 0, 0);   // -0.0 == 0.0
        assertTensor(A.ne(B), DType.BOOL, shape(7), 1, 1, 1, 0, 0, 1, 1);
        assertTensor(A.lt(B), DType.BOOL, shape(7), 1, 1, 0, 0, 0, 0, 0);
        assertTensor(A.le(B), DType.BOOL, shape(7), 1, 1, 0, 1, 1, 0, 0);
        assertTensor(A.gt(B), DType.BOOL, shape(7), 0, 0, 1, 0, 0, 0, 0);
        assertTensor(A.ge(B), DType.BOOL, shape(7), 0, 0, 1, 1, 1, 0, 0);
    }

    @Test
    void javaScalarsActLikeZeroDimensionalOperands() {
        var x = Tensor.of(new float[] {1, 2, 3});
        assertTensor(x.add(1), DType.F32, shape(3), 2, 3, 4);
        assertTensor(x.sub(1.5), DType.F32, shape(3), -0.5, 0.5, 1.5);
        assertTensor(x.mul(2), DType.F32, shape(3), 2, 4, 6);
        assertTensor(x.div(4), DType.F32, shape(3), 0.25, 0.5, 0.75);
        assertTensor(x.pow(2), DType.F32, shape(3), 1, 4, 9);
        assertTensor(x.eq(2), DType.BOOL, shape(3), 0, 1, 0);
        assertTensor(x.ne(2), DType.BOOL, shape(3), 1, 0, 1);
        assertTensor(x.lt(2), DType.BOOL, shape(3), 1, 0, 0);
        assertTensor(x.le(2), DType.BOOL, shape(3), 1, 1, 0);
        assertTensor(x.gt(2), DType.BOOL, shape(3), 0, 0, 1);
        assertTensor(x.ge(2), DType.BOOL, shape(3), 0, 1, 1);
        assertTensor(x.add(0.1), DType.F32, shape(3), 1 + (float) 0.1, 2 + (float) 0.1, 3 + (float) 0.1);
        assertTensor(x.add(1L).add((short) 1).add(1f), DType.F32, shape(3), 4, 5, 6);
        assertTensor(Tensor.scalar(2).add(3), DType.F32, shape(), 5);
    }

    @Test
    void broadcastingAlignsTrailingAxes() {
        // [2,1,3] + [4,1] -> [2,4,3]: element [i,j,k] is a[i,0,k] + b[j,0].
        var a = Tensor.arange(6).reshape(2, 1, 3);
        var b = Tensor.of(new int[] {0, 10, 20, 30}).reshape(4, 1);
        double[] expected = new double[24];
        for (int i = 0; i < 2; i++)
            for (int j = 0; j < 4; j++)
                for (int k = 0; k < 3; k++) expected[(i * 4 + j) * 3 + k] = i * 3 + k + 10 * j;
        assertTensor(a.add(b), DType.I32, shape(2, 4, 3), expected);
        assertTensor(b.add(a), DType.I32, shape(2, 4, 3), expected);
        assertTensor(Tensor.of(new float[] {1, 2, 3}).mul(Tensor.of(new float[] {10, 20}, 2, 1)),
                DType.F32, shape(2, 3), 10, 20, 30, 20, 40, 60);
        assertTensor(Tensor.ones(2, 2).sub(Tensor.scalar(3)), DType.F32, shape(2, 2), -2, -2, -2, -2);
        assertTensor(Tensor.scalar(3).sub(Tensor.ones(1)), DType.F32, shape(1), 2);
        assertTensor(Tensor.scalar(1).add(Tensor.scalar(2)), DType.F32, shape(), 3);
    }

    @Test
    void broadcastingHandlesSizeZeroAndSizeOneDimensions() {
        assertTensor(Tensor.zeros(0, 3).add(Tensor.ones(3)), DType.F32, shape(0, 3));
        assertTensor(Tensor.ones(2, 1).add(Tensor.ones(1, 0)), DType.F32, shape(2, 0));
        assertTensor(Tensor.zeros(0).add(Tensor.scalar(1)), DType.F32, shape(0));
        assertTensor(Tensor.zeros(0).lt(1), DType.BOOL, shape(0));
        assertTensor(Tensor.ones(1).add(Tensor.ones(1)), DType.F32, shape(1), 2);
        assertTensor(Tensor.ones(1, 1, 1).mul(Tensor.full(3, 1)), DType.F32, shape(1, 1, 1), 3);
    }

    @Test
    void stridedOperandsAreReadThroughTheirViews() {
        var m = Tensor.arange(6).reshape(2, 3);                            // [[0,1,2],[3,4,5]]
        assertTensor(m.t().add(Tensor.of(new int[] {100, 200}, 1, 2)), DType.I32, shape(3, 2), 100, 203, 101, 204, 102, 205);
        assertTensor(m.t().mul(m.t()), DType.I32, shape(3, 2), 0, 9, 1, 16, 4, 25);
        var stepped = Tensor.arange(10).slice(0, 1, 10, 3);                // [1,4,7]
        assertTensor(stepped.sub(m.slice(0, 1, 2)), DType.I32, shape(1, 3), -2, 0, 2);
        var expanded = Tensor.of(new int[] {1, 2, 3}).expand(2, 3);
        assertTensor(expanded.mul(m), DType.I32, shape(2, 3), 0, 2, 6, 3, 8, 15);
        assertTensor(expanded.gt(m.t().t()), DType.BOOL, shape(2, 3), 1, 1, 1, 0, 0, 0);
        assertTensor(m.slice(1, -1, 3).neg().add(m.slice(1, 0, 1)), DType.I32, shape(2, 1), -2, -2);
    }

    @Test
    void whereSelectsElementwiseWithBroadcasting() {
        var condition = Tensor.of(new boolean[] {true, false, true});
        var a = Tensor.of(new float[] {1, 2, NAN});
        var b = Tensor.of(new float[] {-1, -2, -3});
        assertTensor(Tensor.where(condition, a, b), DType.F32, shape(3), 1, -2, NAN);
        var rows = Tensor.of(new boolean[] {true, false}, 2, 1);
        assertTensor(Tensor.where(rows, a, Tensor.scalar(0)), DType.F32, shape(2, 3), 1, 2, NAN, 0, 0, 0);
        assertTensor(Tensor.where(rows, a, 7), DType.F32, shape(2, 3), 1, 2, NAN, 7, 7, 7);
        assertTensor(Tensor.where(condition, 5, b), DType.F32, shape(3), 5, -2, 5);
        assertTensor(Tensor.where(Tensor.of(new boolean[0]), Tensor.zeros(0), 1), DType.F32, shape(0));
        var m = Tensor.arange(6).reshape(2, 3);
        assertTensor(Tensor.where(m.t().gt(2), m.t(), 0), DType.I32, shape(3, 2), 0, 3, 0, 4, 0, 5);
    }

    @Test
    void whereWithMixedDtypesPromotes() {
        var condition = Tensor.of(new boolean[] {true, false});
        var ints = Tensor.of(new int[] {1, 2});
        assertTensor(Tensor.where(condition, ints, Tensor.of(new float[] {0.5f, 0.5f})), DType.F32, shape(2), 1, 0.5);
        assertTensor(Tensor.where(condition, ints, 2.5), DType.F32, shape(2), 1, 2.5);
        assertTensor(Tensor.where(condition, ints, 9), DType.I32, shape(2), 1, 9);
        assertTensor(Tensor.where(condition, 0.5, ints), DType.F32, shape(2), 0.5, 2);
        assertTensor(Tensor.where(condition, Tensor.of(new double[] {0.1, 0.1}), Tensor.ones(2)), DType.F64, shape(2), 0.1, 1);
        assertTensor(Tensor.where(condition, condition, Tensor.of(new boolean[] {true, true})), DType.BOOL, shape(2), 1, 1);
    }

    @Test
    void concatJoinsAlongAnAxis() {
        var a = Tensor.arange(4).reshape(2, 2);
        var b = Tensor.of(new int[] {8, 9}, 1, 2);
        assertTensor(Tensor.concat(0, a, b), DType.I32, shape(3, 2), 0, 1, 2, 3, 8, 9);
        assertTensor(Tensor.concat(1, a, b.t().expand(2, 2)), DType.I32, shape(2, 4), 0, 1, 8, 8, 2, 3, 9, 9);
        assertTensor(Tensor.concat(-1, a, a.t()), DType.I32, shape(2, 4), 0, 1, 0, 2, 2, 3, 1, 3);
        assertTensor(Tensor.concat(List.of(a.slice(0, 1, 2), b), -2), DType.I32, shape(2, 2), 2, 3, 8, 9);
        assertTensor(Tensor.concat(0, a), DType.I32, shape(2, 2), 0, 1, 2, 3);
        assertTensor(Tensor.concat(0, Tensor.zeros(DType.I32, 0, 2), b), DType.I32, shape(1, 2), 8, 9);
        assertTensor(Tensor.concat(0, Tensor.zeros(0), Tensor.zeros(0)), DType.F32, shape(0));
    }

    @Test
    void concatPromotesMixedDtypes() {
        var ints = Tensor.of(new int[] {1, 2});
        assertTensor(Tensor.concat(0, ints, Tensor.of(new float[] {0.5f})), DType.F32, shape(3), 1, 2, 0.5);
        assertTensor(Tensor.concat(0, Tensor.of(new boolean[] {true}), ints), DType.I32, shape(3), 1, 1, 2);
        assertTensor(Tensor.concat(0, Tensor.of(new float[] {0.1f}), Tensor.of(new double[] {0.1})), DType.F64, shape(2), 0.1f, 0.1);
        assertTensor(Tensor.concat(0, Tensor.of(new boolean[] {true}), Tensor.of(new boolean[] {false})), DType.BOOL, shape(2), 1, 0);
    }
}
