// SPDX-License-Identifier: Apache-2.0
package dev.smelt;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.smelt.driver.Pipeline;
import dev.smelt.fusion.FusionPlanner;
import dev.smelt.ir.DType;
import dev.smelt.ir.FusionMode;
import dev.smelt.ir.IndexOutOfRange;
import dev.smelt.ir.SmeltException;
import dev.smelt.ir.Storage;
import dev.smelt.pass.IndexChecks;
import dev.smelt.runtime.Executor;
import dev.smelt.runtime.Program;
import dev.smelt.testing.Programs;
import dev.smelt.testing.VectorOnly;
import java.util.List;
import java.util.Random;
import java.util.function.Function;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/// Compiled code checks class labels as eager code does: one bad label at a random position
/// (negative, equal to the class count, huge) gives the same `SmeltException` from an eager call,
/// every way of calling a compiled function (first call, the cached fast path, `applyAll`,
/// `applyInto`, a `@Compile` method), labels computed inside the function, and programs run on
/// vector kernels split over threads; valid labels give the same bits as the program without its
/// checks.
class IndexChecksTest {
    static final int CASES = 12;

    /// `[rows, classes, bad position, bad value]` for case `seed`: odd sizes, size 1, rows enough
    /// for vector kernels and split launches.
    static int[] shape(int seed) {
        var random = new Random(seed);
        int rows = new int[] {1, 2, 7, 33, 129, 1000}[random.nextInt(6)], classes = new int[] {1, 2, 3, 10, 17, 100, 257}[random.nextInt(7)];
        int bad = switch (random.nextInt(5)) {
            case 0 -> -1;
            case 1 -> classes;
            case 2 -> Integer.MIN_VALUE;
            case 3 -> Integer.MAX_VALUE;
            default -> classes + 1 + random.nextInt(1000);
        };
        return new int[] {rows, classes, random.nextInt(rows), bad};
    }

    static Stream<Integer> seeds() { return IntStream.range(0, CASES).boxed(); }

    static Tensor logits(int seed, int rows, int classes) { return Tensor.randn(new Generator(seed), rows, classes); }

    static Tensor labels(int seed, int rows, int classes) {
        var random = new Random(seed * 31L + 7);
        return Tensor.of(IntStream.range(0, rows).map(i -> random.nextInt(classes)).toArray());
    }

    static Tensor withBad(Tensor labels, int position, int value) {
        int[] values = labels.toIntArray();
        values[position] = value;
        return Tensor.of(values);
    }

    /// The message without its call site, which names each caller's line.
    static String detail(Throwable error) {
        String message = error.getMessage();
        int site = message.lastIndexOf(" (at ");
        return site < 0 ? message : message.substring(0, site);
    }

    static String expected(int value, int position, int classes) {
        return "crossEntropy: target %d at index %d is out of range; expected 0..%d".formatted(value, position, classes - 1);
    }

    static void rejects(String expected, Executable call) {
        var error = assertThrows(SmeltException.class, call);
        assertEquals(expected, detail(error));
        assertEquals("crossEntropy", error.op());
        assertTrue(error.getMessage().contains("IndexChecksTest.java"), "the call site is the caller's: " + error.getMessage());
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void compiledCallsRejectABadLabelAsEagerDoes(int seed) {
        int[] c = shape(seed);
        int rows = c[0], classes = c[1];
        Tensor logits = logits(seed, rows, classes), valid = labels(seed, rows, classes), bad = withBad(valid, c[2], c[3]);
        String expected = expected(c[3], c[2], classes);
        rejects(expected, () -> logits.crossEntropy(bad));
        var compiled = Jit.compile((Tensor l, Tensor t) -> l.crossEntropy(t));
        rejects(expected, () -> compiled.apply(logits, bad));               // first call: compiles, then checks
        Tensor loss = compiled.apply(logits, valid);
        assertEquals(logits.crossEntropy(valid).item(), loss.item(), 1e-5 * Math.max(1, Math.abs(loss.item())), "seed " + seed);
        for (int call = 0; call < 3; call++) {                              // the cached fast path, again and again
            rejects(expected, () -> compiled.apply(logits, bad));
            assertEquals(Float.floatToIntBits(loss.toFloatArray()[0]), Float.floatToIntBits(compiled.apply(logits, valid).toFloatArray()[0]));
        }
        rejects(expected, () -> compiled.applyAll(logits, bad));
        Tensor output = Tensor.full(-1, new int[0]);
        rejects(expected, () -> compiled.applyInto(output, logits, bad));
        assertEquals(-1, output.item(), "a failed check writes no output");
        assertEquals(1, compiled.compiledSignatures());
        assertTrue(compiled.recompiles().isEmpty(), "a failed check is no reason to recompile");
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void validLabelsGiveTheSameBitsAsTheProgramWithoutChecks(int seed) {
        int[] c = shape(seed);
        Tensor logits = logits(seed, c[0], c[1]), labels = labels(seed, c[0], c[1]);
        Jit.Function2 loss = (l, t) -> l.crossEntropy(t).add(l.logSoftmax(1).mean());
        var traced = Jit.trace(loss, logits, labels);
        var unchecked = Jit.compile(new Traced(IndexChecks.of(traced.graph()).unchecked(), traced.arguments(), traced.captures()));
        var checked = Jit.compile(loss);
        for (int call = 0; call < 3; call++)
            assertArrayEquals(unchecked.apply(logits, labels).toFloatArray(), checked.apply(logits, labels).toFloatArray(), 0f, "seed " + seed);
        assertTrue(checked.explain().contains("index checks before the first kernel: input %1 (op=crossEntropy what=target limit=" + c[1] + ")"), checked.explain());
    }

    /// Without its checks (`-Dsmelt.indexChecks=false`), a target outside `[0, classes)` gives a NaN
    /// loss, not a wrong finite one: below 0, at the class count and far beyond, compiled as the
    /// reference interpreter runs it.
    @Test
    void anUncheckedTargetOutOfRangeGivesNaN() {
        Tensor logits = logits(3, 4, 7);
        for (int bad : new int[] {-1, 7, 1 << 30}) {
            Tensor labels = Tensor.of(new int[] {0, bad, 6, 2});
            var traced = Jit.trace((Jit.Function2) (l, t) -> l.crossEntropy(t), logits, labels);
            var graph = IndexChecks.of(traced.graph()).unchecked();
            var unchecked = Jit.compile(new Traced(graph, traced.arguments(), traced.captures()));
            assertTrue(Double.isNaN(unchecked.apply(logits, labels).item()), "target " + bad);
            var reference = dev.smelt.ref.Interpreter.run(graph, List.of(Storage.wrapArray(logits.toFloatArray()), Storage.wrapArray(labels.toIntArray())));
            assertTrue(Double.isNaN(reference.getFirst().get(0)), "target " + bad);
        }
    }

    /// Checks run outside the kernels, so every variant of them (here vector code only, each launch
    /// split over three threads) is guarded alike and computes the same bits as without the check.
    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void vectorKernelsSplitOverThreadsAreGuardedToo(int seed) {
        int[] c = shape(seed);
        Tensor logits = logits(seed, c[0], c[1]), valid = labels(seed, c[0], c[1]), bad = withBad(valid, c[2], c[3]);
        var graph = dev.smelt.pass.Passes.apply(Jit.trace((Tensor l, Tensor t) -> l.crossEntropy(t), logits, valid).graph());
        var checks = IndexChecks.of(graph);
        var schedule = FusionPlanner.plan(checks.unchecked());
        var guarded = Programs.of(schedule, VectorOnly::compile, new Executor(3, 0), Pipeline.guard(checks, FusionMode.COST_MODEL));
        var bare = Programs.of(schedule, VectorOnly::compile, new Executor(3, 0));
        Function<Tensor, List<Storage>> inputs = labels -> List.of(logits.value().storage(), labels.value().storage());
        var error = assertThrows(IndexOutOfRange.class, () -> guarded.run(inputs.apply(bad)));
        assertEquals(expected(c[3], c[2], c[1]), "crossEntropy: " + error.getMessage());
        for (int call = 0; call < 2; call++)
            assertArrayEquals((float[]) bare.run(inputs.apply(valid)).getFirst().array(), (float[]) guarded.run(inputs.apply(valid)).getFirst().array(), 0f);
    }

    @Test
    void labelsComputedInsideTheFunctionAreCheckedBeforeTheProgramRuns() {
        Tensor logits = logits(3, 9, 10), labels = Tensor.of(new int[] {0, 1, 2, 3, 4, 5, 6, 7, 8});
        Jit.Function2 shifted = (l, t) -> l.crossEntropy(t.add(1)).add(l.crossEntropy(t.mul(2).sub(t)));
        var compiled = Jit.compile(shifted);
        assertArrayEquals(((Tensor) shifted.apply(logits, labels)).toFloatArray(), compiled.apply(logits, labels).toFloatArray(), 1e-5f);
        var nine = withBad(labels, 4, 9);
        rejects(expected(10, 4, 10), () -> shifted.apply(logits, nine));
        rejects(expected(10, 4, 10), () -> compiled.apply(logits, nine));
        rejects(expected(-1, 8, 10), () -> compiled.apply(logits, withBad(labels, 8, -2)));
        assertTrue(compiled.explain().contains("computed value 0 (op=crossEntropy what=target limit=10)"), compiled.explain());
    }

    static class Classifier {
        final Tensor weight = Tensor.randn(new Generator(5), 6, 4);

        @Compile
        public Tensor loss(Tensor x, Tensor labels) { return x.matmul(weight).crossEntropy(labels); }
    }

    @Test
    void compileMethodsCheckTheirLabels() {
        var model = Jit.instance(Classifier.class);
        Tensor x = Tensor.randn(new Generator(6), 5, 6), labels = Tensor.of(new int[] {0, 3, 1, 2, 2});
        assertEquals(new Classifier().loss(x, labels).item(), model.loss(x, labels).item(), 1e-5);
        rejects(expected(4, 2, 4), () -> model.loss(x, withBad(labels, 2, 4)));
        rejects(expected(-7, 0, 4), () -> model.loss(x, withBad(labels, 0, -7)));
    }

    @Test
    void aSingleTargetIsCheckedAtIndexZero() {
        Tensor logits = logits(1, 1, 5).reshape(5);
        var compiled = Jit.compile((Tensor l, Tensor t) -> l.crossEntropy(t));
        rejects(expected(5, 0, 5), () -> logits.crossEntropy(Tensor.scalar(DType.I32, 5)));
        rejects(expected(5, 0, 5), () -> compiled.apply(logits, Tensor.scalar(DType.I32, 5)));
        assertEquals(logits.crossEntropy(Tensor.scalar(DType.I32, 4)).item(), compiled.apply(logits, Tensor.scalar(DType.I32, 4)).item(), 1e-6);
    }
}
