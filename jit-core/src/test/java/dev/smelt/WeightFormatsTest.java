// SPDX-License-Identifier: Apache-2.0
package dev.smelt;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.smelt.ir.DType;
import dev.smelt.ir.PackedMatrix;
import dev.smelt.ir.SmeltException;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/// bf16 and int8 weights ([WeightFormat]): compiled `x.matmul(w.t())` reads them packed and stays
/// within the stated bound of the f32 weight's exact product (and within f32 rounding of the
/// reference interpreter on the rounded values), on K that neither lanes nor groups of 32 divide;
/// every other use reads the rounded values as f32; bad input and writes are refused.
class WeightFormatsTest {
    private static final double F32_STEP = Math.ulp(1f); // 2⁻²³

    @Test
    void packedProductsStayWithinTheirBoundsOfTheF32Weights() {
        var random = new Random(21);
        for (WeightFormat format : List.of(WeightFormat.BF16, WeightFormat.INT8))
            for (int k : new int[] {1, 31, 33, 64, 77, 300})
                for (int m : new int[] {1, 2, 4}) {
                    int n = 1 + random.nextInt(70);
                    float[] x = gaussian(random, m * k), w = gaussian(random, n * k);
                    for (int i = 0; i < w.length; i += 7) w[i] *= 50; // groups of very different scales
                    Tensor weight = Tensor.of(w, n, k), packed = weight.toWeightFormat(format), input = Tensor.of(x, m, k);
                    Compiled captured = Jit.compile((Tensor a) -> a.matmul(packed.t()));
                    Compiled passed = Jit.compile((Tensor a, Tensor b) -> a.matmul(b.t()));
                    float[] fromCapture = captured.apply(input).toFloatArray(), fromArgument = passed.apply(input, packed).toFloatArray();
                    assertTrue(captured.explain().contains("read packed by GEMV"), captured::explain);
                    assertArrayEquals(fromCapture, fromArgument, "captured or passed");
                    float[] rounded = packed.toFloatArray();
                    var interpreted = Jit.trace((Tensor a) -> a.matmul(packed.t()), input).interpret(input).getFirst().toFloatArray();
                    for (int i = 0; i < m * n; i++) {
                        int row = i / n, column = i % n;
                        double exact = 0, magnitude = 0, quantisation = 0;
                        for (int p = 0; p < k; p++) {
                            double xp = x[row * k + p], wp = w[column * k + p];
                            exact += xp * wp;
                            magnitude += Math.abs(xp * rounded[column * k + p]);
                            quantisation += Math.abs(xp) * (format == WeightFormat.BF16 ? 0x1p-8 * Math.abs(wp) : scale(w, column, k, p) / 2 * (1 + 0x1p-20));
                        }
                        double accumulation = (k + 2) * F32_STEP * magnitude;
                        String where = "%s M %d N %d K %d element %d: %s against exact %s and the interpreter's %s".formatted(format, m, n, k, i, fromCapture[i], exact, interpreted[i]);
                        assertTrue(Math.abs(fromCapture[i] - exact) <= quantisation + accumulation, where);
                        assertTrue(Math.abs(fromCapture[i] - interpreted[i]) <= accumulation, where);
                    }
                }
    }

    // Q8_0's scale of the group holding column p of row `row`: max|w| / 127 over its (up to) 32 values.
    private static double scale(float[] w, int row, int k, int p) {
        int from = p / 32 * 32, to = Math.min(k, from + 32);
        float max = 0;
        for (int q = from; q < to; q++) max = Math.max(max, Math.abs(w[row * k + q]));
        return max / 127f;
    }

    @Test
    void otherUsesReadTheRoundedValuesAsF32() {
        var random = new Random(5);
        float[] w = gaussian(random, 9 * 40);
        for (WeightFormat format : List.of(WeightFormat.BF16, WeightFormat.INT8)) {
            Tensor packed = Tensor.of(w, 9, 40).toWeightFormat(format), copy = Tensor.of(packed.toFloatArray(), 9, 40);
            assertEquals(format, packed.weightFormat());
            assertEquals(format, packed.t().weightFormat());
            assertEquals(DType.F32, packed.dtype());
            Tensor rows = Tensor.of(gaussian(random, 8 * 40), 8, 40); // more rows than a GEMV takes
            Compiled many = Jit.compile((Tensor a) -> a.matmul(packed.t()));
            assertArrayEquals(Jit.compile((Tensor a) -> a.matmul(copy.t())).apply(rows).toFloatArray(), many.apply(rows).toFloatArray());
            assertTrue(many.explain().contains("read as its f32 copy"), many::explain);
            Compiled summed = Jit.compile((Tensor a) -> a.matmul(packed.t()).add(packed.sum()));
            Tensor row = rows.slice(0, 0, 1);
            assertArrayEquals(Jit.compile((Tensor a) -> a.matmul(copy.t()).add(copy.sum())).apply(row).toFloatArray(), summed.apply(row).toFloatArray());
            assertArrayEquals(row.matmul(copy.t()).toFloatArray(), row.matmul(packed.t()).toFloatArray()); // eagerly
            assertEquals(copy.get(3, 17), packed.get(3, 17));
        }
        assertEquals(WeightFormat.F32, Tensor.ones(2, 2).weightFormat());
        Tensor plain = Tensor.ones(2, 2);
        assertSame(plain, plain.toWeightFormat(WeightFormat.F32));
    }

    @Test
    void explainChargesAPackedWeightItsPackedBytes() {
        float[] w = gaussian(new Random(3), 16 * 70);
        Tensor x = Tensor.ones(1, 70);
        // x's 280 B, then W's 16×70 values: 2 B each in bf16; 1 B each and 4 B per group of 32 (3 a row) in int8
        for (var expected : List.of(List.of(WeightFormat.BF16, "reads 2,520 B"), List.of(WeightFormat.INT8, "reads 1,592 B"), List.of(WeightFormat.F32, "reads 4,760 B"))) {
            Tensor packed = Tensor.of(w, 16, 70).toWeightFormat((WeightFormat) expected.get(0));
            Compiled product = Jit.compile((Tensor a) -> a.matmul(packed.t()));
            product.apply(x);
            assertTrue(product.explain().contains((String) expected.get(1)), product::explain);
        }
    }

    @Test
    void bf16RoundsToNearestEvenAndInt8FollowsRunq() {
        assertEquals(1f, PackedMatrix.fromBf16(PackedMatrix.toBf16(1 + 0x1p-8f)));                 // a tie: to even
        assertEquals(1 + 0x1p-6f, PackedMatrix.fromBf16(PackedMatrix.toBf16(1 + 3 * 0x1p-8f)));   // a tie: to even
        assertEquals(1 + 0x1p-7f, PackedMatrix.fromBf16(PackedMatrix.toBf16(1 + 0x1.1p-8f)));     // above the tie
        assertEquals(Float.POSITIVE_INFINITY, PackedMatrix.fromBf16(PackedMatrix.toBf16(Float.MAX_VALUE)));
        assertTrue(Float.isNaN(PackedMatrix.fromBf16(PackedMatrix.toBf16(Float.intBitsToFloat(0x7F800001)))));
        float[] row = new float[33];
        for (int i = 0; i < 32; i++) row[i] = i - 10;
        row[32] = -0.5f;                                  // K = 33: a last group of one value, its own scale
        var q8 = PackedMatrix.q8(row, 1, 33);
        assertArrayEquals(new float[] {21f / 127, 0.5f / 127}, q8.scales());
        assertEquals(-127, q8.quants()[32]);
        assertEquals(127, q8.quants()[31]);
        assertEquals(Math.round(-10 / (21f / 127)), q8.quants()[0]);
        assertEquals(0, PackedMatrix.q8(new float[32], 1, 32).toFloats()[5]); // an all-zero group
    }

    @Test
    void badInputAndWritesAreRefused() {
        Tensor packed = Tensor.ones(3, 4).toWeightFormat(WeightFormat.INT8);
        assertRefused("expected a 2-D f32 weight matrix", () -> Tensor.ones(2, 3, 4).toWeightFormat(WeightFormat.BF16));
        assertRefused("expected a 2-D f32 weight matrix", () -> Tensor.ones(4).toWeightFormat(WeightFormat.INT8));
        assertRefused("expected a 2-D f32 weight matrix", () -> Tensor.ones(DType.F64, 2, 2).toWeightFormat(WeightFormat.BF16));
        assertRefused("the format is null", () -> Tensor.ones(2, 2).toWeightFormat(null));
        assertRefused("is already INT8", () -> packed.toWeightFormat(WeightFormat.BF16));
        assertRefused("int8 holds finite values only", () -> Tensor.of(new float[] {1, Float.NaN}, 1, 2).toWeightFormat(WeightFormat.INT8));
        assertRefused("traced tensor", () -> Jit.trace(x -> x.toWeightFormat(WeightFormat.BF16), Tensor.ones(2, 2)));
        assertRefused("read-only INT8 weight", () -> packed.set(2, 0, 0));
        assertRefused("read-only INT8 weight", () -> packed.copyFrom(Tensor.zeros(3, 4)));
        assertRefused("read-only INT8 weight", () -> Jit.compile((Tensor x) -> x.add(1)).applyInto(packed, Tensor.zeros(3, 4)));
        assertEquals(1, packed.get(2, 3)); // unchanged
    }

    /// A compiled function that returns a packed weight (an argument, or a capture its GEMV also
    /// reads packed) returns the weight itself, read-only as eager `contiguous()` does: not the
    /// f32 copy every other reader shares, writable, nor a PackedMatrix wrapped as an array.
    @Test
    void aReturnedPackedWeightIsTheWeight() {
        Tensor packed = Tensor.of(gaussian(new Random(7), 8 * 64), 8, 64).toWeightFormat(WeightFormat.BF16);
        float[] values = packed.toFloatArray();
        Tensor x = Tensor.ones(1, 64);
        Compiled identity = Jit.compile((Tensor w) -> w);
        Compiled withProduct = Jit.compile((Jit.FunctionN) arguments -> List.of(arguments.getFirst().matmul(packed.t()), packed), 1);
        for (int call = 0; call < 3; call++) {
            Tensor returned = identity.apply(packed);
            assertEquals(WeightFormat.BF16, returned.weightFormat());
            assertRefused("read-only BF16 weight", () -> returned.set(1000, 0, 0));
            List<Tensor> results = withProduct.applyAll(x);
            assertArrayEquals(x.matmul(Tensor.of(values, 8, 64).t()).toFloatArray(), results.get(0).toFloatArray());
            assertEquals(WeightFormat.BF16, results.get(1).weightFormat());
            Tensor product = Tensor.zeros(1, 8), copy = Tensor.zeros(8, 64);
            withProduct.applyInto(List.of(product, copy), x);
            assertArrayEquals(values, copy.toFloatArray());
        }
        assertArrayEquals(values, packed.mul(1).toFloatArray());
    }

    private static void assertRefused(String expected, org.junit.jupiter.api.function.Executable call) {
        var error = assertThrows(SmeltException.class, call);
        assertTrue(error.getMessage().contains(expected), error::getMessage);
    }

    private static float[] gaussian(Random random, int count) {
        float[] values = new float[count];
        for (int i = 0; i < count; i++) values[i] = (float) random.nextGaussian();
        return values;
    }
}
