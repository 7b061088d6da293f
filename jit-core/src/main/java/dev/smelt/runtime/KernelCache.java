// SPDX-License-Identifier: Apache-2.0
package dev.smelt.runtime;

import dev.smelt.kernel.KernelForm;
import dev.smelt.kernel.KernelFunction;
import java.util.Map;
import java.util.function.Function;
import java.util.function.Supplier;

/// Compiled kernels by their printed text, which names everything that shapes the code (sizes,
/// strides, dtypes, expressions): eager ops and compiled functions that need the same kernel share
/// one class. Bounded, least recently used first out; an evicted kernel's hidden classes unload
/// once no program holds them. The only global state of the runtime.
public final class KernelCache {
    /// How many kernels stay cached; each is one or two small hidden classes.
    public static final int CAPACITY = dev.smelt.ir.Settings.integer("smelt.kernelCache", 2048, 1);

    private static final Map<String, KernelFunction> KERNELS = new LruMap<>(CAPACITY);

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
        synchronized (KERNELS) {
            KernelFunction raced = KERNELS.putIfAbsent(key, compiled);
            return raced != null ? raced : compiled;
        }
    }

    public static int size() {
        synchronized (KERNELS) { return KERNELS.size(); }
    }
}
