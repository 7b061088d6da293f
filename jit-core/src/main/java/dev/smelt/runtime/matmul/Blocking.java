// SPDX-License-Identifier: Apache-2.0
package dev.smelt.runtime.matmul;

import dev.smelt.codegen.MicroKernelShape;

/// Cache blocks of a packed matmul (the BLIS loop structure): `depth` steps of K per packed panel,
/// `rows` rows of A per packed block, `columns` columns of B per packed panel.
///
/// The micro-kernel streams one `depth × tile columns` micro-panel of B from L1 for every row tile
/// of the A block, so that micro-panel takes half of L1; the packed A block (`rows × depth`) is
/// read once per micro-panel of B and takes half of L2; the packed B panel a quarter of L2. Each
/// block size is then evened out so the last block is not a sliver.
record Blocking(int depth, int rows, int columns) {
    /// The L1 budget in bytes: `-Dsmelt.cache.l1=…`, else twice the machine's L1 data cache
    /// ([Caches]). Twice is a tuned figure: this AMD EPYC has 32 KiB of L1 data and 1 MiB of L2 per
    /// core, and blocks sized from those real figures ran slower (JMH, 2026-11-22, two alternating
    /// runs each: sgemm 1024³ 26.7–27.6 ms against 25.7–26.5 ms, the MLP's 128×784·784×256 687–718 µs
    /// against 668–677 µs): a B micro-panel filling all of L1 still stays there, and the deeper K
    /// steps halve the passes over C.
    static final int L1_BYTES = Integer.getInteger("smelt.cache.l1", 2 * Caches.MACHINE.l1Bytes());
    /// The L2 budget in bytes: `-Dsmelt.cache.l2=…`, else twice the machine's L2, as above.
    static final int L2_BYTES = Integer.getInteger("smelt.cache.l2", 2 * Caches.MACHINE.l2Bytes());
    /// Where the budgets came from, for `explain()`.
    static final String SOURCE = Integer.getInteger("smelt.cache.l1") != null || Integer.getInteger("smelt.cache.l2") != null ? "-Dsmelt.cache"
            : "twice the %d KiB and %d KiB of L1d and L2 (%s)".formatted(Caches.MACHINE.l1Bytes() >> 10, Caches.MACHINE.l2Bytes() >> 10, Caches.MACHINE.source());

    static Blocking of(MicroKernelShape tile, int m, int n, int k) {
        int bytes = tile.dtype().bytes();
        int depth = even(Math.max(16, L1_BYTES / 2 / (tile.columns() * bytes) / 8 * 8), k, 1);
        int rows = even(Math.max(tile.rows(), L2_BYTES / 2 / (depth * bytes)), m, tile.rows());
        int columns = even(Math.max(tile.columns(), L2_BYTES / 4 / (depth * bytes)), n, tile.columns());
        return new Blocking(depth, rows, columns);
    }

    /// At most `limit`, splitting `size` into equal blocks, each a multiple of `multiple`.
    static int even(int limit, int size, int multiple) {
        if (size <= 0) return multiple;
        int blocks = (size + limit - 1) / limit;
        int block = (size + blocks - 1) / blocks;
        return (block + multiple - 1) / multiple * multiple;
    }
}
