// SPDX-License-Identifier: Apache-2.0
package dev.smelt;

import dev.smelt.runtime.LruMap;
import dev.smelt.runtime.OnceMap;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/// A compiled function's programs by [Signature] (a [OnceMap]: bounded, each signature compiled
/// once however many threads ask at once), recording why each compilation after the first happened
/// ([Recompile]); past the recompile limit it warns once. Logs to the `System.Logger` named
/// `dev.smelt.Compiled`.
final class SignatureCache<V> {
    private static final int HISTORY = 256;

    /// The logger, initialised at the first recompile: `System.getLogger` starts `java.util.logging`,
    /// 10 ms of a fresh JVM's first call (ColdStart).
    private static final class Log {
        static final System.Logger LOGGER = System.getLogger("dev.smelt.Compiled");
    }

    private final String function;
    private final int recompileLimit;
    private final OnceMap<Signature, V> entries;
    private final Map<Signature, Boolean> seen = new LruMap<>(HISTORY);
    private final Deque<Recompile> recompiles = new ArrayDeque<>();
    private int started, compilations;

    SignatureCache(String function, int recompileLimit, int capacity) {
        this.function = function;
        this.recompileLimit = recompileLimit;
        this.entries = new OnceMap<>(capacity);
    }

    /// The value for `signature`, made by `compile` if it is not cached (see [OnceMap#get]).
    V get(Signature signature, Supplier<V> compile) {
        return entries.get(signature, () -> {
            Recompile recompile = reason(signature);
            V value;
            try {
                value = compile.get();
            } catch (Throwable e) {
                synchronized (this) {
                    started--;
                }
                throw e;
            }
            record(signature, recompile);
            return value;
        });
    }

    /// The value cached for `signature`, or null; compiles nothing.
    V cached(Signature signature) { return entries.cached(signature); }

    List<Signature> signatures() { return entries.keys(); }

    int size() { return entries.size(); }

    synchronized int compilations() { return compilations; }

    synchronized List<Recompile> recompiles() { return List.copyOf(recompiles); }

    /// Why `signature` needs compiling, against the closest signature compiled (or compiling)
    /// before, numbered in the order compilations start; none for the first compilation.
    private synchronized Recompile reason(Signature signature) {
        if (started++ == 0) return null;
        var closest = entries.keys().stream().filter(s -> !s.equals(signature)) // least recently used first: ties go to the latest
                .reduce((a, b) -> signature.changesFrom(b).size() <= signature.changesFrom(a).size() ? b : a);
        if (seen.containsKey(signature) || closest.isEmpty()) return new Recompile(function, started, signature, List.of(), true);
        return new Recompile(function, started, signature, signature.changesFrom(closest.get()), false);
    }
    /// Counts a successful compilation and logs its reason; once recompiles exceed the limit, warns.
    private void record(Signature signature, Recompile recompile) {
        synchronized (this) {
            seen.put(signature, true);
            compilations++;
            if (recompile == null) return;
            if (recompiles.size() == HISTORY) recompiles.removeFirst();
            recompiles.addLast(recompile);
        }
        Log.LOGGER.log(System.Logger.Level.DEBUG, recompile::toString);
        int recompiled = recompile.compilation() - 1;
        if (recompiled == recompileLimit + 1)
            Log.LOGGER.log(System.Logger.Level.WARNING, () -> ("%s has recompiled %d times, more than its recompile limit of %d: each new signature "
                    + "traces and generates kernels again. Latest: %s. Pass inputs of a few fixed shapes (pad the batch), or raise the limit "
                    + "with withRecompileLimit, @Compile(recompileLimit = ...) or -Dsmelt.recompileLimit. Compiled.recompiles() lists every reason.")
                    .formatted(function, recompiled, recompileLimit, recompile));
    }
}
