// SPDX-License-Identifier: Apache-2.0
package dev.smelt.runtime;

import dev.smelt.kernel.KernelForm;
import dev.smelt.kernel.KernelFunction;
import java.util.Map;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Function;
import java.util.function.Supplier;

/// Compiled kernels by their printed text, which names everything that shapes the code (sizes,
/// strides, dtypes, expressions): eager ops and compiled functions that need the same kernel share
/// one class. Bounded, least recently used first out; an evicted kernel's hidden classes unload
/// once no program holds them. The only global state of the runtime.
public final class KernelCache {
    /// How many kernels stay cached; each is one or two small hidden classes.
    public static final int CAPACITY = Integer.getInteger("smelt.kernelCache", 2048);

    private static final Map<String, KernelFunction> KERNELS = new LruMap<>(CAPACITY);
    private static final LongAdder COMPILED = new LongAdder();

    private KernelCache() {}

    /// The cached function for `kernel`, compiled by `compile` on first use.
    public static <K extends KernelForm> KernelFunction get(K kernel, Function<K, KernelFunction> compile) {
        return get(kernel.toString(), () -> compile.apply(kernel));
    }

    /// The cached function under `key` (a kernel's text, or that text and how it is run), made by
    /// `compile` on first use.
    public static KernelFunction get(String key, Supplier<KernelFunction> compile) {
        synchronized (KERNELS) {
            KernelFunction known = KERNELS.get(key);
            if (known != null) return known;
        }
        KernelFunction compiled = compile.get();
        COMPILED.increment();
        synchronized (KERNELS) {
            KernelFunction raced = KERNELS.putIfAbsent(key, compiled);
            return raced != null ? raced : compiled;
        }
    }

    /// How many functions were made since the JVM started (cache misses): each is one or two new
    /// classes for a loop kernel, a new epilogue class at most for a matmul. Tests read it to show
    /// that a call compiled nothing.
    public static long compiled() { return COMPILED.sum(); }

    public static int size() {
        synchronized (KERNELS) { return KERNELS.size(); }
    }
}
