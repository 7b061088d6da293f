// SPDX-License-Identifier: Apache-2.0
package dev.smelt;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.smelt.ir.DType;
import dev.smelt.ir.SmeltException;
import java.util.Random;
import org.junit.jupiter.api.Test;

/// `Tensor.copyFrom`: values written in place, bit for bit, through views, seen by compiled
/// functions at their next call; every mismatch refused before anything is written.
class CopyFromTest {
    private static final float SIGNALLING_NAN = Float.intBitsToFloat(0x7f800123);

    @Test
    void arraysAreWrittenBitForBitInRowMajorOrder() {
        var t = Tensor.zeros(2, 2);
        assertSame(t, t.copyFrom(new float[] {-0f, SIGNALLING_NAN, Float.MIN_VALUE, Float.NEGATIVE_INFINITY}));
        assertArrayEquals(bits(-0f, SIGNALLING_NAN, Float.MIN_VALUE, Float.NEGATIVE_INFINITY), bits(t.toFloatArray()));
        var d = Tensor.zeros(DType.F64, 3).copyFrom(new double[] {Double.longBitsToDouble(0x7ff0000000000abcL), -0.0, 4.9e-324});
        assertEquals(0x7ff0000000000abcL, Double.doubleToRawLongBits(d.toDoubleArray()[0]));
        assertArrayEquals(new int[] {Integer.MIN_VALUE, 7}, Tensor.zeros(DType.I32, 2).copyFrom(new int[] {Integer.MIN_VALUE, 7}).toIntArray());
        assertArrayEquals(new boolean[] {true, false}, Tensor.zeros(DType.BOOL, 2).copyFrom(new boolean[] {true, false}).toBooleanArray());
        assertArrayEquals(new double[] {0.1f, 2}, Tensor.zeros(DType.F64, 2).copyFrom(new float[] {0.1f, 2}).toDoubleArray()); // widened exactly
        assertArrayEquals(new double[] {Integer.MAX_VALUE}, Tensor.zeros(DType.F64, 1).copyFrom(new int[] {Integer.MAX_VALUE}).toDoubleArray());
        assertEquals(3.5, Tensor.scalar(0).copyFrom(new float[] {3.5f}).item());
        Tensor.zeros(0, 3).copyFrom(new float[0]);
    }

    @Test
    void conversionsThatWouldChangeValuesAreRefused() {
        rejects(() -> Tensor.zeros(2).copyFrom(new double[] {1, 2}), "a double[] cannot be written into a f32 tensor", "f64");
        rejects(() -> Tensor.zeros(2).copyFrom(new int[] {1, 2}), "int[] cannot be written into a f32 tensor", "i32 or f64");
        rejects(() -> Tensor.zeros(DType.I32, 2).copyFrom(new float[] {1, 2}), "float[] cannot be written into a i32 tensor");
        rejects(() -> Tensor.zeros(DType.F32, 2).copyFrom(new boolean[] {true, false}), "boolean[]");
        rejects(() -> Tensor.zeros(2, 3).copyFrom(new float[5]), "5 values cannot fill the tensor f32[2,3] (6 elements)");
        rejects(() -> Tensor.zeros(2).copyFrom((float[]) null), "the float[] is null");
        rejects(() -> Tensor.zeros(2).copyFrom((Tensor) null), "the source tensor is null");
        rejects(() -> Tensor.zeros(2, 3).copyFrom(Tensor.zeros(3, 2)), "the source is f32[3,2] but the tensor is f32[2,3]", "same shape");
        rejects(() -> Tensor.zeros(2).copyFrom(Tensor.zeros(DType.F64, 2)), "the source is f64[2] but the tensor is f32[2]", ".to(DType.F32)");
    }

    @Test
    void writesThroughViewsIntoTheStorageTheyShare() {
        var m = Tensor.zeros(DType.I32, 2, 3);
        m.t().copyFrom(new int[] {1, 2, 3, 4, 5, 6});                // m.t() is [3, 2]
        assertArrayEquals(new int[] {1, 3, 5, 2, 4, 6}, m.toIntArray());
        m.slice(1, 0, 3, 2).copyFrom(Tensor.of(new int[] {-1, -2, -3, -4}, 2, 2));
        assertArrayEquals(new int[] {-1, 3, -2, -3, 4, -4}, m.toIntArray());
        m.slice(0, 1, 2).copyFrom(Tensor.of(new int[] {7, 8, 9}).reshape(1, 3));
        assertArrayEquals(new int[] {-1, 3, -2, 7, 8, 9}, m.toIntArray());
    }

    @Test
    void aSourceOverlappingTheTargetIsReadWholeFirst() {
        var m = Tensor.of(new float[] {1, 2, 3, 4}, 2, 2);
        m.copyFrom(m.t());
        assertArrayEquals(new float[] {1, 3, 2, 4}, m.toFloatArray());
        var v = Tensor.of(new float[] {1, 2, 3, 4});
        v.slice(0, 1, 4).copyFrom(v.slice(0, 0, 3));                  // a shift by one, as memmove
        assertArrayEquals(new float[] {1, 1, 2, 3}, v.toFloatArray());
        var bitsKept = Tensor.of(new float[] {SIGNALLING_NAN, -0f}, 1, 2);
        bitsKept.copyFrom(bitsKept.t().reshape(1, 2));
        assertArrayEquals(bits(SIGNALLING_NAN, -0f), bits(bitsKept.toFloatArray()));
    }

    @Test
    void aBroadcastViewCannotBeWritten() {
        var row = Tensor.zeros(1, 3);
        rejects(() -> row.expand(4, 3).copyFrom(new float[12]), "broadcast view (stride 0 on axis 0)");
        assertArrayEquals(new float[3], row.toFloatArray());
        Tensor.zeros(1).expand(1, 1).copyFrom(new float[] {2});     // size-1 axes are fine whatever their stride
    }

    @Test
    void aTracedTensorCannotBeWritten() {
        rejects(() -> Jit.trace(x -> x.copyFrom(new float[] {1, 2}), Tensor.zeros(2)), "cannot write into a traced tensor f32[2]");
        var concrete = Tensor.zeros(2);
        rejects(() -> Jit.trace(x -> concrete.copyFrom(x), Tensor.zeros(2)), "traced tensor");
    }

    /// A write inside a traced function would happen once, when tracing: compiled calls would
    /// skip it where eager calls repeat it, so it is refused, and the tensor keeps its values.
    @Test
    void aConcreteTensorCannotBeWrittenWhileAFunctionIsTraced() {
        var counter = Tensor.zeros(2);
        rejects(() -> Jit.compile((Tensor x) -> x.add(counter.copyFrom(new float[] {1, 2}))).apply(Tensor.zeros(2)),
                "cannot write into the tensor f32[2] while a function is traced");
        rejects(() -> Jit.trace(x -> x.add(counter.copyFrom(Tensor.of(new float[] {1, 2}))), Tensor.zeros(2)), "while a function is traced");
        var set = assertThrows(SmeltException.class, () -> Jit.compile((Tensor x) -> {
            counter.set(counter.get(0) + 1, 0);
            return x.add(counter);
        }).apply(Tensor.zeros(2)));
        assertTrue(set.getMessage().startsWith("set: cannot write into the tensor f32[2] while a function is traced"), set.getMessage());
        assertArrayEquals(new float[2], counter.toFloatArray());
    }

    @Test
    void compiledFunctionsSeeNewValuesAtTheirNextCall() {
        var weight = Tensor.zeros(3, 4);
        var bias = Tensor.zeros(4);
        var layer = Jit.compile(x -> x.matmul(weight).add(bias));
        var random = new Random(7);
        var x = Tensor.randn(new Generator(1), 5, 3);
        for (int call = 0; call < 4; call++) {
            float[] w = new float[12], b = new float[4];
            for (int i = 0; i < w.length; i++) w[i] = (float) random.nextGaussian();
            for (int i = 0; i < b.length; i++) b[i] = (float) random.nextGaussian();
            weight.copyFrom(w);
            bias.copyFrom(Tensor.of(b));
            var expected = x.matmul(Tensor.of(w, 3, 4)).add(Tensor.of(b));
            assertArrayEquals(expected.toFloatArray(), layer.apply(x).toFloatArray(), "call " + call);
        }
        assertEquals(1, layer.compiledSignatures());
    }

    private static void rejects(Runnable action, String... fragments) {
        var e = assertThrows(SmeltException.class, action::run);
        for (String fragment : fragments) assertTrue(e.getMessage().contains(fragment), () -> "'" + fragment + "' missing from: " + e.getMessage());
        assertTrue(e.getMessage().startsWith("copyFrom: "), e.getMessage());
    }

    private static int[] bits(float... values) {
        int[] bits = new int[values.length];
        for (int i = 0; i < values.length; i++) bits[i] = Float.floatToRawIntBits(values[i]);
        return bits;
    }
}
