// SPDX-License-Identifier: Apache-2.0
package dev.smelt;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.smelt.ir.DType;
import dev.smelt.ir.FusionMode;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/// Fused attention (fusion.AttentionFusion, the attention kernels) against the reference
/// interpreter, which computes attention the plain way, and against eager code, on random shapes:
/// T and S of 1, primes and sizes around the 64-key block; heads 1 to 12, grouped-query; bool,
/// added and causal masks broadcast in several ways; f32 and f64.
class FusedAttentionTest {
    private static final int[] SIZES = {1, 2, 7, 13, 63, 64, 65, 67, 129};

    record Case(int batch, int heads, int kvHeads, int tokens, int sources, int depth, int valueDepth, int mask, double scale, DType dtype) {
        @Override
        public String toString() {
            return "batch %d, heads %d/%d, T %d, S %d, d %d, dv %d, mask %s, scale %s, %s".formatted(batch, heads, kvHeads, tokens, sources, depth, valueDepth,
                    List.of("none", "causal", "bool [T,S]", "added [1,H,T,S]", "bool [B,1,1,S]").get(mask), scale, dtype);
        }
    }

    static Case randomCase(Random random, int trial) {
        int kvHeads = 1 + random.nextInt(4), group = 1 + random.nextInt(3), heads = kvHeads * group;
        DType dtype = trial % 3 == 2 ? DType.F64 : DType.F32;
        return new Case(1 + random.nextInt(2), heads, kvHeads, SIZES[random.nextInt(SIZES.length)], SIZES[random.nextInt(SIZES.length)],
                1 + random.nextInt(40), 1 + random.nextInt(40), trial % 5, trial % 4 == 0 ? 0.3 : 1 / Math.sqrt(8), dtype);
    }

    static List<Tensor> operands(Random random, Case c) {
        Tensor q = EinsumTest.random(random, c.dtype(), c.batch(), c.heads(), c.tokens(), c.depth());
        Tensor k = EinsumTest.random(random, c.dtype(), c.batch(), c.kvHeads(), c.sources(), c.depth());
        Tensor v = EinsumTest.random(random, c.dtype(), c.batch(), c.kvHeads(), c.sources(), c.valueDepth());
        Tensor mask = switch (c.mask()) {
            case 2 -> EinsumTest.random(random, DType.F32, c.tokens(), c.sources()).gt(-1.0);
            case 3 -> EinsumTest.random(random, c.dtype(), 1, c.heads(), c.tokens(), c.sources());
            case 4 -> EinsumTest.random(random, DType.F32, c.batch(), 1, 1, c.sources()).gt(-1.0);
            default -> Tensor.zeros(1);
        };
        return List.of(q, k, v, mask);
    }

    static Jit.FunctionN attention(Case c) {
        return a -> List.of(Tensor.scaledDotProductAttention(a.get(0), a.get(1), a.get(2), c.mask() >= 2 ? a.get(3) : null, c.mask() == 1, c.scale()));
    }

    @Test
    void randomShapesMatchTheInterpreterAndEagerCode() {
        var random = new Random(20);
        for (int trial = 0; trial < 20; trial++) {
            Case c = randomCase(random, trial);
            var inputs = operands(random, c);
            var f = attention(c);
            var compiled = Jit.compile(f, 4);
            Tensor fused = compiled.applyAll(inputs.toArray(Tensor[]::new)).getFirst();
            assertTrue(compiled.explain(inputs.toArray(Tensor[]::new)).contains("attention fusion (online softmax over key blocks)"), c.toString());
            Tensor reference = Jit.trace(f, inputs).interpret(inputs.toArray(Tensor[]::new)).getFirst();
            assertClose(reference, fused, c, "interpreter");
            if (trial % 4 == 0) assertClose(f.apply(inputs).getFirst(), fused, c, "eager");    // eager code: a kernel per op and shape, slow to build
            assertArrayEquals(fused.toDoubleArray(), compiled.applyAll(inputs.toArray(Tensor[]::new)).getFirst().toDoubleArray(), "repeated call, " + c);
        }
    }

    // Depths of whole vectors (GPT's 64, and 80): the block products' four-row tiles run, skipping
    // on a causal diagonal block the scores past it and the probabilities it zeroes; T and S
    // around the block and apart (the diagonal moves), grouped-query, masks on top; f32 and f64.
    @Test
    void causalBlocksAtVectorDepthsMatchTheInterpreter() {
        var random = new Random(25);
        int[][] shapes = {{2, 4, 4, 128, 128}, {1, 2, 1, 67, 130}, {1, 3, 3, 129, 70}, {1, 1, 1, 5, 5}, {1, 2, 2, 64, 1}};
        for (int trial = 0; trial < shapes.length * 2; trial++) {
            int[] s = shapes[trial % shapes.length];
            DType dtype = trial < shapes.length ? DType.F32 : DType.F64;
            Case c = new Case(s[0], s[1], s[2], s[3], s[4], 64, trial % 2 == 0 ? 64 : 80, trial % 3 == 2 ? 2 : 1, 0.125, dtype);
            var inputs = operands(random, c);
            var compiled = Jit.compile(attention(c), 4);
            Tensor fused = compiled.applyAll(inputs.toArray(Tensor[]::new)).getFirst();
            assertClose(Jit.trace(attention(c), inputs).interpret(inputs.toArray(Tensor[]::new)).getFirst(), fused, c, "interpreter");
            assertArrayEquals(fused.toDoubleArray(), compiled.applyAll(inputs.toArray(Tensor[]::new)).getFirst().toDoubleArray(), "repeated call, " + c);
        }
    }

    /// Within the rounding of a softmax summed in another order: relative to the output's scale.
    static void assertClose(Tensor expected, Tensor actual, Case c, String what) {
        assertEquals(expected.shape(), actual.shape(), c.toString());
        double[] e = expected.toDoubleArray(), a = actual.toDoubleArray();
        double tolerance = c.dtype() == DType.F64 ? 1e-12 : 3e-5;
        for (int i = 0; i < e.length; i++) {
            boolean ok = Double.isNaN(e[i]) ? Double.isNaN(a[i]) : Math.abs(a[i] - e[i]) <= tolerance * (1 + Math.abs(e[i]));
            assertTrue(ok, "%s against %s, element %d: %s vs %s".formatted(c, what, i, a[i], e[i]));
        }
    }

    @Test
    void attentionWrittenByHandIsRecognised() {
        var random = new Random(3);
        Tensor q = EinsumTest.random(random, DType.F32, 2, 3, 70, 16), k = EinsumTest.random(random, DType.F32, 2, 3, 50, 16), v = EinsumTest.random(random, DType.F32, 2, 3, 50, 8);
        Jit.Function3 byHand = (x, y, z) -> x.matmul(y.transpose(-1, -2)).mul(0.25).softmax(-1).matmul(z);
        Jit.Function3 divided = (x, y, z) -> x.matmul(y.transpose(-1, -2)).div(4.0).softmax(-1).matmul(z);
        for (var f : List.of(byHand, divided)) {
            var compiled = Jit.compile(f);
            assertTrue(compiled.explain(q, k, v).contains("fuse attention into one kernel"), compiled.explain(q, k, v));
            Tensor expected = Tensor.scaledDotProductAttention(q, k, v, null, false, 0.25);
            assertClose(expected, compiled.apply(q, k, v), new Case(2, 3, 3, 70, 50, 16, 8, 0, 0.25, DType.F32), "sdpa");
        }
    }

    // full(-inf).triu(1) of another shape than the scores' [T, S] was taken for the causal mask: a
    // [1, S] one (every query sees key 0 only), a [T, 1] one (no key masked), an [S, T] one reshaped
    // to [T, S]. Each must give what the ops give eagerly (the bias made while tracing, as iotas).
    @Test
    void aTriuBiasOfAnotherShapeIsNoCausalMask() {
        var random = new Random(12);
        Tensor q = EinsumTest.random(random, DType.F32, 1, 2, 4, 8), k = EinsumTest.random(random, DType.F32, 1, 2, 6, 8), v = EinsumTest.random(random, DType.F32, 1, 2, 6, 3);
        double inf = Double.NEGATIVE_INFINITY;
        List<java.util.function.Supplier<Tensor>> biases = List.of(() -> Tensor.full(inf, 1, 6).triu(1), () -> Tensor.full(inf, 4, 1).triu(1), () -> Tensor.full(inf, 6, 4).triu(1).reshape(4, 6));
        for (var bias : biases) {
            Jit.Function3 f = (x, y, z) -> x.matmul(y.transpose(-1, -2)).mul(0.3).add(bias.get()).softmax(-1).matmul(z);
            assertArrayEquals(f.apply(q, k, v).toFloatArray(), Jit.compile(f).apply(q, k, v).toFloatArray(), 1e-5f, bias.get().shape().toString());
        }
    }

    @Test
    void probabilitiesReadElsewhereAreNotFusedTwice() {
        var random = new Random(4);
        Tensor q = EinsumTest.random(random, DType.F32, 1, 2, 9, 4), k = EinsumTest.random(random, DType.F32, 1, 2, 9, 4);
        var compiled = Jit.compile((Jit.FunctionN) a -> {
            Tensor p = a.get(0).matmul(a.get(1).transpose(-1, -2)).softmax(-1);
            return List.of(p.matmul(a.get(1)), p);
        }, 2);
        assertFalse(compiled.explain(q, k).contains("attention"), compiled.explain(q, k));
    }

    @Test
    void unfusedModeRunsTheSameAttentionOpByOp() {
        var random = new Random(5);
        Case c = new Case(1, 4, 2, 65, 67, 16, 16, 1, 0.25, DType.F32);
        var inputs = operands(random, c);
        var unfused = Jit.compile(attention(c), 4).withFusion(FusionMode.NONE);
        String explained = unfused.explain(inputs.toArray(Tensor[]::new));
        assertFalse(explained.contains("attention fusion"), explained);
        assertClose(unfused.applyAll(inputs.toArray(Tensor[]::new)).getFirst(), Jit.compile(attention(c), 4).applyAll(inputs.toArray(Tensor[]::new)).getFirst(), c, "unfused");
    }

    @Test
    void rowsWithEveryKeyMaskedAreNaNAsUnfused() {
        var random = new Random(6);
        Tensor q = EinsumTest.random(random, DType.F32, 1, 1, 3, 4), k = EinsumTest.random(random, DType.F32, 1, 1, 5, 4), v = EinsumTest.random(random, DType.F32, 1, 1, 5, 2);
        Tensor mask = Tensor.of(new boolean[] {true, false, true, false, false, false, false, false, false, false, false, false, false, true, true}, 3, 5);
        var f = (Jit.Function4) (a, b, c, m) -> Tensor.scaledDotProductAttention(a, b, c, m);
        float[] fused = Jit.compile(f).apply(q, k, v, mask).toFloatArray(), unfused = Jit.compile(f).withFusion(FusionMode.NONE).apply(q, k, v, mask).toFloatArray();
        assertTrue(Float.isNaN(fused[2]) && Float.isNaN(fused[3]) && !Float.isNaN(fused[0]) && !Float.isNaN(fused[4]), java.util.Arrays.toString(fused));
        for (int i = 0; i < fused.length; i++) assertEquals(unfused[i], fused[i], 1e-6, "element " + i);
    }

    // An attention output that is a concat's part (random program seeds 6325 and 10997): the part's
    // group, whose root is the attention, was launched as the attention again, so the concat's
    // buffer was never written (a planner error) or held another part's values (a wrong answer).
    @Test
    void anAttentionOutputConcatenatedIsCopiedIntoTheConcat() {
        var random = new Random(11);
        Tensor q = EinsumTest.random(random, DType.F64, 1, 9, 2, 1, 2), k = EinsumTest.random(random, DType.F64, 1, 9, 1, 1, 2), v = EinsumTest.random(random, DType.F64, 1, 9, 1, 1, 7);
        List<Jit.FunctionN> programs = List.of(
                a -> { Tensor o = Tensor.scaledDotProductAttention(a.get(0), a.get(1), a.get(2), true); return List.of(Tensor.concat(2, o, o, o)); },
                a -> { Tensor o = Tensor.scaledDotProductAttention(a.get(0), a.get(1), a.get(2), false); return List.of(Tensor.concat(2, o, a.get(0).sum(-1, true).expand(1, 9, 2, 1, 7))); },
                a -> List.of(Tensor.concat(-1, Tensor.scaledDotProductAttention(a.get(0), a.get(1), a.get(2), true), Tensor.scaledDotProductAttention(a.get(0), a.get(1), a.get(2), false))));
        for (int p = 0; p < programs.size(); p++) {
            double[] expected = Jit.trace(programs.get(p), List.of(q, k, v)).interpret(q, k, v).getFirst().toDoubleArray();
            double[] actual = Jit.compile(programs.get(p), 3).applyAll(q, k, v).getFirst().toDoubleArray();
            for (int i = 0; i < expected.length; i++) assertEquals(expected[i], actual[i], 1e-12, "program " + p + ", element " + i);
        }
    }

    // Σ exp(s - m)·v, the fused loop's sum before it divides, overflows where the weighted mean does
    // not: seven keys of one score, values near the dtype's largest, one query seeing all of them
    // and one (causal) only the first. The mean is finite, as unfused; a value of -∞ stays -∞.
    @Test
    void valuesNearTheLargestFiniteOneDoNotOverflowTheirMean() {
        for (DType dtype : List.of(DType.F32, DType.F64)) {
            double big = dtype == DType.F32 ? 3e38 : 1.5e308;
            double[] values = new double[7 * 3];
            for (int i = 0; i < values.length; i++) values[i] = i % 3 == 0 ? -big : i % 3 == 1 ? big / (1 + i) : Double.NEGATIVE_INFINITY;
            Tensor q = Tensor.zeros(dtype, 1, 1, 7, 4), k = Tensor.ones(dtype, 1, 1, 7, 4), v = Tensor.of(values, 1, 1, 7, 3).to(dtype);
            for (boolean causal : new boolean[] {false, true}) {
                var f = (Jit.Function3) (a, b, c) -> Tensor.scaledDotProductAttention(a, b, c, causal);
                double[] fused = Jit.compile(f).apply(q, k, v).toDoubleArray(), unfused = Jit.compile(f).withFusion(FusionMode.NONE).apply(q, k, v).toDoubleArray();
                for (int i = 0; i < fused.length; i++) {
                    String where = dtype + ", causal " + causal + ", element " + i;
                    if (i % 3 == 2) assertEquals(Double.NEGATIVE_INFINITY, fused[i], where); // unfused: NaN where a key unseen adds 0·(-∞)
                    else assertEquals(unfused[i], fused[i], Math.abs(unfused[i]) * 1e-6, where);
                    assertEquals(i % 3 == 2, Double.isInfinite(fused[i]), where + ": " + fused[i]);
                }
            }
        }
    }

    // The scores are (q·kᵀ)·scale, as unfused: scaling q first made q·scale -∞ for q near the
    // largest negative value and a scale above 1, and with k 0 (or tiny) the score NaN where it is
    // -0 (or finite), so a query gave NaN instead of the mean of its values; and +∞ for q half the
    // largest value where the scores are finite. One query and several (the dot-product and the
    // packed path), f32 and f64, against the unfused graph.
    @Test
    void theScaleMeetsTheScoresNotTheQueries() {
        for (DType dtype : List.of(DType.F32, DType.F64)) {
            double max = dtype == DType.F32 ? Float.MAX_VALUE : Double.MAX_VALUE;
            for (int tokens : new int[] {1, 9}) {
                for (double[] qks : new double[][] {{-max, 0, 3}, {-max, 1e-30, 3}, {max / 2, 0.1, 3}, {-max, 0, -3}}) {
                    for (boolean added : new boolean[] {false, true}) { // an added mask: the scale has a pass of its own
                        Tensor q = Tensor.full(dtype, qks[0], 1, 2, tokens, 4), k = Tensor.full(dtype, qks[1], 1, 2, tokens, 4);
                        Tensor v = Tensor.arange(0, 2 * tokens * 3, 1).reshape(1, 2, tokens, 3).to(dtype), mask = Tensor.zeros(dtype, tokens, tokens);
                        double scale = qks[2];
                        var f = (Jit.Function4) (a, b, c, m) -> Tensor.scaledDotProductAttention(a, b, c, added ? m : null, !added, scale);
                        double[] fused = Jit.compile(f).apply(q, k, v, mask).toDoubleArray(), unfused = Jit.compile(f).withFusion(FusionMode.NONE).apply(q, k, v, mask).toDoubleArray();
                        String where = "%s, %d queries, q %s, k %s, scale %s, added mask %s".formatted(dtype, tokens, qks[0], qks[1], scale, added);
                        assertArrayEquals(unfused, fused, 1e-5, where);
                        for (double x : fused) assertTrue(Double.isFinite(x), where + ": " + java.util.Arrays.toString(fused));
                    }
                }
            }
        }
    }

    // A KV cache attended up to a length through a bool mask (as a decode step does): blocks of keys
    // the mask drops for every query are skipped, the others are masked key by key. Lengths around
    // the 64-key block, one query and several, a mask per batch item or per query, f32 and f64.
    @Test
    void blocksABoolMaskDropsForEveryQueryMatchTheInterpreter() {
        var random = new Random(8);
        int sources = 200;
        int[] lengths = {1, 63, 64, 65, 128, 130, 200};
        for (int trial = 0; trial < lengths.length * 2; trial++) {
            int length = lengths[trial % lengths.length], tokens = trial % 3 == 0 ? 1 : 1 + random.nextInt(70), batch = 1 + trial % 2;
            DType dtype = trial % 4 == 3 ? DType.F64 : DType.F32;
            Case c = new Case(batch, 2, 1, tokens, sources, 16, 8, 2, 0.25, dtype);
            var inputs = new java.util.ArrayList<>(operands(random, c));
            boolean perQuery = trial % 2 == 1;
            boolean[] keep = new boolean[(perQuery ? tokens : batch) * sources];
            for (int row = 0; row < keep.length / sources; row++)
                for (int j = 0; j < sources; j++) keep[row * sources + j] = j < length - (perQuery ? row % 3 : row);
            inputs.set(3, perQuery ? Tensor.of(keep, tokens, sources) : Tensor.of(keep, batch, 1, 1, sources));
            var compiled = Jit.compile(attention(c), 4);
            Tensor fused = compiled.applyAll(inputs.toArray(Tensor[]::new)).getFirst();
            assertClose(Jit.trace(attention(c), inputs).interpret(inputs.toArray(Tensor[]::new)).getFirst(), fused, c, "interpreter, visible length " + length);
            assertArrayEquals(fused.toDoubleArray(), compiled.applyAll(inputs.toArray(Tensor[]::new)).getFirst().toDoubleArray(), "repeated call, " + c);
        }
    }

    // Sparse bool masks: a block's last kept key anywhere in it, or none, so that the search for it
    // (whole vectors of the mask from the block's end, then key by key) stops at every position;
    // for one to three queries, whose rows keep different keys, and a row that keeps none (NaN).
    @Test
    void sparseBoolMasksMatchTheInterpreter() {
        var random = new Random(21);
        int sources = 203;
        for (int trial = 0; trial < 24; trial++) {
            int tokens = 1 + trial % 3;
            DType dtype = trial % 4 == 3 ? DType.F64 : DType.F32;
            Case c = new Case(1, 2, 1, tokens, sources, 16, 8, 2, 0.25, dtype);
            var inputs = new java.util.ArrayList<>(operands(random, c));
            boolean[] keep = new boolean[tokens * sources];
            double density = List.of(0.0, 0.01, 0.05, 0.3).get(trial % 4);
            for (int i = 0; i < keep.length; i++) keep[i] = random.nextDouble() < density;
            if (trial % 4 != 0) keep[random.nextInt(keep.length)] = true;
            inputs.set(3, Tensor.of(keep, tokens, sources));
            var compiled = Jit.compile(attention(c), 4);
            Tensor fused = compiled.applyAll(inputs.toArray(Tensor[]::new)).getFirst();
            assertClose(Jit.trace(attention(c), inputs).interpret(inputs.toArray(Tensor[]::new)).getFirst(), fused, c, "interpreter, density " + density);
        }
    }

    // As under a causal mask, keys no query sees are not read: a cache's unwritten rows, even
    // non-finite, do not reach the output, whether they fill whole blocks of keys (from 128 on) or
    // end the block that holds the last key seen (100 to 127), for one query and a few.
    @Test
    void keysNoQuerySeesAreNotRead() {
        var random = new Random(9);
        for (int tokens = 1; tokens <= 3; tokens++) {
            float[] values = EinsumTest.random(random, DType.F32, 1, 1, 192, 8).toFloatArray();
            java.util.Arrays.fill(values, 100 * 8, values.length, Float.NaN);
            boolean[] keep = new boolean[tokens * 192];
            for (int t = 0; t < tokens; t++) java.util.Arrays.fill(keep, t * 192, t * 192 + 100 - t, true);
            Tensor q = EinsumTest.random(random, DType.F32, 1, 1, tokens, 8), k = EinsumTest.random(random, DType.F32, 1, 1, 192, 8);
            var f = (Jit.Function4) (a, b, c, m) -> Tensor.scaledDotProductAttention(a, b, c, m);
            float[] fused = Jit.compile(f).apply(q, k, Tensor.of(values, 1, 1, 192, 8), Tensor.of(keep, tokens, 192)).toFloatArray();
            for (float x : fused) assertTrue(Float.isFinite(x), tokens + " queries: " + java.util.Arrays.toString(fused));
        }
    }

    @Test
    void peakMemoryGrowsWithTokensNotTheirSquare() {
        var random = new Random(7);
        Case c = new Case(1, 2, 2, 512, 512, 16, 16, 1, 0.25, DType.F32);
        var inputs = operands(random, c).toArray(Tensor[]::new);
        long fused = peak(Jit.compile(attention(c), 4).explain(inputs)), unfused = peak(Jit.compile(attention(c), 4).withFusion(FusionMode.NONE).explain(inputs));
        assertEquals(2L * 512 * 16 * 4, fused);                        // the output alone
        assertTrue(unfused >= 2L * 512 * 512 * 4, "unfused peak " + unfused);   // at least the scores
    }

    static long peak(String explained) {
        var matcher = java.util.regex.Pattern.compile("memory: peak ([0-9,]+) B").matcher(explained);
        assertTrue(matcher.find(), explained);
        return Long.parseLong(matcher.group(1).replace(",", ""));
    }
}
