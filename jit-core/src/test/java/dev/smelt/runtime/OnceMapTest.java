// SPDX-License-Identifier: Apache-2.0
package dev.smelt.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.smelt.ir.SmeltException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/// The compile-once cache every compiled program goes through (signatures, dynamic sizes, eager ops,
/// autograd's splits): one maker per key however many threads ask, errors shared, then retried.
class OnceMapTest {
    @Test
    void threadsAskingForOneKeyAtOnceShareOneMaking() throws Exception {
        var map = new OnceMap<String, Object>(8);
        var made = new AtomicInteger();
        var release = new CountDownLatch(1);
        ExecutorService pool = Executors.newFixedThreadPool(6);
        try {
            var results = new ArrayList<Future<Object>>();
            for (int i = 0; i < 6; i++)
                results.add(pool.submit(() -> map.get("k", () -> {
                    made.incrementAndGet();
                    await(release);
                    return new Object();
                })));
            Thread.sleep(50);
            assertNull(map.cached("k"), "nothing is cached while it is being made");
            release.countDown();
            Object first = results.getFirst().get(10, TimeUnit.SECONDS);
            for (var result : results) assertSame(first, result.get(10, TimeUnit.SECONDS));
            assertEquals(1, made.get());
            assertSame(first, map.cached("k"));
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void aFailedMakingReachesEveryWaiterAndTheNextCallTriesAgain() throws Exception {
        var map = new OnceMap<String, String>(8);
        var entered = new CountDownLatch(1);
        var release = new CountDownLatch(1);
        var failure = new IllegalStateException("bad graph");
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try {
            Future<String> maker = pool.submit(() -> map.get("k", () -> {
                entered.countDown();
                await(release);
                throw failure;
            }));
            await(entered);
            Future<String> waiter = pool.submit(() -> map.get("k", () -> "never made: the first maker is at work"));
            Thread.sleep(50);
            release.countDown();
            for (Future<String> call : List.of(maker, waiter)) {
                var thrown = assertThrows(java.util.concurrent.ExecutionException.class, () -> call.get(10, TimeUnit.SECONDS));
                assertSame(failure, thrown.getCause(), "the maker's own exception, not a CompletionException");
            }
            assertEquals("second try", map.get("k", () -> "second try"));
        } finally {
            pool.shutdownNow();
        }
    }

    /// A maker that asks for its own key would wait for itself: refused, and the key is made by
    /// the next call as if the failed making had not happened.
    @Test
    void aMakerAskingForItsOwnKeyIsRefusedInsteadOfWaitingForItself() {
        var map = new OnceMap<String, String>(8);
        var error = assertTimeoutPreemptively(java.time.Duration.ofSeconds(10),
                () -> assertThrows(SmeltException.class, () -> map.get("k", () -> map.get("k", () -> "inner"))));
        assertTrue(error.getMessage().startsWith("compile: k is needed while this thread, or one waiting for it, is making it"), error.getMessage());
        assertEquals("made", map.get("k", () -> "made"));
        assertEquals("other", map.get("k2", () -> map.get("k3", () -> "other")), "another key is made inside");
    }

    /// Two makers each asking for the other's key would wait for each other forever: the one that
    /// closes the cycle is refused, and its failure reaches the other.
    @Test
    void makersWaitingForEachOtherAreRefusedInsteadOfDeadlocking() throws Exception {
        var map = new OnceMap<String, String>(8);
        var bothMaking = new CountDownLatch(2);
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try {
            Future<String> a = pool.submit(() -> map.get("a", () -> {
                bothMaking.countDown();
                await(bothMaking);
                return map.get("b", () -> "b from a");
            }));
            Future<String> b = pool.submit(() -> map.get("b", () -> {
                bothMaking.countDown();
                await(bothMaking);
                return map.get("a", () -> "a from b");
            }));
            for (Future<String> call : List.of(a, b)) {
                var thrown = assertThrows(java.util.concurrent.ExecutionException.class, () -> call.get(10, TimeUnit.SECONDS));
                assertTrue(thrown.getCause() instanceof SmeltException, thrown.toString());
            }
        } finally {
            pool.shutdownNow();
        }
    }

    /// A checked exception (a Kotlin lambda throws one without declaring it) fails the making as
    /// an unchecked one does; left in the map, its future never completed and every later caller
    /// waited for good.
    @Test
    void aCheckedExceptionFailsTheMakingAndTheNextCallTriesAgain() {
        var map = new OnceMap<String, String>(8);
        var failure = new java.io.IOException("disk full");
        assertSame(failure, assertThrows(java.io.IOException.class, () -> map.get("k", () -> sneakyThrow(failure))));
        assertEquals("second try", assertTimeoutPreemptively(java.time.Duration.ofSeconds(10), () -> map.get("k", () -> "second try")));
    }

    // Throws `e`, checked or not, as code in languages without checked exceptions does.
    @SuppressWarnings("unchecked")
    private static <E extends Throwable> String sneakyThrow(Throwable e) throws E { throw (E) e; }

    @Test
    void theLeastRecentlyUsedKeyIsDroppedPastTheCapacity() {
        var map = new OnceMap<Integer, Integer>(2);
        map.get(1, () -> 10);
        map.put(2, 20);
        map.get(1, () -> -1);  // 1 is now the most recently used
        map.get(3, () -> 30);
        assertEquals(List.of(1, 3), map.keys());
        assertNull(map.cached(2));
        assertEquals(10, map.cached(1));
        assertEquals(2, map.size());
    }

    private static void await(CountDownLatch latch) {
        try {
            if (!latch.await(10, TimeUnit.SECONDS)) throw new AssertionError("timed out");
        } catch (InterruptedException e) {
            throw new AssertionError(e);
        }
    }
}
