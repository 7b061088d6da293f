// SPDX-License-Identifier: Apache-2.0
package dev.smelt;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.smelt.ir.DType;
import dev.smelt.ir.SmeltException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/// `Jit.compile`: results equal the traced graph's interpretation, one compile per signature,
/// concurrent first calls compile once, and `explain()` shows the fused kernels.
class CompiledTest {
    private static final Jit.Function2 CHAIN = (x, y) -> x.sin().mul(y.cos()).add(x).mul(y).relu();

    @Test
    void compiledChainMatchesTheInterpreter() {
        var x = Tensor.randn(new Generator(1), 1027);
        var y = Tensor.randn(new Generator(2), 1027);
        var compiled = Jit.compile(CHAIN);
        var expected = Jit.trace(CHAIN, x, y).interpret(x, y).getFirst();
        assertArrayEquals(expected.toFloatArray(), compiled.apply(x, y).toFloatArray(), 1e-6f);
    }

    @Test
    void eachSignatureCompilesOnce() {
        var traces = new AtomicInteger();
        var compiled = Jit.compile((Tensor x) -> {
            traces.incrementAndGet();
            return x.exp().sum(-1);
        });
        compiled.apply(Tensor.ones(4, 5));
        compiled.apply(Tensor.zeros(4, 5));
        assertEquals(1, traces.get());
        compiled.apply(Tensor.ones(3, 5));
        compiled.apply(Tensor.ones(DType.F64, 4, 5));
        assertEquals(3, traces.get());
        assertEquals(3, compiled.compiledSignatures());
    }

    /// The latest signature is reused without the cache, but only for arguments of the same dtypes
    /// and shapes: a change in either argument, the dtype, or back to an older signature picks the
    /// right program, and a bad call still fails at the boundary.
    @Test
    void repeatedSignaturesReuseTheLatestProgramAndOthersStillSelectTheirOwn() {
        var traces = new AtomicInteger();
        var compiled = Jit.compile((Tensor a, Tensor b) -> {
            traces.incrementAndGet();
            return a.matmul(b);
        });
        var generator = new Generator(4);
        Tensor a = Tensor.randn(generator, 2, 3), b = Tensor.randn(generator, 3, 4), wide = Tensor.randn(generator, 3, 5);
        for (var call : List.of(List.of(a, b), List.of(a, b), List.of(a, wide), List.of(a, b), List.of(a.t().t(), wide),
                List.of(a.to(DType.F64), b.to(DType.F64)))) {
            var expected = call.get(0).matmul(call.get(1));
            var actual = compiled.apply(call.get(0), call.get(1));
            assertEquals(expected.shape(), actual.shape());
            assertEquals(expected.dtype(), actual.dtype());
            assertArrayEquals(expected.toDoubleArray(), actual.toDoubleArray(), 1e-6);
        }
        assertEquals(3, traces.get());
        assertEquals(3, compiled.compiledSignatures());
        assertThrows(SmeltException.class, () -> compiled.apply(a, null));
        assertThrows(SmeltException.class, () -> compiled.apply(a));
    }

    @Test
    void concurrentFirstCallsCompileOnceAndAgree() throws Exception {
        var traces = new AtomicInteger();
        var compiled = Jit.compile((Tensor x) -> {
            traces.incrementAndGet();
            return x.softmax(-1);
        });
        var x = Tensor.randn(new Generator(3), 16, 33);
        var start = new CountDownLatch(1);
        var pool = Executors.newFixedThreadPool(8);
        var results = new ArrayList<Future<float[]>>();
        for (int i = 0; i < 8; i++) results.add(pool.submit(() -> {
            start.await();
            return compiled.apply(x).toFloatArray();
        }));
        start.countDown();
        float[] first = results.getFirst().get();
        for (var result : results) assertArrayEquals(first, result.get());
        pool.shutdown();
        assertEquals(1, traces.get());
    }

    /// A trace that calls its own function with the same signature never ends (eagerly, a stack
    /// overflow): refused, where it waited for itself forever; the function compiles afterwards.
    @Test
    void aTraceCallingItsOwnFunctionWithTheSameSignatureIsRefused() {
        var x = Tensor.ones(2, 2);
        var recursing = new boolean[] {true};
        var compiled = new Compiled[1];
        compiled[0] = Jit.compile((Tensor y) -> recursing[0] ? y.add(compiled[0].apply(x)) : y.mul(3));
        var error = assertTimeoutPreemptively(java.time.Duration.ofSeconds(20), () -> assertThrows(SmeltException.class, () -> compiled[0].apply(x)));
        assertTrue(error.getMessage().startsWith("compile: [argument 0: f32[2,2]] is needed while this thread, or one waiting for it, is making it: the function calls itself"), error.getMessage());
        recursing[0] = false;
        assertArrayEquals(new float[] {3, 3, 3, 3}, compiled[0].apply(x).toFloatArray());
    }

    /// A traced function that throws a checked exception (as Kotlin's and Scala's may) fails that
    /// call only: the signature compiles at the next call, where it hung for good.
    @Test
    void aCheckedExceptionWhileTracingFailsOnlyThatCall() {
        var x = Tensor.ones(3);
        var failing = new boolean[] {true};
        var compiled = Jit.compile((Tensor y) -> {
            if (failing[0]) throw CompiledTest.<RuntimeException>sneaky(new java.io.IOException("disk full"));
            return y.add(1);
        });
        assertThrows(java.io.IOException.class, () -> compiled.apply(x));
        failing[0] = false;
        var result = assertTimeoutPreemptively(java.time.Duration.ofSeconds(20), () -> compiled.apply(x));
        assertArrayEquals(new float[] {2, 2, 2}, result.toFloatArray());
        assertEquals(List.of(), compiled.recompiles());
    }

    // Throws `e`, checked or not, as code in languages without checked exceptions does.
    @SuppressWarnings("unchecked")
    private static <E extends Throwable> E sneaky(Throwable e) throws E { throw (E) e; }

    @Test
    void explainShowsOneFusedKernelAndTheBytesSaved() {
        var compiled = Jit.compile(CHAIN);
        var x = Tensor.ones(4096);
        compiled.apply(x, x);
        String text = compiled.explain();
        assertTrue(text.contains("kernels: 1 (unfused: 6)"), text);
        assertTrue(text.contains("loop fusion (elementwise); fuses"), text);
        assertTrue(text.contains("reads 32,768 B, writes 16,384 B"), text);
        assertTrue(text.contains("bytes moved: 49,152 fused vs"), text);
        int threads = Integer.getInteger("smelt.threads", Runtime.getRuntime().availableProcessors());
        assertTrue(text.contains("\nthreads: " + threads + " (-Dsmelt.threads"), text);
    }

    @Test
    void severalResultsComeFromOneKernel() {
        var compiled = Jit.compile(args -> List.of(args.get(0).sin(), args.get(0).cos()), 1);
        var x = Tensor.of(new float[] {0, 1, 2});
        var results = compiled.applyAll(x);
        assertArrayEquals(x.sin().toFloatArray(), results.get(0).toFloatArray());
        assertArrayEquals(x.cos().toFloatArray(), results.get(1).toFloatArray());
        assertTrue(compiled.explain().contains("kernels: 1"), compiled.explain());
    }

    @Test
    void wrongArgumentCountIsRejected() {
        var compiled = Jit.compile(CHAIN);
        var error = assertThrows(SmeltException.class, () -> compiled.apply(Tensor.ones(2)));
        assertTrue(error.getMessage().startsWith("apply: compiled function has 2 parameters, got 1 arguments"), error.getMessage());
    }

    @Test
    void applyIntoWritesTheCallersTensor() {
        var compiled = Jit.compile(CHAIN);
        var x = Tensor.randn(new Generator(4), 3, 5);
        var out = Tensor.zeros(3, 5);
        Tensor returned = compiled.applyInto(out, x, x);
        assertTrue(returned == out);
        assertArrayEquals(compiled.apply(x, x).toFloatArray(), out.toFloatArray());
    }

    @Test
    void applyIntoCopiesResultsThatAreArgumentsOrRepeated() {
        var compiled = Jit.compile(args -> List.of(args.get(0), args.get(0).neg(), args.get(0).neg()), 1);
        var x = Tensor.of(new float[] {1, -2});
        var outs = List.of(Tensor.zeros(2), Tensor.zeros(2), Tensor.zeros(2));
        compiled.applyInto(outs, x);
        assertArrayEquals(new float[] {1, -2}, outs.get(0).toFloatArray());
        assertArrayEquals(new float[] {-1, 2}, outs.get(1).toFloatArray());
        assertArrayEquals(new float[] {-1, 2}, outs.get(2).toFloatArray());
    }

    @Test
    void applyIntoRefusesWrongShapesViewsAndAliases() {
        var compiled = Jit.compile((Tensor x) -> x.exp());
        var x = Tensor.ones(2, 3);
        assertThrows(SmeltException.class, () -> compiled.applyInto(Tensor.zeros(3, 2), x));
        assertThrows(SmeltException.class, () -> compiled.applyInto(Tensor.zeros(DType.F64, 2, 3), x));
        assertThrows(SmeltException.class, () -> compiled.applyInto(Tensor.zeros(3, 2).t(), x));
        // A block of rows is contiguous already, so contiguous() would return the same view.
        var rows = assertThrows(SmeltException.class, () -> compiled.applyInto(Tensor.zeros(4, 3).slice(0, 1, 3), x));
        assertTrue(rows.getMessage().contains("not a view (f32[2,3]); pass a new tensor, then copy it into the view with copyFrom"), rows.getMessage());
        var alias = assertThrows(SmeltException.class, () -> compiled.applyInto(x, x));
        assertTrue(alias.getMessage().contains("shares memory"), alias.getMessage());
    }

    /// A chain far longer than one kernel may hold (HotSpot will not JIT-compile a method over
    /// 8000 bytes) is cut into several kernels, and still computes the same values.
    @Test
    void aVeryLongChainIsSplitIntoSeveralKernels() {
        Jit.Function1 longChain = x -> {
            Tensor y = x;
            for (int i = 0; i < 400; i++) y = i % 2 == 0 ? y.mul(0.999).add(x) : y.sin();
            return y;
        };
        var x = Tensor.randn(new Generator(5), 257);
        var compiled = Jit.compile(longChain);
        var expected = Jit.trace(longChain, x).interpret(x).getFirst();
        assertArrayEquals(expected.toFloatArray(), compiled.apply(x).toFloatArray(), 1e-4f);
        String explanation = compiled.explain();
        int kernels = Integer.parseInt(explanation.replaceAll("(?s).*kernels: (\\d+).*", "$1"));
        assertTrue(kernels > 1, explanation);
    }
}
