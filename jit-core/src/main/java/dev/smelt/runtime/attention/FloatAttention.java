// SPDX-License-Identifier: Apache-2.0
package dev.smelt.runtime.attention;

import dev.smelt.ir.AttentionPart;
import dev.smelt.kernel.AttentionKernel;
import dev.smelt.kernel.KernelFunction;
import dev.smelt.runtime.attention.FloatBlocks.Causal;
import java.util.Arrays;

/// Runs an [AttentionKernel] (FlashAttention-2), work item by work item. The build writes the f64
/// twin, `DoubleAttention`, from `FloatAttention.java` by replacing the element type's names (jit-core's
/// pom): edit `FloatAttention.java` only.
///
/// Forward, for queries `t0…t0+QB` of one head:
/// ```
/// m = -inf, l = 0, acc = 0                                  // per query: running max, sum, output
/// for each block of KB keys (up to the diagonal when causal):
///     s = (q[t0…] · k[block]ᵀ)·scale, masked to -inf      // QB × KB, in L1; kᵀ packed once per head
///                                                           // (fewer than 4 queries: dot products on k's rows;
///                                                           //  k stored transposed: read as it is)
///     per row: m' = max(m, max s); acc *= exp(m - m'); s = exp(s - m'); l = l·exp(m - m') + Σ s
///                                                           // l lane by lane, summed across lanes at the end
///     acc += s · v[block]
/// out = acc / l; logsumexp = m + log l                     // a row that saw no finite score: NaN
/// ```
/// Backward, for one kv head and each q head sharing it (kᵀ and vᵀ packed once for them), per block
/// of keys and block of queries: `P = exp(s - logsumexp)`, `dS = P ∘ (dO·vᵀ - rowsum(dO ∘ O))·scale`,
/// then `dv += Pᵀ·dO`, `dk += dSᵀ·q`, `dq += dS·k`, accumulated in the output arrays.
///
/// A block of keys that a bool mask drops for every query of the block is skipped, as the causal
/// mask's blocks past the diagonal are: its keys and values are not read. For fewer than
/// four queries (a decode step), neither are the keys of a block past the last one a
/// query sees: a KV cache's rows not yet written.
///
/// On a block the causal mask cuts (its diagonal inside), each product skips, four rows at a time,
/// what the mask zeroes ([FloatBlocks.Causal]): the scores past the diagonal, and the terms whose
/// probability is 0; the row operations stop at the last vector holding a visible key. Under a
/// causal mask at T = 128, two of a head's three blocks are cut.
final class FloatAttention implements KernelFunction {
    private static final int QB = AttentionKernel.QUERY_BLOCK, KB = AttentionKernel.KEY_BLOCK;

    private final AttentionKernel kernel;
    private final int heads, group, tokens, sources, d, dv, maskInput, firstOutput;
    private final float scale;
    private final boolean scaledInExp;                       // see scaleScores
    private final MaskReader mask;
    private final int[] keyStart, valueStart;                 // k[h, 0, 0] and v[h, 0, 0] per kv head h (batch flattened)
    private final int keyStep, valueStep, keyFeatureStep;    // from one key (value, feature of a key) to the next
    private final boolean keysTransposed;                    // k's keys contiguous: its rows are already kᵀ

    FloatAttention(AttentionKernel kernel) {
        this.kernel = kernel;
        this.heads = kernel.heads();
        this.group = heads / kernel.kvHeads();
        this.tokens = kernel.tokens();
        this.sources = kernel.sources();
        this.d = kernel.depth();
        this.dv = kernel.valueDepth();
        this.scale = (float) kernel.scale();
        this.maskInput = kernel.backward() ? 6 : 3;
        this.firstOutput = kernel.inputs().size();
        this.mask = MaskReader.of(kernel);
        this.scaledInExp = scale > 0 && (mask == null || !mask.adds());
        int kvHeads = kernel.batch() * kernel.kvHeads();
        this.keyStart = new int[kvHeads];
        this.valueStart = new int[kvHeads];
        for (int h = 0; h < kvHeads; h++) {
            keyStart[h] = kernel.keyRow(h, 0);
            valueStart[h] = kernel.valueRow(h, 0);
        }
        this.keyStep = kernel.keyRow(0, 1) - kernel.keyRow(0, 0);
        this.valueStep = kernel.valueRow(0, 1) - kernel.valueRow(0, 0);
        this.keysTransposed = kernel.keysTransposed();
        this.keyFeatureStep = kernel.keyFeatureStride();
    }

    // Fewer queries than this in a block take their scores as dot products on k's rows: packing
    // the keys (a transpose per head) costs more than the products it speeds up (one token of a decode).
    private static final int PACKED_ROWS = 4;

    @Override
    public String tier() { return AttentionFunctions.TIER; }

    @Override
    public void run(Object[] buffers, int start, int end) {
        if (kernel.backward()) {
            var scratch = backwardScratch.get();
            for (int item = start; item < end; item++) backward(buffers, item, scratch);
        } else {
            var scratch = forwardScratch.get();
            scratch.packedHead = -1; // the keys are this call's
            for (int item = start; item < end; item++) forward(buffers, item, scratch);
        }
    }

    // A decode step's attention is a few microseconds of work per layer: a fresh forward scratch
    // (53 KB at d = 64) for every call would cost a good part of that, so each thread keeps one.
    private final ThreadLocal<Scratch> forwardScratch = ThreadLocal.withInitial(() -> new Scratch(false));
    // The backward's (a head's q, kᵀ and vᵀ: 96 KB at T = S = 128, d = 64) is most of what a
    // small backward allocates besides its outputs, so it is kept too.
    private final ThreadLocal<Scratch> backwardScratch = ThreadLocal.withInitial(() -> new Scratch(true));

    private final class Scratch {
        final float[] scores = new float[QB * KB], m = new float[QB];
        final float[] l = new float[QB * FloatBlocks.laneCount()];    // each row's running sum, lane by lane
        final float[] lanes = new float[FloatBlocks.laneCount() * FloatBlocks.laneCount()]; // dots' keys, lane by lane
        float[] keys;                                         // allocated when a block is packed
        final float[] acc, gradient, values, rowDots;
        final int[] seen = new int[blocks(sources)];          // per block of keys, as seen() counts them
        int touched;                                          // what seen()'s reads folded to
        int packedHead = -1;                                  // the kv head whose keys `keys` holds, every block transposed

        Scratch(boolean backward) {
            keys = backward ? new float[d * KB * blocks(sources)] : null;
            acc = backward ? null : new float[QB * dv];
            gradient = backward ? new float[QB * KB] : null;
            values = backward ? new float[dv * KB * blocks(sources)] : null;
            rowDots = backward ? new float[tokens] : null;
        }
    }

    private static int blocks(int keys) { return (keys + KB - 1) / KB; }

    // How many of key block j0's `cols` keys query t may see: up to the diagonal when causal.
    private int live(int t, int j0, int cols) { return kernel.causal() ? Math.clamp(t - j0 + 1, 0, cols) : cols; }

    // Whether the causal mask cuts block (t0…, j0…): its first query cannot see its last key.
    private boolean cut(int t0, int j0, int cols) { return kernel.causal() && j0 + cols - 1 > t0; }

    // The row operations' span for `live` keys: whole vectors, whose lanes past `live` are masked.
    private static int span(int live) {
        int lanes = FloatBlocks.laneCount();
        return Math.min(KB, (live + lanes - 1) / lanes * lanes);
    }

    private void forward(Object[] buffers, int item, Scratch s) {
        int blocks = kernel.queryBlocks(), head = item / blocks, t0 = AttentionFunctions.queryBlock(item % blocks, blocks) * QB, rows = Math.min(QB, tokens - t0);
        int kvHead = head / heads * kernel.kvHeads() + head % heads / group, lanes = FloatBlocks.laneCount();
        float[] q = (float[]) buffers[0], k = (float[]) buffers[1], v = (float[]) buffers[2];
        Object maskArray = mask == null ? null : buffers[maskInput];
        Arrays.fill(s.m, 0, rows, Float.NEGATIVE_INFINITY);    // the block's rows only: one for a decode step
        Arrays.fill(s.l, 0, rows * lanes, 0);
        Arrays.fill(s.acc, 0, rows * dv, 0);
        boolean packed = rows >= PACKED_ROWS && !keysTransposed;
        if (packed && s.packedHead != kvHead) {              // items of a head follow each other: its keys are packed once
            if (s.keys == null) s.keys = new float[d * KB * blocks(sources)];
            for (int j0 = 0; j0 < sources; j0 += KB) FloatTranspose.transpose(k, keyStart[kvHead] + j0 * keyStep, keyStep, d, Math.min(KB, sources - j0), KB, s.keys, j0 / KB * d * KB);
            s.packedHead = kvHead;
        }
        int qAt = (head * tokens + t0) * d;                  // the block's queries, read where they lie
        int end = kernel.causal() ? Math.min(sources, t0 + rows) : sources;   // the keys before the last query's diagonal
        boolean dots = !packed && !keysTransposed;
        if (dots) seen(s, maskArray, head, t0, rows, end, k, v, kvHead);
        for (int j0 = 0; j0 < end; j0 += KB) {
            int cols = Math.min(KB, sources - j0);
            if (dots ? s.seen[j0 / KB] == 0 : mask != null && mask.keptUpTo(maskArray, head, t0, rows, j0, cols) == 0) continue;
            boolean cut = cut(t0, j0, cols);
            int seen = dots ? s.seen[j0 / KB] : cols; // keys j0 … j0 + seen - 1 hold every one a row sees
            if (packed) FloatBlocks.product(q, qAt, d, 1, s.keys, j0 / KB * d * KB, KB, s.scores, 0, KB, rows, d, KB, false, cut ? Causal.COLUMNS : Causal.NONE, t0 - j0);
            else if (keysTransposed) FloatBlocks.product(q, qAt, d, 1, k, keyStart[kvHead] + j0, keyFeatureStep, s.scores, 0, KB, rows, d, cols, false);
            else for (int r = 0; r < rows; r++) FloatBlocks.dots(q, qAt + r * d, 0, k, keyStart[kvHead] + j0 * keyStep, keyStep, d, seen, s.scores, r * KB, s.lanes);
            for (int r = 0; r < rows; r++) {
                int at = r * KB, t = t0 + r, live = Math.min(live(t, j0, cols), seen), span = span(live);
                if (!scaledInExp) scaleScores(s.scores, at, span);
                mask(s.scores, at, maskArray, head, t, j0, live, span);
                float rowMax = FloatBlocks.max(s.scores, at, span), max = Math.max(s.m[r], scaledInExp ? rowMax * scale : rowMax);
                if (max == Float.NEGATIVE_INFINITY) {             // nothing seen yet: this block adds nothing
                    Arrays.fill(s.scores, at, at + KB, 0f);
                    continue;
                }
                float correction = (float) Math.exp(s.m[r] - max);
                FloatBlocks.expAdd(s.scores, at, span, scaledInExp ? scale : 1, max, s.l, r * lanes, correction);
                Arrays.fill(s.scores, at + span, at + KB, 0f);     // past the span: probabilities 0, read by the product below
                s.m[r] = max;
                if (correction != 1) FloatBlocks.scale(s.acc, r * dv, dv, correction);
            }
            FloatBlocks.product(s.scores, 0, KB, 1, v, valueStart[kvHead] + j0 * valueStep, valueStep, s.acc, 0, dv, rows, seen, dv, true, cut ? Causal.INNER_UP_TO : Causal.NONE, t0 - j0);
        }
        float[] out = (float[]) buffers[firstOutput + kernel.output(AttentionPart.OUTPUT)];
        int lse = kernel.output(AttentionPart.LOGSUMEXP);
        for (int r = 0; r < rows; r++) {
            boolean none = s.m[r] == Float.NEGATIVE_INFINITY;    // every score masked: NaN, as exp(-inf - -inf) unfused
            float sum = FloatBlocks.lanes(s.l, r * lanes);
            int at = (head * tokens + t0 + r) * dv;
            FloatBlocks.scaleInto(s.acc, r * dv, out, at, dv, none ? Float.NaN : 1 / sum);
            if (!none && !finite(out, at, dv)) normalizedFirst(buffers, maskArray, head, kvHead, t0 + r, out, at);
            if (lse >= 0) ((float[]) buffers[firstOutput + lse])[head * tokens + t0 + r] = none ? Float.NaN : s.m[r] + (float) Math.log(sum);
        }
    }

    private static boolean finite(float[] x, int from, int count) {
        for (int i = from; i < from + count; i++) if (!Float.isFinite(x[i])) return false;
        return true;
    }

    // Query t's output again, each weight divided by the row's sum before it meets v, as the unfused
    // softmax and product have it: acc's Σ exp(s - m)·v may overflow where the weighted mean does
    // not (v near the largest finite value, several keys of about the top score). Only for a row
    // whose output is not finite, which then keeps what this gives (∞ or NaN where v or the scores
    // hold them). The values of keys the row does not see are not read, as above.
    private void normalizedFirst(Object[] buffers, Object maskArray, int head, int kvHead, int t, float[] out, int at) {
        float[] q = (float[]) buffers[0], k = (float[]) buffers[1], v = (float[]) buffers[2];
        int end = kernel.causal() ? Math.min(sources, t + 1) : sources, qAt = (head * tokens + t) * d;
        float[] scores = new float[end];
        double max = Double.NEGATIVE_INFINITY, sum = 0;
        for (int j = 0; j < end; j++) {
            double dot = 0;
            for (int f = 0; f < d; f++) dot += (double) q[qAt + f] * k[keyStart[kvHead] + j * keyStep + f * keyFeatureStep];
            scores[j] = (float) dot * scale;
        }
        if (mask != null) mask.apply(maskArray, head, t, 0, end, scores, 0);
        for (int j = 0; j < end; j++) max = Math.max(max, scores[j]);
        for (int j = 0; j < end; j++) sum += Math.exp(scores[j] - max);
        double[] mean = new double[dv];
        for (int j = 0; j < end; j++) {
            double p = Math.exp(scores[j] - max) / sum;
            if (p == 0) continue;
            for (int f = 0; f < dv; f++) mean[f] += p * v[valueStart[kvHead] + j * valueStep + f];
        }
        for (int f = 0; f < dv; f++) out[at + f] = (float) mean[f];
    }

    // For each block of keys before `end`: how many of its keys, from the first, hold every key a
    // row of queries t0 … t0 + rows - 1 sees (0: the block adds nothing), so that the block's
    // scores and products stop there (a decode step's last block holds on average half a block of
    // keys no query sees yet). Then the rows of the keys up to the last one seen are read
    // ([FloatTouch]) before the block loop.
    private void seen(Scratch s, Object maskArray, int head, int t0, int rows, int end, float[] k, float[] v, int kvHead) {
        int first = -1, last = 0;
        for (int j0 = 0; j0 < end; j0 += KB) {
            int cols = Math.min(KB, sources - j0), count = live(t0 + rows - 1, j0, cols);
            if (mask != null) count = Math.min(count, mask.keptUpTo(maskArray, head, t0, rows, j0, count));
            s.seen[j0 / KB] = count;
            if (count == 0) continue;
            if (first < 0) first = j0;
            last = j0 + count;
        }
        if (first >= 0) // kept where the JIT cannot drop it, in this thread's own scratch
            s.touched = FloatTouch.rows(k, keyStart[kvHead] + first * keyStep, keyStep, d, v, valueStart[kvHead] + first * valueStep, valueStep, dv, last - first);
    }

    // The scores (q·kᵀ)·scale, as the unfused graph has them: q·scale first (one multiply per
    // feature instead of per key) overflowed to ∞ where the product's scaling did not (q near the
    // largest float, k 0 or small: NaN, the unfused graph gives v), and may underflow likewise.
    // A positive scale without an added mask is applied inside the exp pass instead (`scaledInExp`),
    // saving a pass over the scores: rounding keeps order, so the scaled scores' max is the max scaled.
    private void scaleScores(float[] scores, int at, int span) {
        if (scale != 1) FloatBlocks.scale(scores, at, span, scale);
    }

    // Of query t's scores of keys j0…: those from `live` to `span` (past the diagonal or the keys)
    // become -inf; a mask drops or adds to the first `live`.
    private void mask(float[] scores, int at, Object maskArray, int head, int t, int j0, int live, int span) {
        Arrays.fill(scores, at + live, at + span, Float.NEGATIVE_INFINITY);
        if (mask != null) mask.apply(maskArray, head, t, j0, live, scores, at);
    }

    // The first block of queries that sees key block j0: under a causal mask, the block holding query j0.
    private int firstQueries(int j0) { return kernel.causal() ? j0 / QB * QB : 0; }

    // The gradients are written by their first term, not added to zeros filled first (the outputs
    // are a third of a small backward's stores): dq's by key block 0, which every query block sees;
    // dk's and dv's by the first head sharing them and their first query block. Keys no query sees
    // (causal, S > T) get zeros.
    private void backward(Object[] buffers, int item, Scratch s) {
        int kvHead = item, batch = item / kernel.kvHeads(), kvInBatch = item % kernel.kvHeads(), firstHead = batch * heads + kvInBatch * group;
        float[] q = (float[]) buffers[0], k = (float[]) buffers[1], v = (float[]) buffers[2], out = (float[]) buffers[3], lse = (float[]) buffers[4], dOut = (float[]) buffers[5];
        float[] dq = output(buffers, AttentionPart.GRAD_Q), dk = output(buffers, AttentionPart.GRAD_K), dvOut = output(buffers, AttentionPart.GRAD_V);
        Object maskArray = mask == null ? null : buffers[maskInput];
        int kOff = kvHead * sources * d, vOff = kvHead * sources * dv;
        for (int j0 = 0; j0 < sources; j0 += KB) {              // kᵀ and vᵀ, once for every q head sharing them
            int cols = Math.min(KB, sources - j0);
            FloatTranspose.transpose(k, kOff + j0 * d, d, d, cols, KB, s.keys, j0 / KB * d * KB);
            FloatTranspose.transpose(v, vOff + j0 * dv, dv, dv, cols, KB, s.values, j0 / KB * dv * KB);
            if (firstQueries(j0) < tokens) continue;
            if (dk != null) Arrays.fill(dk, kOff + j0 * d, kOff + (j0 + cols) * d, 0f);
            if (dvOut != null) Arrays.fill(dvOut, vOff + j0 * dv, vOff + (j0 + cols) * dv, 0f);
        }
        for (int head = firstHead; head < firstHead + group; head++) {
            int qOff = head * tokens * d, oOff = head * tokens * dv;
            FloatBlocks.dots(dOut, oOff, dv, out, oOff, dv, dv, tokens, s.rowDots, 0, s.lanes);   // rowsum(dO ∘ O)
            for (int j0 = 0; j0 < sources; j0 += KB) {
                int cols = Math.min(KB, sources - j0);
                for (int t0 = firstQueries(j0); t0 < tokens; t0 += QB) {
                    int rows = Math.min(QB, tokens - t0);
                    boolean cut = cut(t0, j0, cols), addKv = head != firstHead || t0 != firstQueries(j0);
                    Causal columns = cut ? Causal.COLUMNS : Causal.NONE, upTo = cut ? Causal.INNER_UP_TO : Causal.NONE, from = cut ? Causal.INNER_FROM : Causal.NONE;
                    FloatBlocks.product(q, qOff + t0 * d, d, 1, s.keys, j0 / KB * d * KB, KB, s.scores, 0, KB, rows, d, KB, false, columns, t0 - j0);
                    FloatBlocks.product(dOut, oOff + t0 * dv, dv, 1, s.values, j0 / KB * dv * KB, KB, s.gradient, 0, KB, rows, dv, KB, false, columns, t0 - j0);
                    for (int r = 0; r < rows; r++) {
                        int at = r * KB, t = t0 + r, live = live(t, j0, cols), span = span(live);
                        if (!scaledInExp) scaleScores(s.scores, at, span);   // the scores as the forward computed them
                        mask(s.scores, at, maskArray, head, t, j0, live, span);
                        FloatBlocks.scoreGradient(s.scores, s.gradient, at, span, scaledInExp ? scale : 1, lse[head * tokens + t], s.rowDots[t], scale);
                        if (mask != null) mask.zeroDropped(maskArray, head, t, j0, live, s.gradient, at);
                        Arrays.fill(s.scores, at + span, at + KB, 0f);     // read by the products below: P and dS are 0 there
                        Arrays.fill(s.gradient, at + span, at + KB, 0f);
                    }
                    if (dvOut != null) FloatBlocks.product(s.scores, 0, 1, KB, dOut, oOff + t0 * dv, dv, dvOut, vOff + j0 * dv, dv, cols, rows, dv, addKv, from, j0 - t0);
                    if (dk != null) FloatBlocks.product(s.gradient, 0, 1, KB, q, qOff + t0 * d, d, dk, kOff + j0 * d, d, cols, rows, d, addKv, from, j0 - t0);
                    if (dq != null) FloatBlocks.product(s.gradient, 0, KB, 1, k, kOff + j0 * d, d, dq, qOff + t0 * d, d, rows, cols, d, j0 != 0, upTo, t0 - j0);
                }
            }
        }
    }

    private float[] output(Object[] buffers, AttentionPart part) {
        int index = kernel.output(part);
        return index < 0 ? null : (float[]) buffers[firstOutput + index];
    }

}
