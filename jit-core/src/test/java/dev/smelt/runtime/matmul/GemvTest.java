// SPDX-License-Identifier: Apache-2.0
package dev.smelt.runtime.matmul;

import dev.smelt.testing.Programs;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.smelt.fusion.FusionPlanner;
import dev.smelt.ir.BinaryOp;
import dev.smelt.ir.DType;
import dev.smelt.ir.Graph;
import dev.smelt.ir.Node;
import dev.smelt.ir.PackedMatrix;
import dev.smelt.ir.Shape;
import dev.smelt.ir.Storage;
import dev.smelt.ir.UnaryOp;
import dev.smelt.kernel.MatMulKernel;
import dev.smelt.kernel.Schedule;
import dev.smelt.ref.Interpreter;
import dev.smelt.runtime.Executor;
import dev.smelt.runtime.Program;
import dev.smelt.testing.GraphTolerance;
import dev.smelt.testing.RandomGraphs;
import dev.smelt.testing.VectorOnly;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/// The GEMV path (`x @ W.t()` with at most [Gemv#MAX_ROWS] rows of x) against the reference
/// interpreter on random problems: M from 1 to 8 (more than MAX_ROWS take the packed matmul), odd K
/// and N that no lane count or group of 32 divides, x transposed or not, fused epilogues (residual,
/// bias and activation, llama's SiLU gate `silu(x·W1ᵀ) · (x·W3ᵀ)`). Each problem runs on one
/// thread and split over two, which must give the same bits, twice.
class GemvTest {
    private static final int[] SIZES = {1, 3, 7, 15, 17, 31, 33, 63, 65, 95, 129, 257, 301};

    static LongStream seeds() { return LongStream.range(0, 60); }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void gemvsMatchTheInterpreterAndGiveTheSameBitsOnOneAndTwoThreads(long seed) {
        var random = new Random(seed * 0x9E3779B97F4A7C15L); // consecutive seeds' first draws differ
        int m = 1 + random.nextInt(8), n = SIZES[random.nextInt(SIZES.length)], k = SIZES[random.nextInt(SIZES.length)];
        int epilogue = random.nextInt(4);
        Graph graph = problem(m, n, k, random.nextBoolean(), epilogue);
        String description = "M %d, N %d, K %d, epilogue %d".formatted(m, n, k, epilogue);
        Schedule schedule = FusionPlanner.plan(graph);
        var kernels = schedule.launches().stream().filter(l -> l.kernel() instanceof MatMulKernel).map(l -> (MatMulKernel) l.kernel()).toList();
        assertTrue(!kernels.isEmpty(), () -> description + ": no matmul launch in\n" + schedule);
        for (var kernel : kernels) assertEquals(m <= Gemv.MAX_ROWS, Gemv.applies(kernel), () -> description + ": GEMV or not\n" + kernel);

        List<Storage> inputs = RandomGraphs.inputs(seed, graph);
        var expected = Interpreter.run(graph, inputs);
        var bounds = Interpreter.run(GraphTolerance.bounds(graph), inputs);
        var one = Programs.of(schedule, VectorOnly::compile, new Executor(1)).run(inputs);
        var two = Programs.of(schedule, VectorOnly::compile, new Executor(2, 0)).run(inputs); // split however small
        var again = Programs.of(schedule, VectorOnly::compile, new Executor(2, 0)).run(inputs);
        for (int o = 0; o < expected.size(); o++) {
            assertArrayEquals((float[]) one.get(o).array(), (float[]) two.get(o).array(), () -> description + ": one thread against two");
            assertArrayEquals((float[]) two.get(o).array(), (float[]) again.get(o).array(), () -> description + ": a second call");
            for (int i = 0; i < expected.get(o).size(); i++) {
                String mismatch = GraphTolerance.mismatch(expected.get(o).get(i), one.get(o).get(i), bounds.get(o).get(i));
                if (mismatch != null)
                    fail("%s: output %d element %d: reference %s, compiled %s: %s%n%s".formatted(description, o, i, expected.get(o).get(i), one.get(o).get(i), mismatch, schedule));
            }
        }
    }

    /// A packed W gives the values its f32 copy gives within the f32 product's bound: the steps differ
    /// (four accumulators for f32 and bf16, two chains of scaled groups for int8).
    /// explain() says whether the heap the weights stream from is on huge pages, as this JVM runs.
    @Test
    void explainSaysWhichPagesTheWeightsStreamFrom() {
        var option = java.lang.management.ManagementFactory.getPlatformMXBean(com.sun.management.HotSpotDiagnosticMXBean.class).getVMOption("UseTransparentHugePages");
        var product = dev.smelt.Jit.compile((dev.smelt.Tensor x, dev.smelt.Tensor w) -> x.matmul(w.t()));
        var x = dev.smelt.Tensor.ones(1, 64);
        var w = dev.smelt.Tensor.ones(96, 64);
        String explain = product.explain(x, w);
        assertTrue(explain.contains("GEMV"), explain);
        assertTrue(explain.contains(Boolean.parseBoolean(option.getValue()) ? "the heap is on transparent huge pages" : "-XX:+UseTransparentHugePages lets W stream faster"), explain);
    }

    @Test
    void packedWeightsMatchTheirF32Values() {
        var random = new Random(7);
        for (int k : new int[] {1, 31, 32, 33, 64, 95, 301})
            for (int m = 1; m <= Gemv.MAX_ROWS; m++) {
                int n = 1 + random.nextInt(40);
                float[] x = values(random, m * k), w = values(random, n * k);
                for (var packed : List.of(PackedMatrix.bf16(w, n, k), PackedMatrix.q8(w, n, k))) {
                    float[] dense = packed.toFloats(), fromDense = new float[m * n], fromPacked = new float[m * n];
                    Gemv.run(x, 0, k, dense, 0, k, fromDense, 0, n, m, k, 0, n);
                    Gemv.run(x, 0, k, packed, 0, k, fromPacked, 0, n, m, k, 0, n);
                    for (int i = 0; i < m * n; i++) {
                        double magnitude = 0;
                        for (int p = 0; p < k; p++) magnitude += Math.abs(x[i / n * k + p] * dense[i % n * k + p]);
                        double bound = 2 * k * Math.ulp(1f) * magnitude;
                        assertTrue(Math.abs(fromDense[i] - fromPacked[i]) <= bound, "%s, M %d, K %d, element %d: %s against %s".formatted(packed, m, k, i, fromPacked[i], fromDense[i]));
                    }
                }
            }
    }

    /// A packed row's sum has the same bits whatever else the call computes: one row of x or two,
    /// all of W's rows or one (as a thread's share), at K of whole groups of 32 and not.
    @Test
    void packedRowsGiveTheSameBitsWhateverTheCallAroundThem() {
        GemvScalar.BF16.toVector();
        GemvScalar.Q8.toVector();
        var random = new Random(12);
        for (int k : new int[] {32, 96, 100, 768})
            for (int n : new int[] {1, 7, 33}) {
                float[] x = values(random, 2 * k), w = values(random, n * k);
                for (var packed : List.of(PackedMatrix.bf16(w, n, k), PackedMatrix.q8(w, n, k))) {
                    float[] two = new float[2 * n], one = new float[n], single = new float[n];
                    Gemv.run(x, 0, k, packed, 0, k, two, 0, n, 2, k, 0, n);
                    Gemv.run(x, k, k, packed, 0, k, one, 0, n, 1, k, 0, n);
                    for (int row = 0; row < n; row++) Gemv.run(x, k, k, packed, 0, k, single, 0, n, 1, k, row, row + 1);
                    String where = "%s, N %d, K %d".formatted(packed, n, k);
                    assertArrayEquals(java.util.Arrays.copyOfRange(two, n, 2 * n), one, where + ": x's second row alone");
                    assertArrayEquals(one, single, where + ": W's rows one call each");
                }
            }
    }

    /// A W large enough that HeapLayout knows where its rows lie (a G1 humongous array) takes the
    /// loads from whole cache lines for rows of at least [Gemv#JOINED_DEPTH], whatever the skew of a
    /// row, and gives the bits that the same rows copied into a small array give (read as is),
    /// within the f32 bound of the exact product. The first and last rows of the array take plain
    /// loads (the aligned vectors around them leave it).
    @Test
    void alignedLoadsOfALargeWeightGiveTheBitsOfPlainLoads() {
        float[] big = values(new Random(3), 6 << 20); // 24 MB: more than half of G1's largest region
        org.junit.jupiter.api.Assumptions.assumeTrue(HeapLayout.lineOffset(big) >= 0, "this JVM's flags do not say where the array lies");
        GemvScalar.F32.toVector(); // every row in vector code, not only a fresh JVM's sampled ones
        var random = new Random(11);
        for (int k : new int[] {64, 96, 200, 301, Gemv.JOINED_DEPTH, Gemv.JOINED_DEPTH + 5, 768, 1001}) // joined from JOINED_DEPTH on
            for (int shift = 0; shift < 16; shift++) // W[0, 0] at every position within a line
                for (int m = 1; m <= 2; m++) {
                    int n = 5, ldb = k + random.nextInt(3), at = random.nextBoolean() ? shift : big.length - n * ldb - shift;
                    float[] x = values(random, m * k), small = java.util.Arrays.copyOfRange(big, at, at + n * ldb);
                    float[] fromBig = new float[m * n], fromSmall = new float[m * n];
                    Gemv.run(x, 0, k, big, at, ldb, fromBig, 0, n, m, k, 0, n);
                    Gemv.run(x, 0, k, small, 0, ldb, fromSmall, 0, n, m, k, 0, n);
                    String where = "K %d, W at %d, ldb %d, M %d".formatted(k, at, ldb, m);
                    assertArrayEquals(fromSmall, fromBig, where);
                    for (int i = 0; i < m * n; i++) {
                        double exact = 0, magnitude = 0;
                        for (int p = 0; p < k; p++) {
                            exact += (double) x[i / n * k + p] * small[i % n * ldb + p];
                            magnitude += Math.abs((double) x[i / n * k + p] * small[i % n * ldb + p]);
                        }
                        assertTrue(Math.abs(fromBig[i] - exact) <= (k + 2) * Math.ulp(1f) * magnitude, "%s, element %d: %s against %s".formatted(where, i, fromBig[i], exact));
                    }
                }
    }

    /// The scalar rows a fresh JVM starts on (f32, bf16 and int8 W) give the vector rows' bits: depths around the lane
    /// count and its multiples, values with NaN, infinities, signed zeros, subnormals and large
    /// magnitudes whose sums cancel or overflow.
    @Test
    void theScalarRowGivesTheVectorRowsBits() {
        var random = new Random(13);
        float[] specials = {Float.NaN, Float.POSITIVE_INFINITY, Float.NEGATIVE_INFINITY, -0f, 0f, Float.MIN_VALUE, -Float.MIN_NORMAL / 3, 3e38f, -3e38f, 1e-20f};
        for (int trial = 0; trial < 400; trial++) {
            int depth = trial < 130 ? trial : 1 + random.nextInt(900);
            float[] x = values(random, depth + 5), w = values(random, depth + 9);
            if (trial % 3 == 0)
                for (int i = 0; i < depth / 7 + 1; i++) (random.nextBoolean() ? x : w)[random.nextInt(depth + 1)] = specials[random.nextInt(specials.length)];
            float[] vector = new float[1];
            Gemv.run(x, 2, depth, java.util.Arrays.copyOfRange(w, 3, 3 + depth), 0, depth, vector, 0, 1, 1, depth, 0, 1); // row 0: the vector code
            float scalar = GemvScalar.row(x, 2, w, 3, depth);
            assertEquals(Float.floatToIntBits(vector[0]), Float.floatToIntBits(scalar), "K %d: %s against %s".formatted(depth, scalar, vector[0]));
            if (depth == 0) continue;
            float[] rowW = java.util.Arrays.copyOfRange(w, 3, 3 + depth);
            for (var packed : List.of(PackedMatrix.bf16(rowW, 1, depth), PackedMatrix.q8(rowW, 1, depth))) {
                Gemv.run(x, 2, depth, packed, 0, depth, vector, 0, 1, 1, depth, 0, 1);
                scalar = packed.format() == PackedMatrix.Format.BF16 ? GemvScalar.bf16Row(x, 2, packed.halves(), 0, depth)
                        : GemvScalar.q8Row(x, 2, packed.quants(), packed.scales(), 0, 0, depth);
                assertEquals(Float.floatToIntBits(vector[0]), Float.floatToIntBits(scalar), "%s, K %d: %s against %s".formatted(packed.format(), depth, scalar, vector[0]));
            }
        }
    }

    /// Each row of W gets the bits of its scalar twin and of a call for that row alone, whatever
    /// rows the call covers (calls from random first rows to random last ones, as threads split
    /// them), with K around the lane count, with and without a tail, and values with NaN,
    /// infinities, signed zeros, subnormals and sums that overflow: f32 W both as a small array and
    /// as part of a large one whose rows the aligned loads read, bf16 and int8.
    @Test
    void everyRowHasItsScalarTwinsBitsWhateverRowsTheCallCovers() {
        GemvScalar.F32.toVector();
        GemvScalar.BF16.toVector();
        GemvScalar.Q8.toVector();
        var random = new Random(17);
        float[] specials = {Float.NaN, Float.POSITIVE_INFINITY, Float.NEGATIVE_INFINITY, -0f, 0f, Float.MIN_VALUE, 3e38f, -3e38f};
        float[] big = values(random, 3 << 20);
        for (int trial = 0; trial < 60; trial++) {
            int k = new int[] {1, 15, 16, 17, 33, 64, 100, 288, 301}[trial % 9], n = new int[] {1, 8, 15, 16, 17, 40, 100}[random.nextInt(7)];
            float[] x = values(random, k + 3), w = values(random, n * k);
            if (trial % 2 == 0)
                for (int i = 0; i < n; i++) {
                    float[] target = random.nextBoolean() ? x : w;
                    target[random.nextInt(target.length)] = specials[random.nextInt(specials.length)];
                }
            int at = 16 + random.nextInt(64);
            System.arraycopy(w, 0, big, at, n * k);
            Object[] weights = {w, big, PackedMatrix.bf16(w, n, k), PackedMatrix.q8(nonFinite(w) ? values(random, n * k) : w, n, k)};
            for (Object weight : weights) {
                int bAt = weight == big ? at : 0;
                float[] whole = new float[n], split = new float[n], single = new float[n];
                Gemv.run(x, 3, k, weight, bAt, k, whole, 0, n, 1, k, 0, n);
                for (int first = 0; first < n; ) {
                    int last = Math.min(n, first + 1 + random.nextInt(20));
                    Gemv.run(x, 3, k, weight, bAt, k, split, 0, n, 1, k, first, last);
                    first = last;
                }
                for (int row = 0; row < n; row++) {
                    Gemv.run(x, 3, k, weight, bAt, k, single, 0, n, 1, k, row, row + 1);
                    float scalar = GemvScalar.row(x, 3, weight, bAt, k, row, k);
                    String where = "%s, N %d, K %d, row %d".formatted(weight instanceof PackedMatrix p ? p : weight == big ? "f32 in a large array" : "f32", n, k, row);
                    assertEquals(Float.floatToIntBits(scalar), Float.floatToIntBits(whole[row]), where + ": the whole call against the scalar row");
                    assertEquals(Float.floatToIntBits(single[row]), Float.floatToIntBits(whole[row]), where + ": the row alone");
                    assertEquals(Float.floatToIntBits(split[row]), Float.floatToIntBits(whole[row]), where + ": a split call");
                }
            }
        }
    }

    private static boolean nonFinite(float[] values) {
        for (float v : values) if (!Float.isFinite(v)) return true;
        return false;
    }

    /// A tier switches to the vector code after four samples in a row where it was faster (a slower
    /// one starts the count again), or after its row limit whatever the samples said.
    @Test
    void aTierSwitchesAfterFourFasterSamplesInARowOrItsRowLimit() {
        var tier = new GemvScalar.Tier();
        for (int i = 0; i < 3; i++) tier.compare(100, 200);
        tier.compare(300, 200);
        for (int i = 0; i < 3; i++) tier.compare(100, 200);
        assertTrue(!tier.vector(), "three faster samples since the last slower one");
        tier.compare(100, 200);
        assertTrue(tier.vector(), "four in a row");
        var limited = new GemvScalar.Tier();
        limited.count((int) (GemvScalar.LIMIT / 2));
        assertTrue(!limited.vector());
        limited.count((int) (GemvScalar.LIMIT / 2) + 1);
        assertTrue(limited.vector(), "past the row limit");
    }

    /// x with no rows (M = 0) against a W with rows: a fresh JVM's tier times a sampled row, which
    /// read x's first row and threw (a planned program of a random graph, run alone).
    @Test
    void noRowsOfXInAFreshTierWriteNothing() {
        float[] w = new float[3 * 2], c = {};
        Gemv.cold(new GemvScalar.Tier(), new float[0], 0, 2, w, 0, 2, c, 0, 3, 0, 2, 0, 3);
    }

    private static float[] values(Random random, int count) {
        float[] values = new float[count];
        for (int i = 0; i < count; i++) values[i] = (float) random.nextGaussian();
        return values;
    }

    // x [M, K] (stored [K, M] when transposed) times W [N, K] transposed, with an epilogue.
    private static Graph problem(int m, int n, int k, boolean transposeX, int epilogue) {
        var inputs = new ArrayList<Node.Input>();
        Node x = input(inputs, transposeX ? Shape.of(k, m) : Shape.of(m, k));
        Node product = new Node.MatMul(x, input(inputs, Shape.of(n, k)), transposeX, true);
        Node result = switch (epilogue) {
            case 0 -> product;
            case 1 -> new Node.Binary(BinaryOp.ADD, product, input(inputs, product.shape()));                   // residual
            case 2 -> new Node.Unary(UnaryOp.RELU, new Node.Binary(BinaryOp.ADD, product,
                    new Node.Expand(new Node.Reshape(input(inputs, Shape.of(n)), Shape.of(1, n)), product.shape())));  // relu(x·Wᵀ + b)
            default -> new Node.Binary(BinaryOp.MUL, new Node.Unary(UnaryOp.SILU, product),
                    new Node.MatMul(x, input(inputs, Shape.of(n, k)), transposeX, true));                       // silu(x·W1ᵀ) · (x·W3ᵀ)
        };
        return new Graph(inputs, List.of(result));
    }

    private static Node input(List<Node.Input> inputs, Shape shape) {
        var input = new Node.Input(inputs.size(), shape, DType.F32);
        inputs.add(input);
        return input;
    }
}
