// SPDX-License-Identifier: Apache-2.0
package dev.smelt.runtime;

import dev.smelt.kernel.KernelForm;
import dev.smelt.kernel.KernelFunction;
import java.util.Map;
import java.util.function.Function;

/// Compiled kernels by their printed text, which names everything that shapes the code (sizes,
/// strides, dtypes, expressions): eager ops and compiled functions that need the same kernel share
/// one class. Bounded, least recently used first out; an evicted kernel's hidden classes unload
/// once no program holds them. The only global state of the runtime.
public final class KernelCache {
    /// How many kernels stay cached; each is one or two small hidden classes.
    public static final int CAPACITY = Integer.getInteger("smelt.kernelCache", 2048);

    private static final Map<String, KernelFunction> KERNELS = new LruMap<>(CAPACITY);

    private KernelCache() {}

    /// The cached function for `kernel`, compiled by `compile` on first use.
    public static <K extends KernelForm> KernelFunction get(K kernel, Function<K, KernelFunction> compile) {
        String key = kernel.toString();
        synchronized (KERNELS) {
            KernelFunction known = KERNELS.get(key);
            if (known != null) return known;
        }
        KernelFunction compiled = compile.apply(kernel);
        synchronized (KERNELS) {
            KernelFunction raced = KERNELS.putIfAbsent(key, compiled);
            return raced != null ? raced : compiled;
        }
    }

    public static int size() {
        synchronized (KERNELS) { return KERNELS.size(); }
    }
}
