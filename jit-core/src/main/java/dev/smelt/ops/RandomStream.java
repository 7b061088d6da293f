// SPDX-License-Identifier: Apache-2.0
package dev.smelt.ops;

import dev.smelt.ir.DType;
import dev.smelt.ir.Distribution;
import dev.smelt.ir.Shape;
import dev.smelt.ir.SmeltException;
import dev.smelt.ir.Storage;
import dev.smelt.trace.Tracer;

/// A `dev.smelt.Generator`'s state and draws, for the ops: counter-based, draw `n` a pure function of
/// `(seed, n)` ([Distribution]), so the state is the position alone. [#owner] is the generator.
public final class RandomStream {
    private final long seed;
    private final Object owner;
    private long position;

    /// The stream of `seed` at position 0, standing for `owner`; made inside a trace, it is the
    /// trace's own (see [Creation#random]).
    public RandomStream(long seed, Object owner) {
        this.seed = seed;
        this.owner = owner;
        if (Tracer.CURRENT.isBound()) Tracer.CURRENT.get().madeHere(this);
    }

    public long seed() { return seed; }

    /// The API object this stream belongs to (the `Generator`).
    public Object owner() { return owner; }

    public synchronized long position() { return position; }

    /// Reserves the next `draws` draws and returns the position of the first.
    public synchronized long advance(long draws) {
        long start = position;
        position += draws;
        return start;
    }

    /// The key of the stream starting at draw `start`, as a random node reads it: `i32[2]`, its
    /// high and low halves.
    public Value key(long start) {
        long key = Distribution.key(seed, start);
        return Value.dense(Storage.wrap(new int[] {(int) (key >>> 32), (int) key}), Shape.of(2));
    }

    /// `count` values of `distribution` as `dtype` takes them (see [Distribution#sample]), from the
    /// next draws.
    double[] sample(Distribution distribution, int count, DType dtype) {
        long key = Distribution.key(seed, advance(distribution.draws(count)));
        double[] values = new double[count];
        for (int i = 0; i < count; i++) values[i] = distribution.sample(key, i, dtype);
        return values;
    }

    /// A random ordering of `0, 1, …, n-1`: Fisher–Yates, each swap partner an unbiased draw
    /// (rejection on 63 bits, as `java.util.Random.nextInt(bound)`), so the result depends only on the
    /// seed and the position, which advances by about `n - 1`.
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
}
