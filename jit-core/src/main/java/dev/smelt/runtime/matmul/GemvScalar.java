// SPDX-License-Identifier: Apache-2.0
package dev.smelt.runtime.matmul;

import dev.smelt.ir.PackedMatrix;

/// The GEMV rows of [Gemv] (f32, bf16, int8) in scalar Java, lane by lane, for a fresh JVM: each
/// gives the vector code's bits (the same accumulators of L lanes, each lane's fused multiply-adds
/// in the same order, the same tree over the lanes, the same scalar tail), and C1 compiles it after
/// a few hundred rows, where the vector code runs boxed, tens of times slower, until C2 has
/// compiled it ([Tier] says when). In the first token of a stories110M decode the vector rows took
/// about a third of 10 s, most of it in the interpreter's `rearrange`. The f32 row:
///
/// ```
/// for (k = 0; k + 4L <= K; k += 4L) for (j < 4) for (lane < L) s[j][lane] = fma(w[k + jL + lane], x[k + jL + lane], s[j][lane]);
/// for (; k + L <= K; k += L) for (lane < L) s[0][lane] = fma(w[k + lane], x[k + lane], s[0][lane]);
/// t = (s0 + s1) + (s2 + s3); for (h = L/2; h ≥ 1; h /= 2) t[i] = t[i] + t[(i + h) mod L];
/// sum = t[0]; for (; k < K; k++) sum = fma(w[k], x[k], sum);
/// ```
final class GemvScalar {
    private GemvScalar() {}

    /// Which code a format's rows run: [GemvScalar]'s from a fresh JVM's first row, [Gemv]'s vector
    /// code from when it has been faster than the scalar row four samples in a row (C2 has compiled
    /// it; boxed, it is tens of times slower), or after [#LIMIT] rows in any case. The samples come
    /// from the callers' rows and from [GemvWarmUp] on the warm-up thread, which gets the vector
    /// code compiled sooner than one row in 64 would. The rows give
    /// the same bits either way, so threads racing on the counts change only when the switch comes.
    static final class Tier {
        private volatile boolean vector;
        private int wins;
        private long rows;
        private final java.util.concurrent.atomic.AtomicBoolean warming = new java.util.concurrent.atomic.AtomicBoolean();

        /// Starts, once, the warm-up of the vector code on rows `first … last` (64 at most) of `w`.
        void warmUp(Object w, int bAt, int ldb, int depth, int first, int last) {
            if (!warming.getAndSet(true)) WarmUpThread.EXECUTOR.execute(new GemvWarmUp(this, w, bAt, ldb, depth, first, Math.min(last, first + 64)));
        }

        boolean vector() { return vector; }

        /// The vector code from now on: for tests of the vector rows themselves.
        void toVector() { vector = true; }

        void count(int more) {
            if ((rows += more) > LIMIT) vector = true;
        }

        // The vector code's time for one sampled row against the scalar code's for the same row.
        void compare(long vectorNanos, long scalarNanos) {
            wins = vectorNanos < scalarNanos ? wins + 1 : 0;
            if (wins >= 4) vector = true;
        }
    }

    static final Tier F32 = new Tier(), BF16 = new Tier(), Q8 = new Tier();

    /// The tier of `w`'s format.
    static Tier tier(Object w) {
        return switch (w) {
            case float[] _ -> F32;
            case PackedMatrix p -> p.format() == PackedMatrix.Format.BF16 ? BF16 : Q8;
            default -> throw new IllegalArgumentException("not a matrix: " + w.getClass().getSimpleName());
        };
    }

    /// Row n of W (an f32 W's at `bAt + n·ldb`, a packed one's n-th) against `a[x…]`, in scalar code.
    static float row(float[] a, int x, Object w, int bAt, int ldb, int n, int depth) {
        return switch (w) {
            case float[] f -> row(a, x, f, bAt + n * ldb, depth);
            case PackedMatrix p when p.format() == PackedMatrix.Format.BF16 -> bf16Row(a, x, p.halves(), n * depth, depth);
            case PackedMatrix p -> q8Row(a, x, p.quants(), p.scales(), n * depth, n * PackedMatrix.groups(depth), depth);
            default -> throw new IllegalArgumentException("not a matrix: " + w.getClass().getSimpleName());
        };
    }

    /// Rows after which the vector code runs even if it never was faster: about 30 tokens of stories110M.
    static final long LIMIT = 4_000_000;

    /// Whether row `n` of a cold GEMV runs the vector code too: one in 64, few enough that the
    /// boxed vector code costs less than the scalar rows, enough for C2 to compile it within a token.
    static boolean sampled(int n) { return (n & 63) == 0; }

    private static final int L = Gemv.L; // the vector code's lanes, whose order the rows follow

    // Four accumulators, then the tree's two arrays, per thread: a row allocates nothing.
    private static final ThreadLocal<float[]> LANES = ThreadLocal.withInitial(() -> new float[6 * L]);

    /// `Σ_k w[w0 + k] · a[x + k]` for `k < depth` as [Gemv]'s f32 row sums it over its L lanes.
    static float row(float[] a, int x, float[] w, int w0, int depth) {
        float[] s = accumulators();
        int k = 0;
        for (; k + 4 * L <= depth; k += 4 * L)
            for (int i = 0; i < 4 * L; i++) s[i] = Math.fma(w[w0 + k + i], a[x + k + i], s[i]);
        for (; k + L <= depth; k += L)
            for (int i = 0; i < L; i++) s[i] = Math.fma(w[w0 + k + i], a[x + k + i], s[i]);
        float sum = tree(s);
        for (; k < depth; k++) sum = Math.fma(w[w0 + k], a[x + k], sum);
        return sum;
    }

    /// [#row] for a bf16 W: each weight widened to f32 exactly, as the vector code widens it.
    static float bf16Row(float[] a, int x, short[] w, int w0, int depth) {
        float[] s = accumulators();
        int k = 0;
        for (; k + 4 * L <= depth; k += 4 * L)
            for (int i = 0; i < 4 * L; i++) s[i] = Math.fma(PackedMatrix.fromBf16(w[w0 + k + i]), a[x + k + i], s[i]);
        for (; k + L <= depth; k += L)
            for (int i = 0; i < L; i++) s[i] = Math.fma(PackedMatrix.fromBf16(w[w0 + k + i]), a[x + k + i], s[i]);
        float sum = tree(s);
        for (; k < depth; k++) sum = Math.fma(PackedMatrix.fromBf16(w[w0 + k]), a[x + k], sum);
        return sum;
    }

    /// [#row] for an int8 W as [Gemv]'s q8 row sums it: each group of 32 summed lane by lane
    /// (`q0·x0`, then fused multiply-adds of the group's next vectors), scaled into chain g % 4,
    /// the chains' lanes summed in the tree, the last, shorter group in scalar code.
    static float q8Row(float[] a, int x, byte[] q, float[] scales, int w0, int g0, int depth) {
        float[] s = accumulators();
        int group = PackedMatrix.GROUP, whole = depth / group, g = 0;
        for (; g < whole; g++) group(a, x + g * group, q, w0 + g * group, scales[g0 + g], s, g % 4 * L);
        float sum = tree(s);
        if (whole * group < depth) {
            float t = 0;
            for (int k = whole * group; k < depth; k++) t = Math.fma(q[w0 + k], a[x + k], t);
            sum = Math.fma(t, scales[g0 + whole], sum);
        }
        return sum;
    }

    // One group of 32 int8 weights into chain `at`: t = q0·x0, t = fma(q_j, x_j, t) for the group's
    // next vectors, then chain = fma(t, scale, chain), lane by lane.
    private static void group(float[] a, int x, byte[] q, int w0, float scale, float[] s, int at) {
        for (int i = 0; i < L; i++) {
            float t = q[w0 + i] * a[x + i];
            for (int j = 1; j < PackedMatrix.GROUP / L; j++) t = Math.fma(q[w0 + j * L + i], a[x + j * L + i], t);
            s[at + i] = Math.fma(t, scale, s[at + i]);
        }
    }

    // The four chains of L lanes, zeroed, and room for the tree after them.
    private static float[] accumulators() {
        float[] s = LANES.get();
        java.util.Arrays.fill(s, 0, 4 * L, 0f);
        return s;
    }

    // (s0 + s1) + (s2 + s3), then lane i takes lane (i + h) mod L for h = L/2 … 1: lane 0.
    private static float tree(float[] s) {
        int t = 4 * L, u = 5 * L;
        for (int i = 0; i < L; i++) s[t + i] = (s[i] + s[L + i]) + (s[2 * L + i] + s[3 * L + i]);
        for (int h = L / 2; h >= 1; h /= 2) {
            for (int i = 0; i < L; i++) s[u + i] = s[t + i] + s[t + (i + h) % L];
            int swap = t;
            t = u;
            u = swap;
        }
        return s[t];
    }
}
