// SPDX-License-Identifier: Apache-2.0
package dev.smelt;

import dev.smelt.ops.RandomStream;

/// A seeded source of random numbers for [Tensor#rand], [Tensor#randn] and [Tensor#dropout].
/// Counter-based: draw number `n` is a pure function of `(seed, n)` (SplitMix64's finaliser, see
/// [dev.smelt.ir.Distribution]), and the generator's state is only its [#position]. A random tensor of `n`
/// elements takes the next `n` draws (rounded up to even for `randn`), eagerly or in a compiled
/// function: there the tensor is a graph node whose key (seed and position) is an input of each
/// call, so each call draws fresh values, the generator advances exactly as the eager function
/// would advance it, and a backward regenerates a dropout mask from the key instead of storing it.
/// A generator made inside the traced function is new in every eager call, so its draws are the
/// same in every compiled call too.
/// Advancing is atomic; a generator shared by threads still gives each call its own draws, but
/// which call gets which depends on their order.
public final class Generator {
    private final RandomStream stream;

    /// A generator at position 0 of the stream of `seed` (as `torch.Generator().manual_seed(seed)`).
    public Generator(long seed) { this.stream = new RandomStream(seed, this); }

    /// The seed it was made with.
    public long seed() { return stream.seed(); }

    /// How many 64-bit draws have been taken so far.
    public long position() { return stream.position(); }

    /// A random ordering of `0, 1, …, n-1`, as `torch.randperm(n, generator=…)`: Fisher–Yates, each
    /// swap partner an unbiased draw (rejection on 63 bits, as `java.util.Random.nextInt(bound)`), so
    /// the result depends only on the seed and [#position], which advances by about `n - 1`.
    public int[] permutation(int n) { return stream.permutation(n); }

    /// `Generator(seed=42, position=1024)`.
    @Override
    public String toString() { return "Generator(seed=%d, position=%d)".formatted(seed(), position()); }

    /// Reserves the next `draws` draws and returns the position of the first.
    long advance(long draws) { return stream.advance(draws); }

    /// The stream of `generator`; null for null, which the op then reports as its argument.
    static RandomStream stream(Generator generator) { return generator == null ? null : generator.stream; }
}
