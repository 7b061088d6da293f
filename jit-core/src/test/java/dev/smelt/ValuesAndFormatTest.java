// SPDX-License-Identifier: Apache-2.0
package dev.smelt;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.smelt.ir.DType;
import dev.smelt.ir.SmeltException;
import org.junit.jupiter.api.Test;

/// Reading values back into Java, `allClose`, and the PyTorch-style `toString`.
class ValuesAndFormatTest {
    private static final float INF = Float.POSITIVE_INFINITY, NAN = Float.NaN;
    private static final Tensor M = Tensor.arange(6).reshape(2, 3);            // [[0,1,2],[3,4,5]]

    @Test
    void getCountsNegativeIndicesFromTheEnd() {
        assertEquals(5, M.get(1, 2));
        assertEquals(5, M.get(-1, -1));
        assertEquals(3, M.get(-1, -3));
        assertEquals(M.get(0, 2), M.t().get(-1, 0));
        assertEquals(2.5, Tensor.scalar(2.5).get());
        assertEquals((double) 0.1f, Tensor.of(new float[] {0.1f}).get(0));
        assertEquals(1, Tensor.of(new boolean[] {false, true}).get(-1));
    }

    @Test
    void itemReadsTheOnlyElement() {
        assertEquals(2.5, Tensor.scalar(2.5).item());
        assertEquals(7, Tensor.of(new int[] {7}, 1, 1).item());
        assertEquals(4, M.slice(1, 1, 2).slice(0, 1, 2).item());
        assertEquals(3, Tensor.scalar(3).expand(1, 1).item());
        assertThrows(SmeltException.class, M::item);
        assertThrows(SmeltException.class, () -> Tensor.zeros(0).item());
    }

    @Test
    void setStoresInPlaceWhereViewsAndCompiledFunctionsSeeIt() {
        var m = Tensor.arange(6).reshape(2, 3);
        m.t().set(9, -1, 0);                                     // m[0, 2], through a view
        assertEquals(9, m.get(0, 2));
        var counts = Tensor.zeros(DType.I32, 2);
        counts.set(2.7, 1);
        assertEquals(2, counts.get(1));                          // rounded to the dtype, as a cast
        var rate = Tensor.scalar(DType.F64, 0.5);
        var scaled = Jit.compile((x, r) -> x.mul(r));
        var x = Tensor.of(new double[] {2, 4});
        assertArrayEquals(new double[] {1, 2}, scaled.apply(x, rate).toDoubleArray());
        rate.set(0.25);                                          // a hyper-parameter changed between calls
        assertArrayEquals(new double[] {0.5, 1}, scaled.apply(x, rate).toDoubleArray());
        assertThrows(SmeltException.class, () -> m.set(1, 2, 0));
        assertThrows(SmeltException.class, () -> m.set(1, 0));
        assertThrows(SmeltException.class, () -> Jit.trace(t -> {
            t.set(1, 0);
            return t;
        }, Tensor.zeros(2)));
    }

    @Test
    void arrayConversionsFollowTheViewsRowMajorOrder() {
        assertArrayEquals(new int[] {0, 3, 1, 4, 2, 5}, M.t().toIntArray());
        assertArrayEquals(new float[] {0, 3, 1, 4, 2, 5}, M.t().toFloatArray());
        assertArrayEquals(new double[] {2, 5}, M.slice(1, 2, 3).toDoubleArray());
        assertArrayEquals(new int[] {1, 1, 1, 1}, Tensor.ones(DType.I32, 1, 2).expand(2, 2).toIntArray());
        assertArrayEquals(new float[0], Tensor.zeros(3, 0).toFloatArray());
    }

    @Test
    void arrayConversionsConvertBetweenNumericTypes() {
        assertArrayEquals(new float[] {(float) 0.1, 1e30f, INF}, Tensor.of(new double[] {0.1, 1e30, 1e300}).toFloatArray());
        assertArrayEquals(new double[] {(double) 0.1f, NAN}, Tensor.of(new float[] {0.1f, NAN}).toDoubleArray());
        assertArrayEquals(new int[] {1, 0, 1}, Tensor.of(new boolean[] {true, false, true}).toIntArray());
        assertArrayEquals(new float[] {1, 0}, Tensor.of(new boolean[] {true, false}).toFloatArray());
        assertArrayEquals(new double[] {-7, Integer.MAX_VALUE}, Tensor.of(new int[] {-7, Integer.MAX_VALUE}).toDoubleArray());
        assertArrayEquals(new boolean[] {true, false}, Tensor.of(new boolean[] {true, false}).toBooleanArray());
        assertArrayEquals(new boolean[] {false, true}, M.slice(1, 0, 2).gt(0).slice(0, 0, 1).squeeze().toBooleanArray());
    }

    @Test
    void arrayConversionsRefuseLossyOrMeaninglessTypes() {
        assertThrows(SmeltException.class, () -> Tensor.of(new float[] {1}).toIntArray());
        assertThrows(SmeltException.class, () -> Tensor.of(new double[] {1}).toIntArray());
        assertThrows(SmeltException.class, () -> M.toBooleanArray());
        assertThrows(SmeltException.class, () -> Tensor.ones(2).toBooleanArray());
    }

    @Test
    void arrayConversionsReturnCopies() {
        var x = Tensor.of(new float[] {1, 2});
        x.toFloatArray()[0] = 99;
        x.toDoubleArray()[0] = 99;
        assertEquals(1, x.get(0));
        var ints = Tensor.of(new int[] {1, 2});
        ints.toIntArray()[0] = 99;
        assertEquals(1, ints.get(0));
    }

    @Test
    void allCloseUsesTorchsAsymmetricTolerance() {
        var a = Tensor.of(new float[] {1, 2, 3});
        assertTrue(a.allClose(a));
        assertTrue(a.allClose(Tensor.of(new float[] {1, 2, 3.00001f})));
        assertFalse(a.allClose(Tensor.of(new float[] {1, 2, 3.001f})));
        assertTrue(a.allClose(Tensor.of(new float[] {1, 2, 3.001f}), 0, 0.01, false));
        // |a - b| ≤ atol + rtol·|b|: only b scales the tolerance.
        var one = Tensor.scalar(1);
        var two = Tensor.scalar(2);
        assertTrue(one.allClose(two, 0.5, 0, false));
        assertFalse(two.allClose(one, 0.5, 0, false));
        assertTrue(Tensor.zeros(0).allClose(Tensor.ones(0)));
        assertTrue(Tensor.of(new int[] {1, 2}).allClose(Tensor.of(new double[] {1, 2})));
    }

    @Test
    void allCloseOnNaNAndInfinities() {
        var nan = Tensor.of(new float[] {NAN});
        assertFalse(nan.allClose(nan));
        assertTrue(nan.allClose(nan, 1e-5, 1e-8, true));
        assertFalse(nan.allClose(Tensor.of(new float[] {1}), 1e-5, 1e-8, true));
        assertFalse(Tensor.of(new float[] {1}).allClose(nan, 1e-5, 1e-8, true));
        var inf = Tensor.of(new float[] {INF, -INF});
        assertTrue(inf.allClose(inf));
        assertFalse(inf.allClose(Tensor.of(new float[] {-INF, INF})));
        assertFalse(inf.allClose(Tensor.of(new float[] {Float.MAX_VALUE, -INF}), 1, 1, false));
        // rtol·|inf| is infinite, but an infinite difference is still not close.
        assertFalse(Tensor.of(new float[] {1}).allClose(Tensor.of(new float[] {INF})));
        assertFalse(Tensor.of(new float[] {-INF}).allClose(Tensor.of(new float[] {INF}), 1, 1, true));
    }

    @Test
    void allCloseBroadcasts() {
        assertTrue(Tensor.full(2, 2, 3).allClose(Tensor.scalar(2)));
        assertTrue(Tensor.scalar(2).allClose(Tensor.full(2, 2, 3)));
        assertTrue(Tensor.of(new float[] {1, 2}).allClose(Tensor.of(new float[] {1, 2, 1, 2}, 2, 2)));
        assertFalse(Tensor.of(new float[] {1, 2}).allClose(Tensor.of(new float[] {1, 2, 2, 1}, 2, 2)));
        assertThrows(SmeltException.class, () -> Tensor.ones(2).allClose(Tensor.ones(3)));
    }

    @Test
    void smallTensorsPrintEveryValueInPyTorchsLayout() {
        assertEquals("tensor([[1.5000, 2.0000],\n        [3.0000, 4.0000]], shape=[2,2], dtype=f32)",
                Tensor.of(new float[] {1.5f, 2, 3, 4}, 2, 2).toString());
        assertEquals("tensor([[[0, 1],\n         [2, 3]],\n\n        [[4, 5],\n         [6, 7]]], shape=[2,2,2], dtype=i32)",
                Tensor.arange(8).reshape(2, 2, 2).toString());
        assertEquals("tensor([[0, 3],\n        [1, 4],\n        [2, 5]], shape=[3,2], dtype=i32)", M.t().toString());
        assertEquals("tensor([0.1000, 0.2500], shape=[2], dtype=f64)", Tensor.of(new double[] {0.1, 0.25}).toString());
    }

    @Test
    void oneFormatAndWidthServesEveryElement() {
        assertEquals("tensor([ -1,  10, 100], shape=[3], dtype=i32)", Tensor.of(new int[] {-1, 10, 100}).toString());
        assertEquals("tensor([ true, false], shape=[2], dtype=bool)", Tensor.of(new boolean[] {true, false}).toString());
        assertEquals("tensor([ 1., -2., 30.], shape=[3], dtype=f32)", Tensor.of(new float[] {1, -2, 30}).toString());
        assertEquals("tensor([-0.0000,  0.5000], shape=[2], dtype=f32)", Tensor.of(new float[] {-0.0f, 0.5f}).toString());
        assertEquals("tensor([   nan,    inf,   -inf, 1.5000], shape=[4], dtype=f32)",
                Tensor.of(new float[] {NAN, INF, -INF, 1.5f}).toString());
        assertEquals("tensor([1.0000e-05, 1.0000e+00], shape=[2], dtype=f32)", Tensor.of(new float[] {1e-5f, 1}).toString());
        assertEquals("tensor([1.0000e+09, 1.0000e+00], shape=[2], dtype=f64)", Tensor.of(new double[] {1e9, 1}).toString());
    }

    @Test
    void zeroDimensionalAndEmptyTensorsPrint() {
        assertEquals("tensor(2.5000, shape=[], dtype=f32)", Tensor.scalar(2.5).toString());
        assertEquals("tensor(3., shape=[], dtype=f32)", Tensor.scalar(3).toString());
        assertEquals("tensor(true, shape=[], dtype=bool)", Tensor.scalar(DType.BOOL, 1).toString());
        assertEquals("tensor([], shape=[0], dtype=f32)", Tensor.zeros(0).toString());
        assertEquals("tensor([[],\n        []], shape=[2,0], dtype=f32)", Tensor.zeros(2, 0).toString());
    }

    @Test
    void moreThanAThousandElementsAreSummarised() {
        assertEquals("tensor([   0,    1,    2, ...,  998,  999, 1000], shape=[1001], dtype=i32)", Tensor.arange(1001).toString());
        String thousand = Tensor.arange(1000).toString();
        assertFalse(thousand.contains("..."));
        assertEquals(999, thousand.chars().filter(c -> c == ',').count() - 2);    // minus the two before shape= and dtype=
        assertEquals("""
                tensor([[   0,    1,    2, ...,   97,   98,   99],
                        [ 100,  101,  102, ...,  197,  198,  199],
                        [ 200,  201,  202, ...,  297,  298,  299],
                        ...,
                        [9700, 9701, 9702, ..., 9797, 9798, 9799],
                        [9800, 9801, 9802, ..., 9897, 9898, 9899],
                        [9900, 9901, 9902, ..., 9997, 9998, 9999]], shape=[100,100], dtype=i32)""",
                Tensor.arange(10000).reshape(100, 100).toString());
        assertEquals("""
                tensor([[   0.,    1.],
                        [   2.,    3.],
                        [   4.,    5.],
                        ...,
                        [1994., 1995.],
                        [1996., 1997.],
                        [1998., 1999.]], shape=[1000,2], dtype=f32)""",
                Tensor.arange(2000).reshape(1000, 2).to(DType.F32).toString());
    }
}
