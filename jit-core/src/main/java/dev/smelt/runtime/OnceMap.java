// SPDX-License-Identifier: Apache-2.0
package dev.smelt.runtime;

import dev.smelt.ir.SmeltException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.Supplier;

/// A bounded cache (least recently used dropped) whose value for a key is made once however many
/// threads ask at once: the first caller makes it while the others wait for it; if making it fails,
/// each waiting caller gets that error and the next call tries again. The cache of compiled
/// programs: a function's signatures, the sizes of a dynamic signature, eager ops.
public final class OnceMap<K, V> {
    private final Map<K, CompletableFuture<V>> entries;

    public OnceMap(int capacity) { this.entries = new LruMap<>(capacity); }

    /// The value for `key`, made by `make` if it is neither cached nor being made. Refused when
    /// waiting for it would never end (see [#await]).
    public V get(K key, Supplier<V> make) {
        CompletableFuture<V> future;
        synchronized (this) {
            future = entries.get(key);
        }
        if (future != null) return await(key, future); // the common case allocates nothing
        var mine = new Making<V>();
        synchronized (this) {
            future = entries.putIfAbsent(key, mine);
        }
        if (future != null) return await(key, future);
        try {
            mine.complete(make.get());
        } catch (Throwable e) { // checked ones too (a Kotlin lambda's, a sneaky throw): left in the map, the key's future never completes
            synchronized (this) {
                entries.remove(key, mine);
            }
            mine.completeExceptionally(e);
            throw e;
        }
        return mine.join();
    }

    /// A value being made, and by which thread (its id: a cached value keeps no thread alive).
    private static final class Making<V> extends CompletableFuture<V> {
        final long maker = Thread.currentThread().threadId();
    }

    /// Caches `value` for `key`, made elsewhere.
    public synchronized void put(K key, V value) { entries.put(key, CompletableFuture.completedFuture(value)); }

    /// The value made for `key`, or null when there is none (yet); makes nothing.
    public synchronized V cached(K key) {
        var future = entries.get(key);
        return future == null || !future.isDone() || future.isCompletedExceptionally() ? null : future.join();
    }

    /// The keys cached or being made, least recently used first.
    public synchronized List<K> keys() { return List.copyOf(entries.keySet()); }

    public synchronized int size() { return entries.size(); }

    /// Per waiting thread (by id), the unfinished making it waits for.
    private static final Map<Long, Making<?>> WAITING = new HashMap<>();

    /// `future`'s value. Refused when waiting would never end: the chain of makers, each waiting
    /// for the next making, leads back to this thread (a trace that calls its own function, or
    /// two functions whose traces call each other on two threads, with the same arguments).
    private static <V> V await(Object key, CompletableFuture<V> future) {
        if (!(future instanceof Making<V> making) || making.isDone()) return join(future);
        long me = Thread.currentThread().threadId();
        synchronized (WAITING) { // whichever thread closes a cycle sees every other wait in it
            int steps = 0;
            for (Making<?> wanted = making; wanted != null && !wanted.isDone() && steps++ <= WAITING.size(); wanted = WAITING.get(wanted.maker))
                if (wanted.maker == me)
                    throw SmeltException.of("compile", "%s is needed while this thread, or one waiting for it, is making it: the function calls itself with "
                            + "these arguments while it is traced, directly or through another compiled function, a recursion that never ends", key);
            WAITING.put(me, making);
        }
        try {
            return join(future);
        } finally {
            synchronized (WAITING) {
                WAITING.remove(me);
            }
        }
    }

    // The making thread's own exception, not a CompletionException around it.
    private static <V> V join(CompletableFuture<V> future) {
        try {
            return future.join();
        } catch (CompletionException e) {
            if (e.getCause() instanceof RuntimeException cause) throw cause;
            if (e.getCause() instanceof Error cause) throw cause;
            throw e;
        }
    }
}
