// SPDX-License-Identifier: Apache-2.0
package dev.smelt;

import dev.smelt.ir.DType;
import dev.smelt.ir.Distribution;
import dev.smelt.ir.SmeltException;

/// A seeded source of random numbers for [Tensor#rand], [Tensor#randn] and [Tensor#dropout].
/// Counter-based: draw number `n` is a pure function of `(seed, n)` (SplitMix64's finaliser, see
/// [Distribution]), and the generator's state is only its [#position]. A random tensor of `n`
/// elements takes the next `n` draws (rounded up to even for `randn`), eagerly or in a compiled
/// function: there the tensor is a graph node whose key (seed and position) is an input of each
/// call, so each call draws fresh values, the generator advances exactly as the eager function
/// would advance it, and a backward regenerates a dropout mask from the key instead of storing it.
/// Advancing is atomic; a generator shared by threads still gives each call its own draws, but
/// which call gets which depends on their order.
public final class Generator {
    private final long seed;
    private long position;

    /// A generator at position 0 of the stream of `seed` (as `torch.Generator().manual_seed(seed)`).
    public Generator(long seed) { this.seed = seed; }

    /// The seed it was made with.
    public long seed() { return seed; }

    /// How many 64-bit draws have been taken so far.
    public synchronized long position() { return position; }

    /// Reserves the next `draws` draws and returns the position of the first.
    synchronized long advance(long draws) {
        long start = position;
        position += draws;
        return start;
    }

    /// The key of the stream starting at draw `start`, as a random node reads it: `i32[2]`, its
    /// high and low halves.
    Tensor key(long start) {
        long key = Distribution.key(seed, start);
        return Tensor.of(new int[] {(int) (key >>> 32), (int) key}, 2);
    }

    /// `count` values of `distribution` as `dtype` takes them (see [Distribution#sample]), from the
    /// next draws.
    double[] sample(Distribution distribution, int count, DType dtype) {
        long key = Distribution.key(seed, advance(distribution.draws(count)));
        double[] values = new double[count];
        for (int i = 0; i < count; i++) values[i] = distribution.sample(key, i, dtype);
        return values;
    }

    /// A random ordering of `0, 1, …, n-1`, as `torch.randperm(n, generator=…)`: Fisher–Yates, each
    /// swap partner an unbiased draw (rejection on 63 bits, as `java.util.Random.nextInt(bound)`), so
    /// the result depends only on the seed and [#position], which advances by about `n - 1`.
    public synchronized int[] permutation(int n) {
        if (n < 0) throw SmeltException.of("permutation", "the length must be ≥ 0, got %d", n);
        int[] order = new int[n];
        for (int i = 0; i < n; i++) order[i] = i;
        for (int i = n - 1; i > 0; i--) {
            int j = below(i + 1);
            int swap = order[i];
            order[i] = order[j];
            order[j] = swap;
        }
        return order;
    }

    // Uniform in [0, bound): a 63-bit draw modulo bound, redrawn when it falls in the last partial
    // block of bound values (probability below bound / 2⁶³). The caller holds the lock.
    private int below(int bound) {
        long draw = Distribution.bits(Distribution.key(seed, 0), position++) >>> 1, remainder = draw % bound;
        while (draw - remainder + (bound - 1) < 0) {
            draw = Distribution.bits(Distribution.key(seed, 0), position++) >>> 1;
            remainder = draw % bound;
        }
        return (int) remainder;
    }

    /// `Generator(seed=42, position=1024)`.
    @Override
    public String toString() { return "Generator(seed=%d, position=%d)".formatted(seed, position()); }
}
