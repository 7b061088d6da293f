// SPDX-License-Identifier: Apache-2.0
package dev.smelt.codegen;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.smelt.ir.DType;
import dev.smelt.ir.UnaryOp;
import dev.smelt.kernel.Transcendentals;
import dev.smelt.testing.RandomData;
import dev.smelt.testing.RandomKernels;
import dev.smelt.testing.Tolerance;
import java.util.List;
import java.util.stream.LongStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/// Generated code after C2 has compiled it. Cold, the Vector API runs its Java fallbacks, which are
/// exact; compiled, it uses intrinsics (SVML for the transcendentals, AVX for max, min, compares,
/// casts and blends), whose results the other tests never see.
class VectorAccuracyTest {
    /// Calls before the check: C2 compiles a 256-iteration kernel loop after about 600 (measured
    /// with `-XX:+PrintCompilation`), so this leaves a margin.
    static final int WARM_UP = 1500;

    @Test
    void everyOperatorStaysWithinItsToleranceOnceCompiled() {
        var failures = new StringBuilder();
        for (var dtype : List.of(DType.F32, DType.F64)) {
            for (var op : UnaryOp.values()) check(failures, op.toString(), dtype, VectorAccuracy.unary(op, dtype), Tolerance.of(op, dtype));
            check(failures, "pow", dtype, VectorAccuracy.pow(dtype), Tolerance.pow(dtype));
        }
        assertTrue(failures.isEmpty(), failures.toString());
    }

    private static void check(StringBuilder failures, String op, DType dtype, dev.smelt.kernel.Kernel kernel, Tolerance.Bound bound) {
        var error = VectorAccuracy.measure(kernel, dtype, 4, WARM_UP, 2);
        if (error.ulps() > bound.ulps())
            failures.append("%s %s: %d ulps at %s, %s (bound %d)%n".formatted(op, dtype, error.ulps(), error.worstInput(), error.worstSecond(), bound.ulps()));
    }

    /// The inline `f32` `exp` (`kernel.Transcendentals`), which has no fallback: every 256th float of
    /// both signs, and every float of [-104, -86.9] and [86.9, 89] (where results turn subnormal or
    /// overflow), within 1 ulp of `StrictMath.exp` once C2 has compiled it, a subnormal result within
    /// one subnormal step (a sweep of every float of [-86.9, 86.9] found 1 ulp at most; 99.5% are
    /// correctly rounded). Vectors mixing ordinary lanes with NaN, ±∞ and the clamp's edges too.
    @Test
    void inlineExpIsWithinOneUlpEverywhere() {
        int points = VectorAccuracy.POINTS;
        float[] in = new float[points], out = new float[points];
        var compiled = warmed(UnaryOp.EXP, -1.5f, in, out);
        var failures = new StringBuilder();
        long checked = everyFloat(Float.POSITIVE_INFINITY, in, () -> checkExp(compiled, in, out, 1, failures));
        checked += sweep(-104f, -86.9f, in, () -> checkExp(compiled, in, out, 1, failures))
                + sweep(86.9f, 89f, in, () -> checkExp(compiled, in, out, 1, failures));
        float[] edges = {Float.NaN, Float.POSITIVE_INFINITY, Float.NEGATIVE_INFINITY, Transcendentals.EXP_HIGH, Math.nextUp(Transcendentals.EXP_HIGH),
                Transcendentals.EXP_LOW, Math.nextDown(Transcendentals.EXP_LOW), 88.3f, 88.72f, 88.73f, -87.3f, -103.9f, -200f, Float.MIN_VALUE, -0f, 0f};
        for (int i = 0; i < points; i++) in[i] = i % 7 == 0 ? edges[(i / 7) % edges.length] : (i % 200) * 0.5f - 50;
        checkExp(compiled, in, out, 1, failures);
        assertTrue(failures.isEmpty(), failures.toString());
        assertTrue(checked > 1_000_000, "checked " + checked);
    }

    /// `f32` `tanh` has no branch either: |x| is clamped to `TANH_LIMIT`, past which every result
    /// is ±1. Every 256th float of both signs, every float of [8.5, 9.5] (the clamp's neighbourhood)
    /// and of [0.6, 0.65] (where the polynomial hands over), within 1 ulp of `StrictMath.tanh` once
    /// C2 has compiled the kernel; ±0 keep their sign; NaN, ±∞ and the clamp's edges.
    @Test
    void inlineTanhIsWithinOneUlpEverywhere() {
        int points = VectorAccuracy.POINTS;
        float[] in = new float[points], out = new float[points];
        var compiled = warmed(UnaryOp.TANH, 0.7f, in, out);
        var failures = new StringBuilder();
        long checked = everyFloat(Float.POSITIVE_INFINITY, in, () -> check(UnaryOp.TANH, StrictMath::tanh, compiled, in, out, 1, failures));
        for (float from : new float[] {8.5f, -9.5f, 0.6f, -0.65f})
            checked += sweep(from, from + (Math.abs(from) > 1 ? 1 : 0.05f), in, () -> check(UnaryOp.TANH, StrictMath::tanh, compiled, in, out, 1, failures));
        float[] edges = {Float.NaN, Float.POSITIVE_INFINITY, Float.NEGATIVE_INFINITY, -0f, 0f, Float.MIN_VALUE, -Float.MIN_VALUE, 0x1p-12f, Math.nextDown(0x1p-12f),
                0.625f, Math.nextDown(0.625f), 9f, Transcendentals.TANH_LIMIT, Math.nextUp(Transcendentals.TANH_LIMIT), -Transcendentals.TANH_LIMIT, 1e30f, -Float.MAX_VALUE};
        for (int i = 0; i < points; i++) in[i] = i % 7 == 0 ? edges[(i / 7) % edges.length] : (i % 200) * 0.1f - 10;
        check(UnaryOp.TANH, StrictMath::tanh, compiled, in, out, 1, failures);
        assertTrue(failures.isEmpty(), failures.toString());
        assertTrue(checked > 1_000_000, "checked " + checked);
    }

    /// `f32` `log` has no branch either: a subnormal argument is scaled first, and ±0, negative
    /// arguments, NaN and +∞ are blended in after the steps. Every 256th float of both signs
    /// (zeros, subnormals and negatives among them) and every float around the smallest normal,
    /// within 1 ulp of `StrictMath.log` once C2 has compiled the kernel; NaN and ±∞.
    @Test
    void inlineLogIsWithinOneUlpEverywhere() {
        int points = VectorAccuracy.POINTS;
        float[] in = new float[points], out = new float[points];
        var compiled = warmed(UnaryOp.LOG, 1.5f, in, out);
        var failures = new StringBuilder();
        long checked = everyFloat(Float.POSITIVE_INFINITY, in, () -> check(UnaryOp.LOG, StrictMath::log, compiled, in, out, 1, failures));
        checked += sweep(0x1.ffe000p-127f, 0x1.002p-126f, in, () -> check(UnaryOp.LOG, StrictMath::log, compiled, in, out, 1, failures));
        float[] edges = {Float.NaN, Float.POSITIVE_INFINITY, Float.NEGATIVE_INFINITY, -0f, 0f, Float.MIN_VALUE, -Float.MIN_VALUE, Float.MIN_NORMAL,
                Math.nextDown(Float.MIN_NORMAL), 1f, Math.nextUp(1f), Math.nextDown(1f), 0.70710677f, Float.MAX_VALUE, -1f};
        for (int i = 0; i < points; i++) in[i] = i % 5 == 0 ? edges[(i / 5) % edges.length] : (i % 200) * 0.37f;
        check(UnaryOp.LOG, StrictMath::log, compiled, in, out, 1, failures);
        assertTrue(failures.isEmpty(), failures.toString());
        assertTrue(checked > 1_000_000, "checked " + checked);
    }

    /// `f32` `sin` and `cos` are inline too (`kernel.Transcendentals`): every 256th float of
    /// [-125, 125], of both signs, within 2 ulps of `StrictMath` (a sweep of every 64th float found 2
    /// at most), and the edges: NaN, ±∞, ±0, subnormals, floats next to multiples of π/2, and
    /// vectors with a lane past ±125, which take the JDK's path whole (within 1 ulp there).
    @Test
    void inlineSinAndCosAreWithinTwoUlpsOverTheirRange() {
        for (var op : List.of(UnaryOp.SIN, UnaryOp.COS)) {
            var compiled = Compiled.of(VectorAccuracy.unary(op, DType.F32), Variant.VECTOR);
            java.util.function.DoubleUnaryOperator exact = op == UnaryOp.SIN ? StrictMath::sin : StrictMath::cos;
            int points = VectorAccuracy.POINTS;
            float[] in = new float[points], out = new float[points];
            java.util.Arrays.fill(in, 0.5f);
            for (int call = 0; call < WARM_UP; call++) compiled.function().run(new Object[] {in, out}, 0, points);
            var failures = new StringBuilder();
            long checked = everyFloat(125f, in, () -> check(op, exact, compiled, in, out, 2, failures));
            float[] edges = {Float.NaN, Float.POSITIVE_INFINITY, Float.NEGATIVE_INFINITY, -0f, 0f, Float.MIN_VALUE, -Float.MIN_VALUE, 1e-30f,
                    (float) Math.PI, (float) (Math.PI / 2), (float) (3 * Math.PI / 2), Math.nextUp((float) Math.PI), (float) (39 * Math.PI),
                    125f, -125f, Math.nextUp(125f), -200f, 3600f, 1e4f, 1e30f, Float.MAX_VALUE};
            for (int i = 0; i < points; i++) in[i] = i % 7 == 0 ? edges[(i / 7) % edges.length] : (i % 200) * 0.61f - 61;
            check(op, exact, compiled, in, out, 2, failures);
            for (int i = 0; i < points; i++) in[i] = edges[i % 15];   // the in-range edges alone: the inline path
            check(op, exact, compiled, in, out, 2, failures);
            assertTrue(failures.isEmpty(), failures.toString());
            assertTrue(checked > 1_000_000, "checked " + checked);
        }
    }

    /// `f32` gelu, tanh form: `x / (1 + exp(-2y))`, y = √(2/π)·(x + 0.044715x³). Below x = -0.6
    /// the rounding of y in `f32` is amplified (by |2y|·σ(2y), about 2 at x = -1.3; 16 ulps by -3),
    /// so there the bound is absolute: every float of [-3, -0.6] within 4.5e-8 of the double
    /// reference, and every 256th float of both signs within 2 ulps above -0.6 and 4.5e-8 below.
    @Test
    void inlineGeluTanhIsWithinItsDocumentedBound() {
        int points = VectorAccuracy.POINTS;
        float[] in = new float[points], out = new float[points];
        var compiled = warmed(UnaryOp.GELU_TANH, -1.3f, in, out);
        var failures = new StringBuilder();
        long checked = everyFloat(Float.POSITIVE_INFINITY, in, () -> checkGeluTanh(compiled, in, out, failures));
        checked += sweep(-3f, -0.6f, in, () -> checkGeluTanh(compiled, in, out, failures));
        assertTrue(failures.isEmpty(), failures.toString());
        assertTrue(checked > 10_000_000, "checked " + checked);
    }

    private static long checkGeluTanh(Compiled compiled, float[] in, float[] out, StringBuilder failures) {
        compiled.function().run(new Object[] {in, out}, 0, in.length);
        for (int i = 0; i < in.length; i++) {
            float want = (float) UnaryOp.GELU_TANH.apply(in[i]);
            boolean near = Float.isNaN(want) ? Float.isNaN(out[i])
                    : in[i] >= -0.6f ? Tolerance.ulpDistance(DType.F32, want, out[i]) <= 2 : Math.abs(want - (double) out[i]) <= 4.5e-8;
            if (!near && failures.length() < 2000) failures.append("gelu_tanh(%s) = %s, expected %s%n".formatted(in[i], out[i], want));
        }
        return in.length;
    }

    private static long check(UnaryOp op, java.util.function.DoubleUnaryOperator exact, Compiled compiled, float[] in, float[] out, long ulps,
                              StringBuilder failures) {
        compiled.function().run(new Object[] {in, out}, 0, in.length);
        for (int i = 0; i < in.length; i++) {
            float want = (float) exact.applyAsDouble(in[i]);
            boolean same = Float.isNaN(want) ? Float.isNaN(out[i])
                    : Tolerance.ulpDistance(DType.F32, want, out[i]) <= ulps && (want != 0 || Float.floatToRawIntBits(want) == Float.floatToRawIntBits(out[i]));
            if (!same && failures.length() < 2000) failures.append("%s(%s) = %s, expected %s%n".formatted(op, in[i], out[i], want));
        }
        return in.length;
    }

    // op's f32 vector kernel, called WARM_UP times on `value` so that C2 has compiled it
    private static Compiled warmed(UnaryOp op, float value, float[] in, float[] out) {
        var compiled = Compiled.of(VectorAccuracy.unary(op, DType.F32), Variant.VECTOR);
        java.util.Arrays.fill(in, value);
        for (int call = 0; call < WARM_UP; call++) compiled.function().run(new Object[] {in, out}, 0, in.length);
        return compiled;
    }

    // every 256th float of each sign up to `last`, in blocks of `in.length`, each checked by `check`
    private static long everyFloat(float last, float[] in, java.util.function.LongSupplier check) {
        int limit = Float.floatToRawIntBits(last);
        long checked = 0;
        for (long next = 0; next <= limit; ) {
            for (int i = 0; i < in.length; i++, next += 128) {     // alternate signs: 256 bit patterns apart per sign
                int bits = (int) Math.min(next, limit);
                in[i] = Float.intBitsToFloat(i % 2 == 0 ? bits : bits | 0x8000_0000);
            }
            checked += check.getAsLong();
        }
        return checked;
    }

    // every float of [from, to], in blocks of `in.length`, each checked by `check`
    private static long sweep(float from, float to, float[] in, java.util.function.LongSupplier check) {
        long checked = 0;
        for (float x = from; x <= to; ) {
            for (int i = 0; i < in.length; i++, x = Math.nextUp(x)) in[i] = Math.min(x, to);
            checked += check.getAsLong();
        }
        return checked;
    }

    /// Runs the kernel on `in` and counts the elements; appends each result over `ulps` from
    /// `(float) StrictMath.exp` (NaN only where that is NaN).
    private static long checkExp(Compiled compiled, float[] in, float[] out, long ulps, StringBuilder failures) {
        compiled.function().run(new Object[] {in, out}, 0, in.length);
        for (int i = 0; i < in.length; i++) {
            float want = (float) StrictMath.exp(in[i]);
            boolean same = Float.isNaN(want) ? Float.isNaN(out[i]) : Tolerance.ulpDistance(DType.F32, want, out[i]) <= ulps;
            if (!same && failures.length() < 2000) failures.append("exp(%s) = %s, expected %s%n".formatted(in[i], out[i], want));
        }
        return in.length;
    }

    /// C2 compiles a method after about 5000 calls at tier 3, or sooner when its loops run long
    /// (measured with `-XX:+PrintCompilation`: 38 of the 48 classes here reach tier 4 with this budget).
    static int warmUpCalls(dev.smelt.kernel.Kernel kernel) {
        int points = Math.max(1, kernel.space().size());
        return Math.clamp(3_000_000 / points, WARM_UP, 15_000);
    }

    /// Random kernels whose inner axis is long enough for the vector main loop: the first 24, or as
    /// many as `-Dsmelt.test.warmKernels` says (600 pass; this sweep found the scatter bug noted in
    /// `VectorPlan.whyScalar`).
    static Stream<Long> vectorSeeds() {
        return LongStream.range(0, 3000).boxed().filter(seed -> {
            var kernel = RandomKernels.generate(seed);
            var space = LoopSpace.of(kernel);
            return space.dim(space.inner()) >= VectorPlan.of(kernel).lanes() && kernel.workItems() > 0;
        }).limit(Long.getLong("smelt.test.warmKernels", 24));
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("vectorSeeds")
    void compiledRandomKernelsMatchTheInterpreter(long seed) {
        var kernel = RandomKernels.generate(seed);
        var buffers = RandomData.buffers(seed, kernel);
        for (var variant : Variant.values()) {
            var compiled = Compiled.of(kernel, variant);
            var scratch = RandomData.copy(buffers);
            for (int call = 0; call < warmUpCalls(kernel); call++) compiled.function().run(scratch, 0, kernel.workItems());
            Differential.check(seed, compiled, buffers);
        }
    }
}
