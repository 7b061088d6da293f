// SPDX-License-Identifier: Apache-2.0
package dev.smelt.usage;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.smelt.Compile;
import dev.smelt.Generator;
import dev.smelt.Jit;
import dev.smelt.Tensor;
import dev.smelt.ir.SmeltException;
import java.lang.invoke.MethodHandles;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

/// `@Compile` methods on instances from `Jit.instance`: the compiled method computes what the
/// plain method computes, per signature (tensor types and non-tensor values), from many threads,
/// and bad models or methods are refused naming the method and the reason.
class CompileMethodsTest {
    enum Activation { RELU, TANH }

    static class Layer {
        final Tensor weight, bias;
        final AtomicInteger traces = new AtomicInteger();

        Layer(Tensor weight, Tensor bias) {
            this.weight = weight;
            this.bias = bias;
        }

        Layer(Generator generator, int in, int out) { this(Tensor.randn(generator, in, out), Tensor.randn(generator, out)); }

        @Compile
        public Tensor forward(Tensor x, Activation activation, double scale) {
            traces.incrementAndGet();
            Tensor y = x.matmul(weight).add(bias).mul(scale);
            return activation == Activation.RELU ? y.relu() : y.tanh();
        }

        @Compile(recompileLimit = 1)
        protected Tensor score(Tensor x) { return forward(x, Activation.TANH, 1.0).sum(-1); }

        public Tensor plain(Tensor x) { return x.add(1); } // not compiled: runs eagerly
    }

    interface Residual {
        @Compile
        default Tensor block(Tensor x, int repeats) {
            Tensor y = x;
            for (int i = 0; i < repeats; i++) y = y.add(y.sin());
            return y;
        }
    }

    /// The README's example.
    static class Mlp {
        final Tensor w1, b1, w2;
        Mlp(Generator g) { w1 = Tensor.randn(g, 784, 256); b1 = Tensor.zeros(256); w2 = Tensor.randn(g, 256, 10); }

        @Compile
        public Tensor forward(Tensor x, boolean training, double keep) {
            Tensor hidden = x.matmul(w1).add(b1).relu();
            return (training ? hidden.mul(keep) : hidden).matmul(w2);
        }
    }

    private static final Generator RANDOM = new Generator(7);

    @Test
    void theReadmeMlpCompilesOneSignaturePerFlag() {
        Mlp model = Jit.instance(Mlp.class, new Generator(0));
        Mlp plain = new Mlp(new Generator(0));
        var batch = Tensor.randn(RANDOM, 17, 784);
        for (boolean training : new boolean[] {false, true})
            assertArrayEquals(plain.forward(batch, training, 0.5).toFloatArray(), model.forward(batch, training, 0.5).toFloatArray(), 1e-3f);
        var forward = Jit.methods(model).get("forward");
        assertEquals(2, forward.compiledSignatures());
        assertTrue(forward.recompiles().getFirst().toString().endsWith("argument 1: value false → true"), forward.recompiles().toString());
        assertTrue(forward.explain().contains("matmul"), forward.explain());
    }

    @Test
    void compiledMethodComputesWhatThePlainMethodComputes() {
        var model = Jit.instance(Layer.class, new Generator(1), 13, 5);
        var reference = new Layer(model.weight, model.bias);
        var x = Tensor.randn(RANDOM, 3, 13);
        for (var activation : Activation.values())
            assertArrayEquals(reference.forward(x, activation, 0.5).toFloatArray(), model.forward(x, activation, 0.5).toFloatArray(), 1e-5f);
        assertArrayEquals(reference.score(x).toFloatArray(), model.score(x).toFloatArray(), 1e-5f);
        assertArrayEquals(new float[] {2, 2}, model.plain(Tensor.ones(2)).toFloatArray());
    }

    @Test
    void nonTensorArgumentsAreInTheSignatureWithReadableReasons() {
        var model = Jit.instance(Layer.class, new Generator(2), 4, 3);
        var x = Tensor.ones(2, 4);
        model.forward(x, Activation.RELU, 1.0);
        model.forward(Tensor.zeros(2, 4), Activation.RELU, 1.0);
        assertEquals(1, model.traces.get());
        model.forward(x, Activation.TANH, 1.0);
        model.forward(x, Activation.TANH, 2.0);
        model.forward(Tensor.ones(6, 4), Activation.TANH, 2.0);
        assertEquals(4, model.traces.get());
        var reasons = Jit.methods(model).get("forward").recompiles().stream().map(Object::toString).toList();
        assertEquals(3, reasons.size(), reasons.toString());
        assertTrue(reasons.get(0).endsWith("value RELU → TANH"), reasons.get(0));
        assertTrue(reasons.get(0).startsWith("Layer.forward(Tensor, Activation, double) compiled again (compilation 2): "), reasons.get(0));
        assertTrue(reasons.get(1).endsWith("value 1.0 → 2.0"), reasons.get(1));
        assertTrue(reasons.get(2).endsWith("shape [2,4] → [6,4]"), reasons.get(2));
    }

    @Test
    void weightsUpdatedInPlaceNeedNoRetrace() {
        var model = Jit.instance(Layer.class, Tensor.ones(2, 2), Tensor.zeros(2));
        var x = Tensor.ones(1, 2);
        assertArrayEquals(new float[] {2, 2}, model.forward(x, Activation.RELU, 1.0).toFloatArray());
        Jit.compile((Tensor t) -> t.mul(3)).applyInto(model.bias, Tensor.ones(2)); // an optimizer-style update in place
        assertArrayEquals(new float[] {5, 5}, model.forward(x, Activation.RELU, 1.0).toFloatArray());
        assertEquals(1, model.traces.get());
    }

    /// A model whose update gives its field a new tensor, as hand-written SGD often does.
    static class Reassigned {
        Tensor weight = Tensor.ones(3);
        final AtomicInteger traces = new AtomicInteger();

        @Compile
        public Tensor forward(Tensor x) {
            traces.incrementAndGet();
            return x.mul(weight);
        }
    }

    /// A trace captures the tensor a field holds, so a field given another tensor makes the next
    /// call trace again, as eager code would read the new one; an untouched field traces once.
    @Test
    void aTensorFieldGivenAnotherTensorIsReadByTheNextCall() {
        var model = Jit.instance(Reassigned.class);
        var x = Tensor.of(new float[] {1, 2, 3});
        assertArrayEquals(new float[] {1, 2, 3}, model.forward(x).toFloatArray());
        assertArrayEquals(new float[] {1, 2, 3}, model.forward(x).toFloatArray());
        assertEquals(1, model.traces.get());
        model.weight = model.weight.mul(5);
        assertArrayEquals(new float[] {5, 10, 15}, model.forward(x).toFloatArray());
        model.weight = Tensor.full(2.0, 1);  // another shape: broadcast
        assertArrayEquals(new float[] {2, 4, 6}, model.forward(x).toFloatArray());
        assertArrayEquals(new float[] {2, 4, 6}, model.forward(x).toFloatArray());
        assertEquals(3, model.traces.get());
    }

    @Test
    void interfaceDefaultMethodsCompile() {
        Residual residual = Jit.instance(Residual.class);
        Residual plain = new Residual() {};
        var x = Tensor.randn(RANDOM, 37);
        assertArrayEquals(plain.block(x, 3).toFloatArray(), residual.block(x, 3).toFloatArray(), 1e-5f);
        assertTrue(Jit.methods(residual).get("block").explain().contains("kernels: 1"), Jit.methods(residual).get("block").explain());
    }

    @Test
    void manyThreadsCallingAtOnceTraceOnceAndAgree() throws Exception {
        var model = Jit.instance(Layer.class, new Generator(3), 33, 17);
        var x = Tensor.randn(RANDOM, 9, 33);
        var expected = new Layer(model.weight, model.bias).forward(x, Activation.RELU, 0.25).toFloatArray();
        var start = new CountDownLatch(1);
        var pool = Executors.newFixedThreadPool(8);
        var results = new ArrayList<Future<float[]>>();
        for (int i = 0; i < 32; i++) results.add(pool.submit(() -> {
            start.await();
            return model.forward(x, Activation.RELU, 0.25).toFloatArray();
        }));
        start.countDown();
        for (var result : results) assertArrayEquals(expected, result.get(), 1e-5f);
        pool.shutdown();
        assertEquals(1, model.traces.get());
    }

    /// Every kind of parameter, wide ones (long, double) between others, so slots and boxing show.
    static class Mixed {
        @Compile
        public Tensor forward(Tensor x, long shift, float scale, String mode, double offset, Tensor y, boolean negate) {
            Tensor z = x.mul(scale).add(shift).add(y).add(offset);
            z = mode.equals("square") ? z.square() : z;
            return negate ? z.neg() : z;
        }
    }

    @Test
    void everyParameterKindReachesTheTraceAndTheSignature() {
        var mixed = Jit.instance(MethodHandles.lookup(), Mixed.class);
        var plain = new Mixed();
        var x = Tensor.randn(RANDOM, 5, 3);
        var y = Tensor.randn(RANDOM, 3);
        for (String mode : List.of("square", "plain"))
            for (boolean negate : new boolean[] {false, true})
                assertArrayEquals(plain.forward(x, 3L, 0.5f, mode, -1.25, y, negate).toFloatArray(), mixed.forward(x, 3L, 0.5f, mode, -1.25, y, negate).toFloatArray(), 1e-5f);
        mixed.forward(x, 4L, 0.5f, "plain", -1.25, y, true);
        var last = Jit.methods(mixed).get("forward").recompiles().getLast();
        assertEquals(List.of(new dev.smelt.Signature.Change(1, "argument 1", "value", "3", "4")), last.changes());
        assertEquals(5, Jit.methods(mixed).get("forward").compiledSignatures());
    }

    @Test
    void aLookupWithoutFullPrivilegeIsRefused() {
        rejects("Jit.instance", () -> Jit.instance(MethodHandles.publicLookup(), Mixed.class), "full privilege");
    }

    static class Branchy {
        @Compile
        public Tensor forward(Tensor x) { return x.sum().item() > 0 ? x : x.neg(); }
    }

    static class ReturnsNull {
        @Compile
        public Tensor forward(Tensor x) { return null; }
    }

    static class ListParameter {
        @Compile
        public Tensor forward(List<Tensor> xs) { return xs.getFirst(); }
    }

    static class ReturnsFloat {
        @Compile
        public float forward(Tensor x) { return 0; }
    }

    static class FinalMethod {
        @Compile
        public final Tensor forward(Tensor x) { return x; }
    }

    static class NoMethods {
        public Tensor forward(Tensor x) { return x; }
    }

    static final class FinalClass {
        @Compile
        public Tensor forward(Tensor x) { return x; }
    }

    interface Abstract {
        @Compile
        Tensor forward(Tensor x);
    }

    private static void rejects(String op, Executable call, String... fragments) {
        var error = assertThrows(SmeltException.class, call);
        assertEquals(op, error.op(), error.getMessage());
        for (String fragment : fragments) assertTrue(error.getMessage().contains(fragment), () -> "missing '" + fragment + "' in: " + error.getMessage());
    }

    @Test
    void badMethodsAreRefusedNamingTheMethodAndTheReason() {
        var branchy = Jit.instance(Branchy.class);
        rejects("Branchy.forward(Tensor)", () -> branchy.forward(Tensor.ones(3)), "item: cannot read the values of a traced tensor", "Tensor.where");
        var returnsNull = Jit.instance(ReturnsNull.class);
        rejects("ReturnsNull.forward(Tensor)", () -> returnsNull.forward(Tensor.ones(3)), "returned null");
        rejects("@Compile", () -> Jit.instance(ListParameter.class), "ListParameter.forward(List)", "takes a List");
        rejects("@Compile", () -> Jit.instance(ReturnsFloat.class), "ReturnsFloat.forward(Tensor)", "returns float");
        rejects("@Compile", () -> Jit.instance(FinalMethod.class), "FinalMethod.forward(Tensor)", "is final");
        rejects("Jit.instance", () -> Jit.instance(NoMethods.class), "no method annotated @Compile");
        rejects("Jit.instance", () -> Jit.instance(FinalClass.class), "is final");
        rejects("Jit.instance", () -> Jit.instance(Abstract.class), "abstract methods", "Abstract.forward(Tensor)");
        rejects("Jit.instance", () -> Jit.instance(Layer.class, "wrong"), "no constructor taking [String]");
        rejects("Jit.methods", () -> Jit.methods(new Layer(new Generator(1), 1, 1)), "was not made by Jit.instance");
    }

    @Test
    void concurrentFirstCallsOfABadMethodAllGetItsError() throws Exception {
        var branchy = Jit.instance(Branchy.class);
        var start = new CountDownLatch(1);
        var pool = Executors.newFixedThreadPool(4);
        var calls = new ArrayList<Future<Throwable>>();
        for (int i = 0; i < 8; i++) calls.add(pool.submit(() -> {
            start.await();
            try {
                branchy.forward(Tensor.ones(3));
                return null;
            } catch (Throwable e) {
                return e;
            }
        }));
        start.countDown();
        for (var call : calls) {
            Throwable error = call.get();
            assertTrue(error instanceof SmeltException smelt && smelt.op().equals("Branchy.forward(Tensor)"), String.valueOf(error));
        }
        pool.shutdown();
    }

    @Test
    void aBadCallIsRefusedBeforeTracing() {
        var model = Jit.instance(Layer.class, new Generator(4), 4, 3);
        rejects("Layer.forward(Tensor, Activation, double)", () -> model.forward(null, Activation.RELU, 1), "null");
        var forward = Jit.methods(model).get("forward"); // its apply passes tensors only
        var x = Tensor.ones(2, 4);
        rejects("apply", () -> forward.apply(x), "Layer.forward(Tensor, Activation, double) has 3 parameters, got 1 arguments");
        rejects("Layer.forward(Tensor, Activation, double)", () -> forward.apply(x, x, x), "argument 1 is a Tensor, but that parameter is Activation");
    }
}
