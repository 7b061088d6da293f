// SPDX-License-Identifier: Apache-2.0
package dev.smelt.spark;

import dev.smelt.Compiled;
import dev.smelt.Jit;
import dev.smelt.Tensor;
import dev.smelt.ir.SmeltException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/// The executor side of [ShippedFunction]: each JVM parses a function's weights once and compiles
/// it once per batch size, keyed by the function's [ShippedFunction#id], so the tasks of a job (and
/// of later jobs with the same function) reuse the programs. The few most recent functions are
/// kept; a task of an evicted one loads it again.
final class Executables {
    private static final int CAPACITY = 8;
    // Access-ordered: the eldest is the least recently used.
    private static final Map<String, Executable> CACHE = new LinkedHashMap<>(16, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Executable> eldest) { return size() > CAPACITY; }
    };

    private Executables() {}

    /// One function in this JVM: its weights and a compiled program per batch size, shared by
    /// threads (a [Compiled] is safe to call from many).
    static final class Executable {
        private final ShippedFunction function;
        private final Map<String, Tensor> weights;
        private final Map<Integer, Compiled> programs = new ConcurrentHashMap<>();

        private Executable(ShippedFunction function) {
            this.function = function;
            this.weights = function.weights();
        }

        /// The results for `arguments`, whose axis 0 is the batch of `batch` rows.
        List<Tensor> apply(int batch, Tensor... arguments) {
            return programs.computeIfAbsent(function.isBatched() ? batch : 0, b -> Jit.compile(function.traced(batch, weights))).applyAll(arguments);
        }
    }

    /// The executable of `function` in this JVM, loaded on first use.
    static Executable of(ShippedFunction function) {
        if (function == null) throw SmeltException.of("Smelt on Spark", "the shipped function is null");
        synchronized (CACHE) {
            return CACHE.computeIfAbsent(function.id(), id -> {
                function.validate("Smelt on Spark");
                return new Executable(function);
            });
        }
    }
}
