// SPDX-License-Identifier: Apache-2.0
package dev.smelt.runtime.matmul;

/// The f32 GEMV row of [Gemv] in scalar Java, lane by lane, for a fresh JVM: it gives the vector
/// code's bits (the same four accumulators of L lanes, each lane's fused multiply-adds in the same
/// order, the same tree over the lanes, the same scalar tail), and C1 compiles it after a few
/// hundred rows, where the vector code runs boxed until C2 has compiled it. In the first token
/// of a stories110M decode the vector rows took about a third of 10 s, most of it in the
/// interpreter's `rearrange`.
///
/// ```
/// for (k = 0; k + 4L <= K; k += 4L) for (j < 4) for (lane < L) s[j][lane] = fma(w[k + jL + lane], x[k + jL + lane], s[j][lane]);
/// for (; k + L <= K; k += L) for (lane < L) s[0][lane] = fma(w[k + lane], x[k + lane], s[0][lane]);
/// t = (s0 + s1) + (s2 + s3); for (h = L/2; h ≥ 1; h /= 2) t[i] = t[i] + t[(i + h) mod L];
/// sum = t[0]; for (; k < K; k++) sum = fma(w[k], x[k], sum);
/// ```
final class GemvScalar {
    private GemvScalar() {}

    // Four accumulators, then the tree's two arrays, per thread: a row allocates nothing.
    private static final ThreadLocal<float[]> LANES = new ThreadLocal<>();

    /// `Σ_k w[w0 + k] · a[x + k]` for `k < depth` as [Gemv]'s f32 row with `lanes` lanes sums it.
    static float row(float[] a, int x, float[] w, int w0, int depth, int lanes) {
        float[] s = LANES.get();
        if (s == null || s.length != 6 * lanes) LANES.set(s = new float[6 * lanes]);
        java.util.Arrays.fill(s, 0, 4 * lanes, 0f);
        int k = 0;
        for (; k + 4 * lanes <= depth; k += 4 * lanes)
            for (int i = 0; i < 4 * lanes; i++) s[i] = Math.fma(w[w0 + k + i], a[x + k + i], s[i]);
        for (; k + lanes <= depth; k += lanes)
            for (int i = 0; i < lanes; i++) s[i] = Math.fma(w[w0 + k + i], a[x + k + i], s[i]);
        int t = 4 * lanes, u = 5 * lanes;
        for (int i = 0; i < lanes; i++) s[t + i] = (s[i] + s[lanes + i]) + (s[2 * lanes + i] + s[3 * lanes + i]);
        for (int h = lanes / 2; h >= 1; h /= 2) {
            for (int i = 0; i < lanes; i++) s[u + i] = s[t + i] + s[t + (i + h) % lanes];
            int swap = t;
            t = u;
            u = swap;
        }
        float sum = s[t];
        for (; k < depth; k++) sum = Math.fma(w[w0 + k], a[x + k], sum);
        return sum;
    }
}
