// SPDX-License-Identifier: Apache-2.0
package dev.smelt;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.smelt.ir.Graph;
import dev.smelt.ir.Storage;
import dev.smelt.ref.Interpreter;
import dev.smelt.testing.GraphTolerance;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/// Compiling is linear in the program whatever it shares, and its stack depth is bounded: values
/// read twice at every level (`y·sigmoid(y)`), long chains, and the kernels' text (the cache key).
/// The timeouts only catch a return of exponential work (40 levels of `y·sigmoid(y)` would take
/// years); compile speed itself is measured by `CompileScaleBench`.
class CompileScalingTest {
    private static final Tensor X = Tensor.randn(new Generator(21), 1031);

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void valuesReadTwiceAtEveryLevelCompileAndMatchTheInterpreter() {
        Jit.Function1 function = y -> {
            for (int i = 0; i < 40; i++) y = y.mul(y.sigmoid());
            return y;
        };
        matchesTheInterpreter(function, X.mul(0.01));
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void stackedHandWrittenGeluCompilesAndMatchesTheInterpreter() {
        Jit.Function1 function = x -> {
            for (int i = 0; i < 16; i++) {
                Tensor inner = x.add(x.mul(x).mul(x).mul(0.044715)).mul(0.7978845608);
                x = x.mul(0.5).mul(inner.tanh().add(1));
            }
            return x;
        };
        matchesTheInterpreter(function, X);
    }

    /// The kernel text names every shared value once: doubling the levels doubles the text.
    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void kernelTextGrowsLinearlyWithTheLevels() {
        int twenty = kernelText(20).length(), forty = kernelText(40).length();
        assertTrue(forty < 2.5 * twenty, "20 levels: %d characters, 40 levels: %d".formatted(twenty, forty));
    }

    private static String kernelText(int levels) {
        var compiled = Jit.compile((Tensor y) -> {
            for (int i = 0; i < levels; i++) y = y.mul(y.sigmoid());
            return y;
        });
        String explanation = compiled.explain(X);
        return explanation.substring(explanation.indexOf("kernel"));
    }

    /// A long chain (30,000 operations; the stress profile runs 100,000) on a thread with a quarter
    /// of the default stack: every walk over the graph is iterative, and recursion over one kernel
    /// is bounded by the kernel's size.
    @Test
    @Timeout(value = 600, unit = TimeUnit.SECONDS)
    void aLongChainCompilesOnASmallStack() throws InterruptedException {
        int length = Integer.getInteger("smelt.stress.chainOps", 30_000);
        Jit.Function1 function = y -> {
            for (int i = 0; i < length; i++) y = i % 2 == 0 ? y.mul(0.9999) : y.add(0.0001);
            return y;
        };
        var x = Tensor.randn(new Generator(22), 67);
        var failure = new AtomicReference<Throwable>();
        var thread = new Thread(null, () -> {
            try {
                matchesTheInterpreter(function, x);
            } catch (Throwable t) {
                failure.set(t);
            }
        }, "small-stack", 256 * 1024);
        thread.start();
        thread.join();
        assertNull(failure.get(), () -> "compiling on a 256 KiB stack failed: " + failure.get());
    }

    private static void matchesTheInterpreter(Jit.Function1 function, Tensor x) {
        Graph graph = Jit.trace(function, x).graph();
        List<Storage> inputs = List.of(Storage.wrapArray(x.toFloatArray()));
        var expected = Interpreter.run(graph, inputs).getFirst();
        var bounds = Interpreter.run(GraphTolerance.bounds(graph), inputs).getFirst();
        float[] actual = Jit.compile(function).apply(x).toFloatArray();
        assertEquals(expected.size(), actual.length);
        for (int i = 0; i < actual.length; i++) {
            String problem = GraphTolerance.mismatch(expected.get(i), actual[i], bounds.get(i));
            if (problem != null) fail("element %d: reference %s, compiled %s: %s".formatted(i, expected.get(i), actual[i], problem));
        }
    }
}
