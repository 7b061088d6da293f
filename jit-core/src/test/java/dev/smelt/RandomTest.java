// SPDX-License-Identifier: Apache-2.0
package dev.smelt;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.smelt.ir.DType;
import dev.smelt.ir.FusionMode;
import dev.smelt.ir.SmeltException;
import java.util.Arrays;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/// Random tensors in compiled code: each call draws fresh values, the same bits an eager call
/// would draw from the same generator state, and the generator advances as eagerly.
class RandomTest {
    static Stream<Arguments> draws() {
        return Stream.of(DType.F32, DType.F64).flatMap(dtype -> Stream.of(true, false).flatMap(normal ->
                Stream.of(new int[] {1}, new int[] {7}, new int[] {1027}, new int[] {3, 33}, new int[] {2, 0, 3}).map(dims -> Arguments.of(dtype, normal, dims))));
    }

    private static Tensor draw(Generator generator, boolean normal, DType dtype, int[] dims) {
        return normal ? Tensor.randn(generator, dtype, dims) : Tensor.rand(generator, dtype, dims);
    }

    @ParameterizedTest(name = "{0} randn={1} {2}")
    @MethodSource("draws")
    void compiledCallsDrawWhatEagerCallsDraw(DType dtype, boolean normal, int[] dims) {
        var eager = new Generator(11);
        var traced = new Generator(11);
        var f = Jit.compile(x -> x.add(draw(traced, normal, dtype, dims)));
        var zeros = Tensor.zeros(dtype, dims);
        for (int call = 0; call < 3; call++) {
            assertArrayEquals(draw(eager, normal, dtype, dims).toDoubleArray(), f.apply(zeros).toDoubleArray(), "call " + call);
            assertEquals(eager.position(), traced.position(), "call " + call);
        }
        assertEquals(1, f.compiledSignatures());
    }

    @Test
    void eachCallDrawsAFreshMask() {
        var g = new Generator(3);
        var dropout = Jit.compile(x -> x.mul(Tensor.rand(g, x.shape().toArray()).lt(0.5)).mul(2));
        var first = dropout.apply(Tensor.ones(4099)).toFloatArray();
        var second = dropout.apply(Tensor.ones(4099)).toFloatArray();
        assertFalse(Arrays.equals(first, second));
        assertEquals(2 * 4099, g.position());
    }

    /// Two draws from one generator in one call follow each other; a second generator keeps its own count.
    @Test
    void drawsInOneCallFollowEachOtherPerGenerator() {
        var a = new Generator(5);
        var b = new Generator(6);
        var f = Jit.compile(x -> x.add(Tensor.rand(a, 10)).add(Tensor.randn(b, 10)).add(Tensor.rand(a, DType.F32, 10).mul(100)));
        var eagerA = new Generator(5);
        var eagerB = new Generator(6);
        for (int call = 0; call < 2; call++) {
            var expected = Tensor.zeros(10).add(Tensor.rand(eagerA, 10)).add(Tensor.randn(eagerB, 10)).add(Tensor.rand(eagerA, DType.F32, 10).mul(100));
            assertArrayEquals(expected.toFloatArray(), f.apply(Tensor.zeros(10)).toFloatArray());
        }
        assertEquals(eagerA.position(), a.position());
        assertEquals(eagerB.position(), b.position());
    }

    /// A generator the function makes itself is made afresh by every eager call, which then draws
    /// the same values; so does every compiled call, while a generator from outside still advances.
    @Test
    void aGeneratorMadeInsideTheFunctionDrawsTheSameValuesOnEveryCall() {
        var tracedOutside = new Generator(2);
        var eagerOutside = new Generator(2);
        var traced = Jit.compile(x -> x.add(Tensor.rand(new Generator(1), 6)).dropout(0.5, new Generator(7)).add(Tensor.rand(tracedOutside, 6)));
        Jit.Function1 eager = x -> x.add(Tensor.rand(new Generator(1), 6)).dropout(0.5, new Generator(7)).add(Tensor.rand(eagerOutside, 6));
        var x = Tensor.ones(6);
        for (int call = 0; call < 3; call++) assertArrayEquals(eager.apply(x).toFloatArray(), traced.apply(x).toFloatArray(), "call " + call);
        assertEquals(eagerOutside.position(), tracedOutside.position());
        assertEquals(1, traced.compiledSignatures());
    }

    /// A random tensor read through views (transposed, reshaped, broadcast, sliced) is fused into its
    /// consumer and still draws element i of its own row-major order.
    @Test
    void viewsOfRandomTensorsMatchEager() {
        var traced = new Generator(9);
        var eager = new Generator(9);
        Jit.Function1 viewed = x -> x.add(Tensor.rand(traced, 33, 4).t()).add(Tensor.randn(traced, 132).reshape(4, 33))
                .add(Tensor.rand(traced, 1, 33).expand(4, 33)).add(Tensor.rand(traced, 8, 33).slice(0, 1, 8, 2));
        var f = Jit.compile(viewed);
        var x = Tensor.zeros(4, 33);
        for (int call = 0; call < 2; call++) {
            var expected = x.add(Tensor.rand(eager, 33, 4).t()).add(Tensor.randn(eager, 132).reshape(4, 33))
                    .add(Tensor.rand(eager, 1, 33).expand(4, 33)).add(Tensor.rand(eager, 8, 33).slice(0, 1, 8, 2));
            assertArrayEquals(expected.toFloatArray(), f.apply(x).toFloatArray());
        }
        assertTrue(f.explain().contains("kernels: 1 "), f.explain());
    }

    /// The interpreter and every fusion mode give the same draws.
    @Test
    void interpreterAndFusionModesAgree() {
        Jit.Function1 body = x -> x.mul(Tensor.rand(new Generator(0), x.shape().toArray()).ge(0.3)).add(Tensor.randn(new Generator(1), x.shape().toArray()));
        var x = Tensor.ones(5, 301);
        float[] expected = Jit.trace(body, x).interpret(x).getFirst().toFloatArray();
        for (var mode : FusionMode.values())
            assertArrayEquals(expected, Jit.compile(body).withFusion(mode).apply(x).toFloatArray(), mode.toString());
    }

    /// The seed and position are inputs: a new seed or a later position needs no recompile.
    @Test
    void theKeyIsAnInputNotAConstant() {
        var g = new Generator(1);
        var f = Jit.compile(x -> x.add(Tensor.rand(g, 8)));
        for (int call = 0; call < 5; call++) f.apply(Tensor.zeros(8));
        assertEquals(1, f.compiledSignatures());
        assertTrue(f.explain().contains("%1: i32[2]") && f.explain().contains("= rand %1 : f32[8]"), f.explain());
    }

    /// Each uniform `f32` value is a multiple of 2⁻²⁴ in [0, 1); their mean is within five standard
    /// errors of 1/2, and 64 equal bins pass a loose chi-square bound (its 99.9999th percentile is about 130).
    @Test
    void uniformDrawsLookUniform() {
        int n = 1 << 20, bins = 64;
        var g = new Generator(2026);
        float[] values = Jit.compile(x -> x.add(Tensor.rand(g, n))).apply(Tensor.zeros(n)).toFloatArray();
        long[] counts = new long[bins];
        double sum = 0;
        for (float v : values) {
            assertTrue(v >= 0 && v < 1 && v * (1 << 24) == Math.rint(v * (1 << 24)), "value " + v);
            counts[(int) (v * bins)]++;
            sum += v;
        }
        assertEquals(0.5, sum / n, 5 * Math.sqrt(1 / 12.0 / n));
        double expected = (double) n / bins, chiSquare = 0;
        for (long count : counts) chiSquare += (count - expected) * (count - expected) / expected;
        assertTrue(chiSquare < 130, "chi-square " + chiSquare);
    }

    /// Normal draws: mean 0 and variance 1 within five standard errors.
    @Test
    void normalDrawsHaveUnitVariance() {
        int n = 1 << 20;
        double[] values = Jit.compile(x -> x.add(Tensor.randn(new Generator(8), DType.F64, n))).apply(Tensor.zeros(DType.F64, n)).toDoubleArray();
        double mean = Arrays.stream(values).average().orElseThrow();
        double variance = Arrays.stream(values).map(v -> v * v).average().orElseThrow() - mean * mean;
        assertEquals(0, mean, 5 / Math.sqrt(n));
        assertEquals(1, variance, 5 * Math.sqrt(2.0 / n));
    }

    /// The kept fraction of `dropout(p)` is within five binomial standard deviations of `1 - p`,
    /// kept elements are scaled by `1 / (1 - p)`, and every call draws another mask.
    @Test
    void dropoutKeepsOneMinusPAndScales() {
        int n = 1 << 20;
        double p = 0.3;
        var g = new Generator(77);
        var dropout = Jit.compile(x -> x.dropout(p, g));
        float[] first = dropout.apply(Tensor.ones(n)).toFloatArray(), second = dropout.apply(Tensor.ones(n)).toFloatArray();
        long kept = 0, keptBoth = 0;
        for (int i = 0; i < n; i++) {
            assertTrue(first[i] == 0 || first[i] == (float) (1 / (1 - p)), "element " + first[i]);
            if (first[i] != 0) kept++;
            if (first[i] != 0 && second[i] != 0) keptBoth++;
        }
        assertEquals(1 - p, (double) kept / n, 5 * Math.sqrt(p * (1 - p) / n));
        assertEquals((1 - p) * (1 - p), (double) keptBoth / n, 5 * Math.sqrt(0.5 * 0.5 / n), "two calls' masks are independent");
    }

    @Test
    void dropoutEdgeCasesAreThoseOfPyTorch() {
        var g = new Generator(1);
        var x = Tensor.of(new float[] {1, Float.NaN, -2});
        assertTrue(x.dropout(0, g) == x);
        assertArrayEquals(new float[] {0, Float.NaN, -0f}, x.dropout(1, g).toFloatArray());
        assertEquals(0, g.position(), "p = 0 and p = 1 draw nothing");
        for (double p : new double[] {-0.1, 1.5, Double.NaN}) {
            var error = assertThrows(SmeltException.class, () -> x.dropout(p, g));
            assertTrue(error.getMessage().contains("dropout") && error.getMessage().contains("[0, 1]"), error.getMessage());
        }
        assertThrows(SmeltException.class, () -> Tensor.arange(3).dropout(0.5, g));
        assertThrows(SmeltException.class, () -> x.dropout(0.5, null));
    }

    /// Threads sharing one compiled function and its generator each reserve their own draws: the
    /// calls' values are exactly the eager draws at positions 0, n, 2n, …, each once.
    @Test
    void concurrentCallsTakeDistinctDraws() throws Exception {
        int n = 64, threads = 4, calls = 25;
        var g = new Generator(21);
        var f = Jit.compile(x -> x.add(Tensor.rand(g, n)));
        var results = java.util.Collections.synchronizedSet(new java.util.HashSet<String>());
        try (var pool = java.util.concurrent.Executors.newFixedThreadPool(threads)) {
            var futures = new java.util.ArrayList<java.util.concurrent.Future<?>>();
            for (int t = 0; t < threads; t++)
                futures.add(pool.submit(() -> { for (int call = 0; call < calls; call++) results.add(Arrays.toString(f.apply(Tensor.zeros(n)).toFloatArray())); }));
            for (var future : futures) future.get();
        }
        var eager = new Generator(21);
        var expected = new java.util.HashSet<String>();
        for (int call = 0; call < threads * calls; call++) expected.add(Arrays.toString(Tensor.rand(eager, n).toFloatArray()));
        assertEquals(expected, results);
        assertEquals(eager.position(), g.position());
    }

    @Test
    void generatorPrintsItsSeedAndPosition() {
        var g = new Generator(42);
        Tensor.rand(g, 1024);
        assertEquals("Generator(seed=42, position=1024)", g.toString());
        Tensor.randn(g, 3);
        assertEquals(1028, g.position(), "randn takes draws in pairs");
    }
}
