// SPDX-License-Identifier: Apache-2.0
package dev.smelt.runtime.matmul;

import dev.smelt.ir.DType;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/// The one background thread of the matmul warm-ups ([MicroKernels]), in a class of its own so
/// that a traced product can start its dtype's warm-up without initialising [MicroKernels] on the
/// tracing thread: that initialises the Vector API (the tile's shape is the preferred species'),
/// 20–40 ms of a fresh JVM's CPU that the warm-up thread now spends while the caller traces and plans.
public final class WarmUpThread {
    private WarmUpThread() {}

    static final ExecutorService EXECUTOR = Executors.newSingleThreadExecutor(runnable -> {
        var thread = new Thread(runnable, "smelt-matmul-warm-up");
        thread.setDaemon(true);
        thread.setPriority(Thread.MIN_PRIORITY);
        return thread;
    });

    private static final Set<DType> STARTED = ConcurrentHashMap.newKeySet();

    /// Starts `dtype`'s tile warm-up for a large product on the warm-up thread, once per JVM (not
    /// `MicroKernels`' own method: calling one would initialise it here); kernel warm-ups then wait
    /// for the tile's.
    public static void startTile(DType dtype) {
        if (STARTED.add(dtype)) EXECUTOR.execute(new StartTile(dtype));
    }

    // A class, not a lambda: it runs once, and a fresh JVM loads a class faster than it bootstraps a lambda.
    private record StartTile(DType dtype) implements Runnable {
        @Override
        public void run() { MicroKernels.of(dtype).startForLargeProducts(); }
    }
}
