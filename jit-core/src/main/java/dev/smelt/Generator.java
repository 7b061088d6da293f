// SPDX-License-Identifier: Apache-2.0
package dev.smelt;

/// A seeded source of random numbers for [Tensor#rand] and [Tensor#randn]. Counter-based: draw
/// number `n` is a pure function of `(seed, n)` (SplitMix64's finaliser), so a stream can be
/// reproduced or regenerated from its position, as dropout masks will need. Not thread-safe.
public final class Generator {
    private final long seed;
    private long counter;

    /// A generator at position 0 of the stream of `seed` (as `torch.Generator().manual_seed(seed)`).
    public Generator(long seed) { this.seed = seed; }

    /// The seed it was made with.
    public long seed() { return seed; }

    /// How many 64-bit draws have been taken so far.
    public long position() { return counter; }

    /// `count` values uniform in `[0, 1)`, with `precision` random bits each: 53 for f64, and 24
    /// for f32 (as PyTorch), because a 53-bit value within 2⁻²⁵ of 1 would round up to 1.0f.
    double[] uniforms(int count, int precision) {
        double[] values = new double[count];
        for (int i = 0; i < count; i++) values[i] = (bits(counter++) >>> (64 - precision)) * Math.scalb(1.0, -precision);
        return values;
    }

    /// `count` standard normal values (Box–Muller on pairs of uniforms).
    double[] normals(int count) {
        double[] values = new double[count];
        for (int i = 0; i < count; i += 2) {
            double u1 = ((bits(counter++) >>> 11) + 1) * 0x1.0p-53; // in (0, 1]: log stays finite
            double u2 = (bits(counter++) >>> 11) * 0x1.0p-53;
            double radius = Math.sqrt(-2 * Math.log(u1));
            values[i] = radius * Math.cos(2 * Math.PI * u2);
            if (i + 1 < count) values[i + 1] = radius * Math.sin(2 * Math.PI * u2);
        }
        return values;
    }

    /// A random ordering of `0, 1, …, n-1`, as `torch.randperm(n, generator=…)`: Fisher–Yates, each
    /// swap partner an unbiased draw (rejection on 63 bits, as `java.util.Random.nextInt(bound)`), so
    /// the result depends only on the seed and [#position], which advances by about `n - 1`.
    public int[] permutation(int n) {
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
    // block of bound values (probability below bound / 2⁶³).
    private int below(int bound) {
        long draw = bits(counter++) >>> 1, remainder = draw % bound;
        while (draw - remainder + (bound - 1) < 0) {
            draw = bits(counter++) >>> 1;
            remainder = draw % bound;
        }
        return (int) remainder;
    }

    // SplitMix64 of the n-th counter value after the seed.
    private long bits(long n) {
        long z = seed + (n + 1) * 0x9E3779B97F4A7C15L;
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }
}
