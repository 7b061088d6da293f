// SPDX-License-Identifier: Apache-2.0
package dev.smelt;

import static dev.smelt.TensorAssertions.assertTensor;
import static dev.smelt.TensorAssertions.shape;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.smelt.ir.DType;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

class CreationTest {
    @Test
    void zerosOnesAndFullFillEveryElement() {
        assertTensor(Tensor.zeros(2, 3), DType.F32, shape(2, 3), 0, 0, 0, 0, 0, 0);
        assertTensor(Tensor.zeros(DType.I32, 2), DType.I32, shape(2), 0, 0);
        assertTensor(Tensor.ones(3), DType.F32, shape(3), 1, 1, 1);
        assertTensor(Tensor.ones(DType.F64, 1, 2), DType.F64, shape(1, 2), 1, 1);
        assertTensor(Tensor.ones(DType.BOOL, 2), DType.BOOL, shape(2), 1, 1);
        assertTensor(Tensor.full(2.5, 2, 2), DType.F32, shape(2, 2), 2.5, 2.5, 2.5, 2.5);
        assertTensor(Tensor.full(DType.F64, 0.1, 1), DType.F64, shape(1), 0.1);
    }

    @Test
    void fullRoundsTheValueToTheDtype() {
        assertTensor(Tensor.full(0.1, 1), DType.F32, shape(1), (float) 0.1);
        assertTensor(Tensor.full(DType.I32, 2.7, 2), DType.I32, shape(2), 2, 2);    // truncates toward zero
        assertTensor(Tensor.full(DType.I32, -2.7, 1), DType.I32, shape(1), -2);
        assertTensor(Tensor.full(DType.BOOL, -3, 1), DType.BOOL, shape(1), 1);      // non-zero is true
        assertTensor(Tensor.full(Double.NaN, 1), DType.F32, shape(1), Double.NaN);
    }

    @Test
    void noDimensionsMeansZeroDimensionalAndAZeroSizeMeansNoElements() {
        assertTensor(Tensor.zeros(), DType.F32, shape(), 0);
        assertEquals(1, Tensor.ones().size());
        var empty = Tensor.zeros(2, 0, 3);
        assertTensor(empty, DType.F32, shape(2, 0, 3));
        assertEquals(0, empty.size());
        assertEquals(3, empty.rank());
        assertEquals(0, empty.toFloatArray().length);
    }

    @Test
    void scalarIsZeroDimensional() {
        var x = Tensor.scalar(2.5);
        assertTensor(x, DType.F32, shape(), 2.5);
        assertEquals(0, x.rank());
        assertEquals(2.5, x.item());
        assertEquals((float) 0.1, Tensor.scalar(0.1).item());
        assertEquals(0.1, Tensor.scalar(DType.F64, 0.1).item());
        assertTensor(Tensor.scalar(DType.I32, 7), DType.I32, shape(), 7);
    }

    @Test
    void intArangeCountsByStepBelowTheEnd() {
        assertTensor(Tensor.arange(5), DType.I32, shape(5), 0, 1, 2, 3, 4);
        assertTensor(Tensor.arange(2, 11, 3), DType.I32, shape(3), 2, 5, 8);
        assertTensor(Tensor.arange(5, 0, -2), DType.I32, shape(3), 5, 3, 1);
        assertTensor(Tensor.arange(3, 3, 1), DType.I32, shape(0));
        assertTensor(Tensor.arange(0), DType.I32, shape(0));
        assertTensor(Tensor.arange(-2, 1, 1), DType.I32, shape(3), -2, -1, 0);
    }

    @Test
    void doubleArangeIsF32ComputedInDoubleAndRoundedOnce() {
        assertTensor(Tensor.arange(0.0, 1.0, 0.25), DType.F32, shape(4), 0, 0.25, 0.5, 0.75);
        // ⌈0.3 / 0.1⌉ = ⌈2.9999999999999996⌉ = 3 elements: start + i·step in double, then f32.
        assertTensor(Tensor.arange(0.0, 0.3, 0.1), DType.F32, shape(3), 0, 0.1, 2 * 0.1);
        assertTensor(Tensor.arange(1.0, -1.0, -0.5), DType.F32, shape(4), 1, 0.5, 0, -0.5);
        assertTensor(Tensor.arange(0.5, 0.5, 1.0), DType.F32, shape(0));
    }

    @Test
    void linspaceIncludesBothEnds() {
        assertTensor(Tensor.linspace(0, 1, 5), DType.F32, shape(5), 0, 0.25, 0.5, 0.75, 1);
        assertTensor(Tensor.linspace(-1, 1, 3), DType.F32, shape(3), -1, 0, 1);
        assertTensor(Tensor.linspace(2, -2, 2), DType.F32, shape(2), 2, -2);
        // PyTorch's symmetric form: the first half counts up from the start, the rest down from the end.
        double step = 1.0 / 3;
        assertTensor(Tensor.linspace(0, 1, 4), DType.F32, shape(4), 0, step, 1 - step, 1);
        float[] tenths = Tensor.linspace(0.1, 0.7, 7).toFloatArray();
        assertEquals((float) 0.1, tenths[0]);
        assertEquals((float) 0.7, tenths[6]);
    }

    @Test
    void linspaceWithZeroStepsIsEmptyAndWithOneStepIsTheStart() {
        assertTensor(Tensor.linspace(3, 10, 0), DType.F32, shape(0));
        assertTensor(Tensor.linspace(3, 10, 1), DType.F32, shape(1), 3); // as torch.linspace and numpy.linspace
    }

    @Test
    void ofWrapsACopyOfEachArrayType() {
        float[] floats = {1.5f, -2, 3};
        var f32 = Tensor.of(floats);
        floats[0] = 99;
        assertTensor(f32, DType.F32, shape(3), 1.5, -2, 3);
        assertTensor(Tensor.of(new double[] {0.1, 0.2, 0.3, 0.4}, 2, 2), DType.F64, shape(2, 2), 0.1, 0.2, 0.3, 0.4);
        assertTensor(Tensor.of(new int[] {1, -2, Integer.MAX_VALUE}, 3, 1), DType.I32, shape(3, 1), 1, -2, Integer.MAX_VALUE);
        assertTensor(Tensor.of(new boolean[] {true, false}), DType.BOOL, shape(2), 1, 0);
        assertTensor(Tensor.of(new float[0]), DType.F32, shape(0));
        assertTensor(Tensor.of(new float[0], 3, 0), DType.F32, shape(3, 0));
        assertTensor(Tensor.of(new float[] {5}, 1, 1, 1), DType.F32, shape(1, 1, 1), 5);
    }

    @Test
    void randIsReproducibleForASeedAndDiffersAcrossSeeds() {
        float[] first = Tensor.rand(new Generator(42), 100).toFloatArray();
        assertArrayEquals(first, Tensor.rand(new Generator(42), 100).toFloatArray());
        assertFalse(Arrays.equals(first, Tensor.rand(new Generator(43), 100).toFloatArray()));
        float[] normal = Tensor.randn(new Generator(42), 10, 10).toFloatArray();
        assertArrayEquals(normal, Tensor.randn(new Generator(42), 10, 10).toFloatArray());
        assertFalse(Arrays.equals(normal, Tensor.randn(new Generator(43), 10, 10).toFloatArray()));
    }

    @Test
    void aGeneratorContinuesItsStreamAcrossCalls() {
        var generator = new Generator(7);
        var a = Tensor.rand(generator, 3);
        assertEquals(3, generator.position());
        var b = Tensor.rand(generator, 3);
        assertNotEquals(a.get(0), b.get(0));
        float[] both = Tensor.rand(new Generator(7), 6).toFloatArray();
        assertArrayEquals(both, Tensor.concat(0, a, b).toFloatArray());
        Tensor.randn(generator, 5); // Box–Muller draws in pairs: 5 normals take 6 draws
        assertEquals(12, generator.position());
        assertEquals(7, generator.seed());
    }

    @Test
    void randAndRandnTakeTheShapeAndAFloatDtype() {
        var generator = new Generator(1);
        assertEquals(DType.F32, Tensor.rand(generator, 2, 3).dtype());
        assertEquals(DType.F64, Tensor.rand(generator, DType.F64, 2).dtype());
        assertEquals(DType.F64, Tensor.randn(generator, DType.F64, 4, 1).dtype());
        assertEquals(0, Tensor.randn(generator, 0, 5).size());
        double[] wide = Tensor.rand(new Generator(3), DType.F64, 8).toDoubleArray();
        assertTrue(Arrays.stream(wide).anyMatch(v -> v != (float) v), "f64 draws keep more than 24 bits");
    }

    @Test
    void uniformSamplesHaveMeanOneHalfAndVarianceOneTwelfth() {
        double[] values = Tensor.rand(new Generator(2024), 10_000).toDoubleArray();
        assertTrue(Arrays.stream(values).allMatch(v -> v >= 0 && v < 1));
        // Bounds are five standard errors for n = 10⁴: 5·√(1/12/n) and 5·√((1/80 - 1/144)/n).
        assertEquals(0.5, mean(values), 0.0145);
        assertEquals(1.0 / 12, variance(values), 0.0038);
    }

    @Test
    void normalSamplesHaveMeanZeroAndVarianceOne() {
        double[] values = Tensor.randn(new Generator(2024), 10_000).toDoubleArray();
        // Five standard errors: 5·√(1/n) for the mean and 5·√(2/n) for the variance.
        assertEquals(0, mean(values), 0.05);
        assertEquals(1, variance(values), 0.071);
    }

    @Test
    void f32UniformSamplesStayBelowOne() {
        // This seed's first 53-bit draw is (2⁵³-1)/2⁵³, which rounds to 1.0f in f32. The seed comes
        // from inverting SplitMix64's finaliser for an all-ones output.
        long seed = 3558559446808474027L;
        assertTrue(Tensor.rand(new Generator(seed), 1).item() < 1);
        assertTrue(Tensor.rand(new Generator(seed), DType.F64, 1).item() < 1);
    }

    private static double mean(double[] values) { return Arrays.stream(values).average().orElseThrow(); }

    private static double variance(double[] values) {
        double mean = mean(values);
        return Arrays.stream(values).map(v -> (v - mean) * (v - mean)).sum() / (values.length - 1);
    }

    /// A constant fills its array directly: a kernel per value would define a class for every
    /// distinct learning rate or bias correction a training loop passes. Signed zeros, NaN and
    /// every dtype keep their values.
    @Test
    void constantsFillTheirArraysWithoutGeneratingKernels() {
        int kernels = dev.smelt.runtime.KernelCache.size();
        for (int i = 0; i < 50; i++) assertEquals(i * 0.25, Tensor.full(i * 0.25, 3, 2).get(2, 1), 0);
        assertEquals(kernels, dev.smelt.runtime.KernelCache.size());
        assertEquals(Double.doubleToRawLongBits(-0.0), Double.doubleToRawLongBits(Tensor.full(DType.F64, -0.0, 2).get(1)));
        assertEquals(Float.floatToRawIntBits(-0f), Float.floatToRawIntBits((float) Tensor.full(-0.0, 2).get(1)));
        assertTrue(Double.isNaN(Tensor.full(Double.NaN, 3).get(2)));
        assertArrayEquals(new int[] {7, 7}, Tensor.full(DType.I32, 7, 2).toIntArray());
        assertArrayEquals(new boolean[] {true, true}, Tensor.full(DType.BOOL, 1, 2).toBooleanArray());
        assertArrayEquals(new float[] {0, 0, 0}, Tensor.zeros(3).toFloatArray());
    }
}
