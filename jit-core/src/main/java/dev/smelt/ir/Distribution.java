// SPDX-License-Identifier: Apache-2.0
package dev.smelt.ir;

/// The distributions of [Node.Random]. Counter-based: a stream is a 64-bit *key*, and draw `n` of
/// it is SplitMix64's finaliser of `key + n·γ`, so element `i` of a random tensor is a pure
/// function of the key and `i`. The eager generator, the reference interpreter and every kernel
/// (scalar or vector, any split across threads) compute the same bits from [#sample].
public enum Distribution {
    /// Uniform in `[0, 1)`: draw `i`'s top 24 bits for `f32` (as PyTorch, since a 53-bit value
    /// within 2⁻²⁵ of 1 would round up to 1.0f) and top 53 bits for `f64`.
    UNIFORM,
    /// Standard normal by Box–Muller: elements `2k` and `2k + 1` share draws `2k` and `2k + 1`,
    /// `√(-2 ln u₁)·cos(2πu₂)` and `…·sin(2πu₂)`. `StrictMath`, so the bits are the same on every JVM.
    NORMAL;

    /// SplitMix64's increment (the golden ratio in 64 bits) and its finaliser's multipliers.
    public static final long GAMMA = 0x9E3779B97F4A7C15L, MIX_1 = 0xBF58476D1CE4E5B9L, MIX_2 = 0x94D049BB133111EBL;

    /// The key of the stream of `seed` positioned after `offset` draws.
    public static long key(long seed, long offset) { return seed + (offset + 1) * GAMMA; }

    /// Draw `n` of the stream `key`: SplitMix64's finaliser.
    public static long bits(long key, long n) {
        long z = key + n * GAMMA;
        z = (z ^ (z >>> 30)) * MIX_1;
        z = (z ^ (z >>> 27)) * MIX_2;
        return z ^ (z >>> 31);
    }

    /// How many draws `count` elements take: one each, or a pair per two normals (an odd count
    /// leaves the last sine unused).
    public long draws(long count) {
        return switch (this) {
            case UNIFORM -> count;
            case NORMAL -> count + (count & 1);
        };
    }

    /// Element `index` of a `dtype` tensor drawn from stream `key`, exactly representable in
    /// `dtype` for [#UNIFORM] and rounded once to it by the caller for [#NORMAL].
    public double sample(long key, long index, DType dtype) {
        return switch (this) {
            case UNIFORM -> {
                int precision = dtype == DType.F32 ? 24 : 53;
                yield (bits(key, index) >>> (64 - precision)) * Math.scalb(1.0, -precision);
            }
            case NORMAL -> {
                long pair = index & ~1L;
                double u1 = ((bits(key, pair) >>> 11) + 1) * 0x1.0p-53; // in (0, 1]: the log stays finite
                double u2 = (bits(key, pair + 1) >>> 11) * 0x1.0p-53;
                double radius = StrictMath.sqrt(-2 * StrictMath.log(u1));
                double angle = 2 * Math.PI * u2;
                yield radius * ((index & 1) == 0 ? StrictMath.cos(angle) : StrictMath.sin(angle));
            }
        };
    }

    /// The IR text name: `rand` or `randn`, as the tensor factories `Tensor.rand` and `Tensor.randn`.
    @Override
    public String toString() { return this == UNIFORM ? "rand" : "randn"; }
}
