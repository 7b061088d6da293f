// SPDX-License-Identifier: Apache-2.0
package dev.smelt.usage;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.smelt.Compiled;
import dev.smelt.Jit;
import dev.smelt.Recompile;
import dev.smelt.Signature;
import dev.smelt.Tensor;
import dev.smelt.ir.DType;
import java.util.ArrayList;
import java.util.List;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.Test;

/// The signature cache says why it compiled again, as data and in the log, and warns once past
/// the recompile limit.
class RecompileTest {
    private static Compiled exp() { return Jit.compile((Tensor x) -> x.exp()); }

    @Test
    void sameSignatureDoesNotRecompile() {
        var compiled = exp();
        compiled.apply(Tensor.ones(3, 4));
        compiled.apply(Tensor.zeros(3, 4));
        assertEquals(List.of(), compiled.recompiles());
    }

    @Test
    void eachRecompileNamesTheArgumentAndThePartThatChanged() {
        var compiled = Jit.compile((Tensor x, Tensor y) -> x.add(y));
        compiled.apply(Tensor.ones(3, 4), Tensor.ones(4));
        compiled.apply(Tensor.ones(5, 4), Tensor.ones(4));
        compiled.apply(Tensor.ones(DType.F64, 5, 4), Tensor.ones(DType.F64, 4));
        compiled.apply(Tensor.ones(3, 4), Tensor.ones(4)); // cached: no recompile
        List<Recompile> recompiles = compiled.recompiles();
        assertEquals(2, recompiles.size());
        assertEquals(List.of(new Signature.Change(0, "argument 0", "shape", "[3,4]", "[5,4]")), recompiles.get(0).changes());
        assertEquals(List.of(new Signature.Change(0, "argument 0", "dtype", "f32", "f64"), new Signature.Change(1, "argument 1", "dtype", "f32", "f64")),
                recompiles.get(1).changes());
        assertEquals("compiled function compiled again (compilation 2): argument 0: shape [3,4] → [5,4]", recompiles.get(0).toString());
        assertFalse(recompiles.get(0).evicted());
    }

    @Test
    void aSignatureEvictedFromTheCacheSaysSo() {
        var compiled = exp();
        for (int n = 1; n <= Compiled.CAPACITY + 1; n++) compiled.apply(Tensor.ones(n));
        compiled.apply(Tensor.ones(1));
        Recompile last = compiled.recompiles().getLast();
        assertTrue(last.evicted(), last.toString());
        assertTrue(last.toString().contains("was evicted from the cache (capacity 64)"), last.toString());
        assertEquals(Compiled.CAPACITY, compiled.compiledSignatures());
    }

    @Test
    void recompilesAreLoggedAndPastTheLimitOneWarning() {
        var records = new ArrayList<LogRecord>();
        Handler handler = new Handler() {
            @Override public void publish(LogRecord record) { synchronized (records) { records.add(record); } }
            @Override public void flush() {}
            @Override public void close() {}
        };
        Logger logger = Logger.getLogger(Compiled.class.getName());
        Level before = logger.getLevel();
        logger.setLevel(Level.ALL);
        logger.addHandler(handler);
        try {
            var compiled = exp().withRecompileLimit(2);
            assertEquals(2, compiled.recompileLimit());
            for (int n = 1; n <= 6; n++) compiled.apply(Tensor.ones(n));
            var debug = records.stream().filter(r -> r.getLevel() == Level.FINE).map(LogRecord::getMessage).toList();
            var warnings = records.stream().filter(r -> r.getLevel() == Level.WARNING).map(LogRecord::getMessage).toList();
            assertEquals(5, debug.size(), debug.toString());
            assertEquals("compiled function compiled again (compilation 6): argument 0: shape [5] → [6]", debug.getLast());
            assertEquals(1, warnings.size(), warnings.toString());
            assertTrue(warnings.getFirst().startsWith("compiled function has recompiled 3 times, more than its recompile limit of 2"), warnings.getFirst());
            assertTrue(warnings.getFirst().contains("shape [3] → [4]"), warnings.getFirst());
        } finally {
            logger.removeHandler(handler);
            logger.setLevel(before);
        }
    }

    @Test
    void manyThreadsOverFewSignaturesCompileEachOnce() throws Exception {
        var traces = new java.util.concurrent.atomic.AtomicInteger();
        var compiled = Jit.compile((Tensor x) -> {
            traces.incrementAndGet();
            return x.tanh().sum(-1);
        });
        var start = new java.util.concurrent.CountDownLatch(1);
        var pool = java.util.concurrent.Executors.newFixedThreadPool(8);
        var calls = new ArrayList<java.util.concurrent.Future<float[]>>();
        for (int i = 0; i < 64; i++) {
            int rows = 1 + i % 4;
            calls.add(pool.submit(() -> {
                start.await();
                return compiled.apply(Tensor.ones(rows, 5)).toFloatArray();
            }));
        }
        start.countDown();
        for (int i = 0; i < calls.size(); i++) assertEquals(1 + i % 4, calls.get(i).get().length);
        pool.shutdown();
        assertEquals(4, traces.get());
        assertEquals(3, compiled.recompiles().size());
        assertTrue(compiled.recompiles().stream().allMatch(r -> r.changes().size() == 1 && r.changes().getFirst().part().equals("shape")), compiled.recompiles().toString());
    }

    @Test
    void theDefaultLimitComesFromTheSystemProperty() {
        assertEquals(Integer.getInteger("smelt.recompileLimit", 8), Compiled.DEFAULT_RECOMPILE_LIMIT);
        assertEquals(Compiled.DEFAULT_RECOMPILE_LIMIT, exp().recompileLimit());
    }
}
