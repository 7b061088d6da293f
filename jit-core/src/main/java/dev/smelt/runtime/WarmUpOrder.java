// SPDX-License-Identifier: Apache-2.0
package dev.smelt.runtime;

import java.util.concurrent.atomic.AtomicInteger;

/// Which background warm-ups go first: while the matmul tile of a program with large products
/// warms up, no tiered kernel starts one. The vector tile makes every product several times
/// faster, a kernel's vector variant one elementwise loop a little faster, and both wait for C2,
/// which has one thread on a 2-core machine and compiles the busiest methods first: kernel
/// warm-ups running beside the tile's kept their vector classes in its queue and a core busy (in
/// an MLP's first 100 training steps, about 1 s of the kernel warm-up thread's CPU and more of
/// C2's), and the steps ran on the scalar tile meanwhile.
public final class WarmUpOrder {
    private WarmUpOrder() {}

    private static final AtomicInteger TILES = new AtomicInteger();

    /// A tile's warm-up begins; each call is matched by one of [#tileEnded].
    public static void tileStarted() { TILES.incrementAndGet(); }

    /// A tile's warm-up has ended: its vector tile won, lost this round, or failed.
    public static void tileEnded() { TILES.decrementAndGet(); }

    /// Whether tiered kernels wait before starting a warm-up.
    static boolean kernelsWait() { return TILES.get() > 0; }
}
