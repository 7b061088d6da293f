// SPDX-License-Identifier: Apache-2.0
package dev.smelt.runtime.matmul;

/// Runs a format's vector GEMV rows on the warm-up thread, each batch timed against the same rows
/// in scalar code, until its [GemvScalar.Tier] switches (C2 has compiled them) or 10 s have passed (the
/// thread's other warm-ups wait meanwhile).
/// The rows are a few of the first cold call's own W (read, not copied), against a synthetic x,
/// so the warm-up holds no memory of its own beyond one row of x and its results.
final class GemvWarmUp implements Runnable {
    private static final long BUDGET_NANOS = 10_000_000_000L;

    private final GemvScalar.Tier tier;
    private final Object w;
    private final int bAt, ldb, depth, first, last;

    GemvWarmUp(GemvScalar.Tier tier, Object w, int bAt, int ldb, int depth, int first, int last) {
        this.tier = tier;
        this.w = w;
        this.bAt = bAt;
        this.ldb = ldb;
        this.depth = depth;
        this.first = first;
        this.last = last;
    }

    @Override
    public void run() {
        float[] x = new float[depth], out = new float[last];
        for (int k = 0; k < depth; k++) x[k] = 1f / (k + 1);
        long end = System.nanoTime() + BUDGET_NANOS;
        while (!tier.vector() && System.nanoTime() < end) {
            long start = System.nanoTime();
            Gemv.vector(x, 0, depth, w, bAt, ldb, out, 0, 0, 1, depth, first, last);
            long vector = System.nanoTime();
            for (int n = first; n < last; n++) GemvScalar.row(x, 0, w, bAt, ldb, n, depth);
            tier.compare(vector - start, System.nanoTime() - vector);
            try {
                Thread.sleep(1); // a batch or two per millisecond reaches C2's thresholds soon enough, and leaves the core to others
            } catch (InterruptedException e) {
                return;
            }
        }
    }
}
