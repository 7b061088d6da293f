// SPDX-License-Identifier: Apache-2.0
package dev.smelt;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.smelt.codegen.Variant;
import dev.smelt.ir.DType;
import dev.smelt.ir.SmeltException;
import dev.smelt.ir.Storage;
import dev.smelt.ops.Dispatch;
import dev.smelt.ref.Interpreter;
import dev.smelt.runtime.KernelLoader;
import dev.smelt.testing.GraphTolerance;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

/// Dimensions marked dynamic ([Compiled#dynamic], [Dynamic]): a call at a new batch size computes
/// what the reference interpreter computes, is not a recompile, and defines no kernel class (the
/// scalar classes are counted; vector classes come only from background warm-ups, once per
/// kernel). Other changes still recompile with their reason, and bad marks are refused clearly.
class DynamicDimsTest {
    private static final int[] BATCHES = {1, 7, 64, 129, 300};

    /// Sizes stay under the vector threshold, so every class a call needs is defined by that call.
    private static final Generator RANDOM = new Generator(7);
    private static final Tensor W1 = Tensor.randn(RANDOM, 20, 16), B1 = Tensor.randn(RANDOM, 16);
    private static final Tensor W2 = Tensor.randn(RANDOM, 16, 10), B2 = Tensor.randn(RANDOM, 10);

    private static Tensor mlp(Tensor x) { return x.matmul(W1).add(B1).relu().matmul(W2).add(B2).softmax(-1); }

    // x [B,5,7] · y [7] broadcast, z [B,1,7] broadcast along the middle axis
    private static Tensor chain(Tensor x, Tensor y, Tensor z) { return x.mul(y).add(z.sin()).relu().sub(x.exp().mul(0.5)); }

    @Test
    void mlpAtEveryBatchSizeMatchesTheReferenceWithoutRecompilingOrNewClasses() {
        var compiled = Jit.compile(DynamicDimsTest::mlp).dynamic(0, 0);
        callAtEveryBatch(compiled, batch -> List.of(Tensor.randn(new Generator(batch), batch, 20)), args -> List.of(mlp(args.get(0))));
    }

    @Test
    void broadcastingPointwiseChainAtEveryBatchSizeMatchesTheReference() {
        var compiled = Jit.compile(DynamicDimsTest::chain).dynamic(0, 0).dynamic(2, 0);
        Tensor y = Tensor.randn(new Generator(3), 7);
        callAtEveryBatch(compiled, batch -> List.of(Tensor.randn(new Generator(batch), batch, 5, 7), y, Tensor.randn(new Generator(-batch), batch, 1, 7)),
                args -> List.of(chain(args.get(0), args.get(1), args.get(2))));
    }

    /// Calls at each batch size: the results match the reference, nothing recompiles, and after
    /// the first size no scalar class is defined.
    private static void callAtEveryBatch(Compiled compiled, java.util.function.IntFunction<List<Tensor>> arguments, Function<List<Tensor>, List<Tensor>> function) {
        long classes = 0;
        for (int i = 0; i < BATCHES.length; i++) {
            if (i == 1) classes = KernelLoader.defined(Variant.SCALAR);
            var args = arguments.apply(BATCHES[i]);
            var result = compiled.applyAll(args.toArray(Tensor[]::new));
            assertMatchesReference(function, args, result);
        }
        for (int batch : new int[] {2, 33, 7, 300, 1}) compiled.applyAll(arguments.apply(batch).toArray(Tensor[]::new));
        assertEquals(0, KernelLoader.defined(Variant.SCALAR) - classes, "kernel classes defined after the first sizes");
        assertEquals(List.of(), compiled.recompiles());
        assertEquals(1, compiled.compiledSignatures());
    }

    /// Batches over the vector threshold run tiered kernels (scalar, then the vector variant after
    /// a background warm-up on the first call's buffers), shared by every size, small ones too:
    /// results stay right before and after the switch.
    @Test
    void tieredKernelsSharedAcrossSizesStayRight() throws InterruptedException {
        Function<List<Tensor>, List<Tensor>> function = args -> List.of(args.get(0).exp().mul(args.get(1)).softmax(-1));
        var compiled = Jit.compile(args -> function.apply(args), 2).dynamic(0, 0);
        Tensor y = Tensor.randn(new Generator(9), 1024);
        for (int round = 0; round < 2; round++) {
            for (int batch : new int[] {24, 17, 40, 3}) { // 16·1024 elements is the threshold
                var x = Tensor.randn(new Generator(batch + round), batch, 1024);
                assertMatchesReference(function, List.of(x, y), compiled.applyAll(x, y));
            }
            var large = Tensor.randn(new Generator(1), 24, 1024);
            for (long deadline = System.nanoTime() + 10_000_000_000L; !compiled.explain(large, y).contains("runs vector") && System.nanoTime() < deadline; ) Thread.sleep(50);
        }
        assertEquals(List.of(), compiled.recompiles());
    }

    @Test
    void aReductionOverTheDynamicAxisMatchesTheReference() {
        Function<List<Tensor>, List<Tensor>> centre = args -> List.of(args.get(0).sub(args.get(0).mean(0)), args.get(0).sum(0));
        var compiled = Jit.compile(args -> centre.apply(args), 1).dynamic(0, 0);
        for (int batch : BATCHES) {
            var x = Tensor.randn(new Generator(batch), batch, 9);
            assertMatchesReference(centre, List.of(x), compiled.applyAll(x));
        }
        assertEquals(List.of(), compiled.recompiles());
    }

    @Test
    void aChangeOfAnotherDimStillRecompilesAndSaysWhichDim() {
        var compiled = Jit.compile((Tensor x) -> x.exp()).dynamic(0, 0);
        compiled.apply(Tensor.ones(3, 4));
        compiled.apply(Tensor.ones(8, 4));
        compiled.apply(Tensor.ones(8, 5));
        assertEquals(1, compiled.recompiles().size());
        assertEquals("compiled function compiled again (compilation 2): argument 0: shape [?,4] → [?,5]", compiled.recompiles().getFirst().toString());
        assertEquals("[argument 0: f32[?,5]]", compiled.recompiles().getFirst().signature().toString());
        compiled.apply(Tensor.ones(DType.F64, 2, 5));
        assertEquals("argument 0: dtype f32 → f64", compiled.recompiles().getLast().changes().getFirst().toString());
    }

    /// A trace that calls its own function at another size of a dynamic axis (a recursion's base
    /// case) compiles that size, as an unmarked function compiles the other signature, rather than
    /// waiting for the signature it is tracing; at its own size it is refused, not a hang.
    @Test
    void aTraceCallingItsFunctionAtAnotherSizeCompilesThatSize() {
        var base = Tensor.ones(3, 2);
        var compiled = new Compiled[1];
        compiled[0] = Jit.compile((Tensor x) -> x.dim(0) == 3 ? x.mul(2) : x.add(compiled[0].apply(base).sum(0))).dynamic(0, 0);
        var x = Tensor.of(new float[] {1, 2, 3, 4}, 2, 2);
        var result = assertTimeoutPreemptively(java.time.Duration.ofSeconds(20), () -> compiled[0].apply(x));
        assertArrayEquals(new float[] {7, 8, 9, 10}, result.toFloatArray());
        assertEquals(List.of(), compiled[0].recompiles());

        var itself = new Compiled[1];
        itself[0] = Jit.compile((Tensor y) -> y.add(itself[0].apply(x))).dynamic(0, 0);
        var error = assertTimeoutPreemptively(java.time.Duration.ofSeconds(20), () -> assertThrows(SmeltException.class, () -> itself[0].apply(x)));
        assertTrue(error.getMessage().contains("the function calls itself with these arguments while it is traced"), error.getMessage());
    }

    /// Each size keeps a program, and each program its intermediates between calls: held softly,
    /// so calls at 32 sizes, each with a 16 MB intermediate, run in a 160 MB heap (held strongly,
    /// the ninth ran out of memory), as the same calls do eagerly.
    @Test
    void callsAtManySizesKeepNoMoreIntermediatesThanTheHeapHolds() throws Exception {
        var java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        var process = new ProcessBuilder(java, "-Xmx160m", "--add-modules", "jdk.incubator.vector", "-cp", System.getProperty("java.class.path"),
                "-Dsmelt.kernelFiles=off", ManySizes.class.getName()).redirectErrorStream(true).start();
        String output = new String(process.getInputStream().readAllBytes());
        assertTrue(process.waitFor(120, TimeUnit.SECONDS));
        assertEquals(0, process.exitValue(), output);
    }

    /// The program of [#callsAtManySizesKeepNoMoreIntermediatesThanTheHeapHolds], in its own JVM.
    static final class ManySizes {
        public static void main(String[] arguments) {
            var random = new Generator(1);
            Tensor w = Tensor.randn(random, 8, 4096), w2 = Tensor.randn(random, 4096, 8);
            Jit.Function1 f = x -> x.matmul(w).softmax(-1).matmul(w2); // the [rows, 4096] product is an intermediate
            var compiled = Jit.compile(f).dynamic(0, 0);
            for (int rows = 1000; rows < 1032; rows++) {
                var x = Tensor.randn(random, rows, 8);
                if (!compiled.apply(x).allClose(f.apply(x), 1e-4, 1e-5, false)) throw new AssertionError("rows " + rows);
            }
        }
    }

    @Test
    void negativeAxesCountFromTheEnd() {
        var compiled = Jit.compile((Tensor x) -> x.softmax(0)).dynamic(0, -1);
        for (int columns : new int[] {1, 3, 17}) {
            var x = Tensor.randn(new Generator(columns), 4, columns);
            assertMatchesReference(args -> List.of(args.get(0).softmax(0)), List.of(x), compiled.applyAll(x));
        }
        assertEquals(List.of(), compiled.recompiles());
        assertTrue(compiled.explain().startsWith("signature [argument 0: f32[4,?]]: planned for the sizes below"), compiled.explain());
    }

    @Test
    void concurrentCallsAtDifferentSizesGetTheirOwnAnswers() throws Exception {
        var compiled = Jit.compile(DynamicDimsTest::mlp).dynamic(0, 0);
        var pool = Executors.newFixedThreadPool(6);
        var start = new CountDownLatch(1);
        var calls = new ArrayList<Future<?>>();
        for (int i = 0; i < 48; i++) {
            int batch = 1 + i % 12 * 5;
            calls.add(pool.submit(() -> {
                start.await();
                var x = Tensor.randn(new Generator(batch), batch, 20);
                assertMatchesReference(args -> List.of(mlp(args.get(0))), List.of(x), compiled.applyAll(x));
                return null;
            }));
        }
        start.countDown();
        for (var call : calls) call.get();
        pool.shutdown();
        assertEquals(List.of(), compiled.recompiles());
    }

    static class Model {
        final Tensor weight;

        Model(Tensor weight) { this.weight = weight; }

        @Compile
        public Tensor forward(@Dynamic Tensor x, int power) {
            Tensor y = x.matmul(weight);
            for (int i = 1; i < power; i++) y = y.mul(y);
            return y.tanh();
        }
    }

    static class BadModel {
        @Compile
        public Tensor forward(Tensor x, @Dynamic int batch) { return x; }
    }

    @Test
    void compiledMethodsMarkParametersDynamic() {
        var weight = Tensor.randn(new Generator(5), 6, 3);
        var model = Jit.instance(Model.class, weight);
        for (int batch : BATCHES) {
            var x = Tensor.randn(new Generator(batch), batch, 6);
            assertMatchesReference(args -> List.of(new Model(weight).forward(args.get(0), 2)), List.of(x), List.of(model.forward(x, 2)));
        }
        var forward = Jit.methods(model).get("forward");
        assertEquals(List.of(), forward.recompiles());
        model.forward(Tensor.ones(4, 6), 3);
        assertEquals("Model.forward(Tensor, int) compiled again (compilation 2): argument 1: value 2 → 3", forward.recompiles().getLast().toString());
    }

    @Test
    void badMarksAreRefusedNamingTheFunctionTheArgumentAndItsRank() {
        var one = Jit.compile((Tensor x) -> x.exp());
        assertMessage("dynamic: compiled function has 1 arguments; there is no argument 1", () -> one.dynamic(1, 0));
        assertMessage("dynamic: compiled function has 1 arguments; there is no argument -1", () -> one.dynamic(-1, 0));
        assertMessage("dynamic: name at least one axis of argument 0 of compiled function, such as 0 for the batch", () -> one.dynamic(0));
        var tooFar = one.dynamic(0, 2);
        assertMessage("compiled function: argument 0 is marked dynamic on axis 2, but it has rank 2 (shape [3,4]); axes run from -2 to 1", () -> tooFar.apply(Tensor.ones(3, 4)));
        assertMessage("compiled function: argument 0 is marked dynamic on axis 0, but it has rank 0 (shape []): a scalar has no axes", () -> one.dynamic(0, 0).apply(Tensor.scalar(1.0)));
        assertMessage("@Compile: BadModel.forward(Tensor, int) marks parameter 1 (a int) @Dynamic; only tensor dimensions can be dynamic", () -> Jit.instance(BadModel.class));
        var model = Jit.instance(Model.class, Tensor.ones(6, 3));
        var markedValue = Jit.methods(model).get("forward").dynamic(1, 0);
        assertMessage("Model.forward(Tensor, int): argument 1 is marked dynamic, but it is a Integer, not a tensor; only tensor dimensions can be dynamic",
                () -> markedValue.call(List.of(Tensor.ones(2, 6), 2)));
        var traced = Jit.compile(Jit.trace((Tensor x) -> x.exp(), Tensor.ones(2)));
        assertMessage("dynamic: this function was compiled from a ready-made graph for one signature; its dimensions are fixed", () -> traced.dynamic(0, 0));
    }

    private static void assertMessage(String prefix, org.junit.jupiter.api.function.Executable call) {
        var error = assertThrows(SmeltException.class, call);
        assertTrue(error.getMessage().startsWith(prefix), () -> "expected a message starting with\n" + prefix + "\nbut got\n" + error.getMessage());
    }

    /// Each result within the bounds [GraphTolerance] derives for the traced graph.
    private static void assertMatchesReference(Function<List<Tensor>, List<Tensor>> function, List<Tensor> arguments, List<Tensor> actual) {
        Traced traced = Jit.trace(function::apply, arguments);
        var inputs = new ArrayList<Storage>();
        for (Tensor argument : arguments) inputs.add(Dispatch.dense(argument.value()));
        for (Tensor capture : traced.captures()) inputs.add(Dispatch.dense(capture.value()));
        var expected = Interpreter.run(traced.graph(), inputs);
        var bounds = Interpreter.run(GraphTolerance.bounds(traced.graph()), inputs);
        for (int o = 0; o < expected.size(); o++) {
            var got = Dispatch.dense(actual.get(o).value());
            assertEquals(traced.graph().outputs().get(o).shape(), actual.get(o).shape());
            for (int i = 0; i < expected.get(o).size(); i++) {
                String problem = GraphTolerance.mismatch(expected.get(o).get(i), got.get(i), bounds.get(o).get(i));
                if (problem != null) fail("batch %s, output %d, element %d: reference %s, compiled %s: %s".formatted(arguments.getFirst().shape(), o, i, expected.get(o).get(i), got.get(i), problem));
            }
        }
    }
}
