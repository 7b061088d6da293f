// SPDX-License-Identifier: Apache-2.0
package dev.smelt;

import dev.smelt.runtime.LruMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;

/// The programs of one [Signature] with dynamic dimensions, one per concrete size of them:
/// bounded (least recently used dropped beyond [#CAPACITY]), each size traced and planned once
/// however many threads ask at once. None of this is a recompile; the kernels come from the
/// kernel cache, where the sizes share them.
final class SizeCache<V> {
    /// Sizes kept per dynamic signature.
    static final int CAPACITY = 32;

    private final Map<Signature, CompletableFuture<V>> entries = new LruMap<>(CAPACITY);

    /// A cache holding `first`, compiled for `concrete`.
    SizeCache(Signature concrete, V first) {
        entries.put(concrete, CompletableFuture.completedFuture(first));
    }

    /// The value for the full `concrete` signature, made by `compile` if it is not cached; a failed
    /// compile reaches every waiting caller, and the next call tries again.
    V get(Signature concrete, Supplier<V> compile) {
        CompletableFuture<V> future;
        synchronized (this) {
            future = entries.get(concrete);
        }
        if (future != null) return SignatureCache.await(future); // the common case allocates nothing
        var mine = new CompletableFuture<V>();
        synchronized (this) {
            future = entries.putIfAbsent(concrete, mine);
        }
        if (future != null) return SignatureCache.await(future);
        try {
            mine.complete(compile.get());
        } catch (RuntimeException | Error e) {
            synchronized (this) {
                entries.remove(concrete);
            }
            mine.completeExceptionally(e);
            throw e;
        }
        return mine.join();
    }

    synchronized int size() { return entries.size(); }
}
