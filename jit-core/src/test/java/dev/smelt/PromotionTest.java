// SPDX-License-Identifier: Apache-2.0
package dev.smelt;

import static dev.smelt.TensorAssertions.assertTensor;
import static dev.smelt.TensorAssertions.shape;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.smelt.ir.DType;
import java.math.BigDecimal;
import java.math.BigInteger;
import org.junit.jupiter.api.Test;

/// dtype promotion as documented in [DType]: tensors promote by category and width, Java scalars
/// are weak (they never widen a tensor of their own category or higher).
class PromotionTest {
    private static final Tensor INTS = Tensor.of(new int[] {7, -7});
    private static final Tensor FLOATS = Tensor.of(new float[] {0.5f, 2});
    private static final Tensor DOUBLES = Tensor.of(new double[] {0.1, 2});
    private static final Tensor BOOLS = Tensor.of(new boolean[] {true, false});

    @Test
    void tensorsPromoteToTheWiderCategory() {
        assertTensor(INTS.add(FLOATS), DType.F32, shape(2), 7.5, -5);
        assertTensor(FLOATS.add(INTS), DType.F32, shape(2), 7.5, -5);
        assertTensor(FLOATS.add(DOUBLES), DType.F64, shape(2), 0.5 + 0.1, 4);
        assertTensor(INTS.mul(DOUBLES), DType.F64, shape(2), 7 * 0.1, -14);
        assertTensor(BOOLS.mul(FLOATS), DType.F32, shape(2), 0.5, 0);
        assertTensor(BOOLS.add(INTS), DType.I32, shape(2), 8, -7);
        assertTensor(BOOLS.sub(DOUBLES), DType.F64, shape(2), 1 - 0.1, -2);
    }

    @Test
    void boolArithmeticCountsInI32() {
        var other = Tensor.of(new boolean[] {true, true});
        assertTensor(BOOLS.add(other), DType.I32, shape(2), 2, 1);
        assertTensor(BOOLS.sub(other), DType.I32, shape(2), 0, -1);
        assertTensor(BOOLS.mul(other), DType.I32, shape(2), 1, 0);
        assertTensor(BOOLS.add(2), DType.I32, shape(2), 3, 2);
        assertTensor(BOOLS.add(2.5), DType.F32, shape(2), 3.5, 2.5);
    }

    @Test
    void javaIntegersAreWeakI32() {
        assertTensor(INTS.add(2), DType.I32, shape(2), 9, -5);
        assertTensor(INTS.add(2L), DType.I32, shape(2), 9, -5);
        assertTensor(INTS.mul((byte) 3), DType.I32, shape(2), 21, -21);
        assertTensor(INTS.sub(BigInteger.TEN), DType.I32, shape(2), -3, -17);
        assertTensor(FLOATS.add(2), DType.F32, shape(2), 2.5, 4);
        assertTensor(DOUBLES.add(2), DType.F64, shape(2), 2.1, 4);
    }

    @Test
    void javaFloatsAreWeakF32() {
        assertTensor(INTS.add(2.5), DType.F32, shape(2), 9.5, -4.5);
        assertTensor(INTS.add(2.5f), DType.F32, shape(2), 9.5, -4.5);
        assertTensor(INTS.mul(new BigDecimal("0.5")), DType.F32, shape(2), 3.5, -3.5);
        assertTensor(FLOATS.add(0.1), DType.F32, shape(2), 0.5f + (float) 0.1, 2 + (float) 0.1);
        assertTensor(DOUBLES.add(0.1), DType.F64, shape(2), 0.1 + 0.1, 2.1);     // the scalar stays double
    }

    @Test
    void divisionIsTrueDivision() {
        var divisor = Tensor.of(new int[] {2, 2});
        assertTensor(INTS.div(divisor), DType.F32, shape(2), 3.5, -3.5);
        assertTensor(INTS.div(2), DType.F32, shape(2), 3.5, -3.5);
        assertTensor(INTS.div(0), DType.F32, shape(2), Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY);
        assertTensor(BOOLS.div(Tensor.of(new boolean[] {true, true})), DType.F32, shape(2), 1, 0);
        assertTensor(INTS.div(DOUBLES), DType.F64, shape(2), 70, -3.5);
        assertTensor(Tensor.of(new int[] {1}).div(3), DType.F32, shape(1), 1.0 / 3);
    }

    @Test
    void comparisonsCompareInThePromotedDtypeAndGiveBool() {
        assertTensor(INTS.gt(FLOATS), DType.BOOL, shape(2), 1, 0);
        assertTensor(INTS.lt(7.5), DType.BOOL, shape(2), 1, 1);               // 7 < 7.5: compared as f32
        assertTensor(INTS.eq(7), DType.BOOL, shape(2), 1, 0);
        assertTensor(BOOLS.eq(Tensor.of(new boolean[] {true, true})), DType.BOOL, shape(2), 1, 0);
        assertTensor(BOOLS.eq(1), DType.BOOL, shape(2), 1, 0);
        assertTensor(FLOATS.ne(DOUBLES), DType.BOOL, shape(2), 1, 0);
        // 0.1f ≠ 0.1 once f32 is widened to f64.
        assertTensor(Tensor.of(new float[] {0.1f}).eq(Tensor.of(new double[] {0.1})), DType.BOOL, shape(1), 0);
    }

    @Test
    void integerArithmeticWrapsAround() {
        var extremes = Tensor.of(new int[] {Integer.MAX_VALUE, Integer.MIN_VALUE});
        assertTensor(extremes.add(1), DType.I32, shape(2), Integer.MIN_VALUE, Integer.MIN_VALUE + 1);
        assertTensor(extremes.sub(1), DType.I32, shape(2), Integer.MAX_VALUE - 1, Integer.MAX_VALUE);
        assertTensor(extremes.mul(2), DType.I32, shape(2), -2, 0);
        assertTensor(extremes.neg(), DType.I32, shape(2), -Integer.MAX_VALUE, Integer.MIN_VALUE);
        assertTensor(Tensor.of(new int[] {2}).pow(31), DType.I32, shape(1), Integer.MIN_VALUE);
        assertTensor(extremes.sum(), DType.I32, shape(), -1);
        assertTensor(Tensor.of(new int[] {Integer.MAX_VALUE, 1}).sum(), DType.I32, shape(), Integer.MIN_VALUE);
        assertTensor(Tensor.of(new int[] {65536, 65536}).prod(), DType.I32, shape(), 0);
    }

    @Test
    void integerPowStaysIntegral() {
        var base = Tensor.of(new int[] {3, -2, 1, -1, 2, 0});
        assertTensor(base.pow(Tensor.of(new int[] {4, 3, -5, -3, -1, 0})), DType.I32, shape(6), 81, -8, 1, -1, 0, 1);
        assertTensor(base.pow(2), DType.I32, shape(6), 9, 4, 1, 1, 4, 0);
        assertTensor(base.pow(0.5), DType.F32, shape(6), Math.sqrt(3), Double.NaN, 1, Double.NaN, Math.sqrt(2), 0);
        // a negative scalar exponent is refused, as PyTorch does; a tensor of them is not (above)
        var error = org.junit.jupiter.api.Assertions.assertThrows(dev.smelt.ir.SmeltException.class, () -> base.pow(-1));
        org.junit.jupiter.api.Assertions.assertTrue(error.getMessage().startsWith("pow: integers to negative integer powers are not allowed"), error.getMessage());
        assertTensor(base.pow(-1.0), DType.F32, shape(6), 1 / 3.0, -0.5, 1, -1, 0.5, Double.POSITIVE_INFINITY);
    }

    @Test
    void reductionsChooseTheirResultDtype() {
        assertEquals(DType.I32, INTS.sum().dtype());
        assertEquals(DType.F32, INTS.mean().dtype());
        assertEquals(DType.F32, INTS.var().dtype());
        assertEquals(DType.F32, INTS.logsumexp().dtype());
        assertEquals(DType.F64, DOUBLES.mean().dtype());
        assertTensor(BOOLS.sum(), DType.I32, shape(), 1);
        assertTensor(BOOLS.prod(), DType.I32, shape(), 0);
        assertTensor(BOOLS.max(), DType.BOOL, shape(), 1);
        assertTensor(BOOLS.min(), DType.BOOL, shape(), 0);
        assertTensor(BOOLS.mean(), DType.F32, shape(), 0.5);
        assertTensor(BOOLS.argmin(), DType.I32, shape(), 1);
    }

    @Test
    void compositesAndMatmulWorkInTheWiderFloat() {
        assertEquals(DType.F64, FLOATS.reshape(1, 2).matmul(DOUBLES.reshape(2, 1)).dtype());
        assertEquals(DType.F32, INTS.softmax(0).dtype());
        assertEquals(DType.F64, DOUBLES.softmax(0).dtype());
        assertEquals(DType.F32, INTS.mseLoss(INTS).dtype());
        assertEquals(DType.F64, FLOATS.mseLoss(DOUBLES).dtype());
        assertEquals(DType.F64, FLOATS.layerNorm(new int[] {2}, DOUBLES, null, 1e-5).dtype());
    }
}
