// SPDX-License-Identifier: Apache-2.0
package dev.smelt.runtime.matmul;

import dev.smelt.testing.Programs;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.smelt.codegen.MicroKernel;
import dev.smelt.codegen.MicroKernelEmitter;
import dev.smelt.codegen.MicroKernelShape;
import dev.smelt.fusion.FusionPlanner;
import dev.smelt.ir.BinaryOp;
import dev.smelt.ir.DType;
import dev.smelt.ir.Graph;
import dev.smelt.ir.Node;
import dev.smelt.ir.Shape;
import dev.smelt.ir.Storage;
import dev.smelt.ir.UnaryOp;
import dev.smelt.kernel.KernelForm;
import dev.smelt.kernel.KernelFunction;
import dev.smelt.kernel.MatMulKernel;
import dev.smelt.kernel.Schedule;
import dev.smelt.ref.Interpreter;
import dev.smelt.runtime.Executor;
import dev.smelt.runtime.KernelLoader;
import dev.smelt.runtime.Program;
import dev.smelt.testing.GraphTolerance;
import dev.smelt.testing.RandomGraphs;
import dev.smelt.testing.VectorOnly;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.function.Function;
import java.util.stream.LongStream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/// Generated matmuls against the reference interpreter on random problems: sizes 1, primes, K = 0 and
/// sizes no tile or lane count divides; all four transpose combinations; broadcast batches; fused
/// epilogues (bias, activation, residual, scaling, two outputs); f32 and f64. Each problem runs
/// on the vector micro-kernel with the machine's blocking, on the vector and the scalar tile with
/// tiny cache blocks (so every edge of every loop is reached), split over threads. Tolerances are
/// [GraphTolerance]'s, which scale the matmul's bound with K.
class MatMulFunctionTest {
    private static final int[] SIZES = {1, 2, 3, 5, 7, 13, 16, 17, 31, 37, 64, 65, 97, 130};

    static LongStream seeds() { return LongStream.range(0, 120); }

    /// A random matmul problem: the graph and what it exercises, for failure messages.
    record Problem(Graph graph, String description) {}

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void generatedMatMulsMatchTheInterpreter(long seed) {
        var problem = problem(seed);
        Schedule schedule = FusionPlanner.plan(problem.graph());
        assertTrue(schedule.launches().stream().anyMatch(l -> l.kernel() instanceof MatMulKernel),
                () -> "seed %d (%s): no matmul launch in%n%s".formatted(seed, problem.description(), schedule));
        var shape = MicroKernelShape.of(dtypeOf(problem.graph()));
        MicroKernel vector = KernelLoader.load(VectorOnly.verified(MicroKernelEmitter.emit(shape)), MicroKernel.class), scalar = new ScalarTile(shape);
        check(seed, problem, schedule, VectorOnly::compile, "vector, machine blocking");
        check(seed, problem, schedule, tiny(shape, vector), "vector tile, tiny blocks");
        check(seed, problem, schedule, tiny(shape, scalar), "scalar tile, tiny blocks");
        check(seed, problem, schedule, direct(shape), "tiny product");
    }

    /// The tiny path on every size from 1 to 33 (both species, masked tails, B in place and
    /// copied), with the same transposes, batches and epilogues as above.
    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void tinyProductsMatchTheInterpreter(long seed) {
        var problem = problem(seed, random -> 1 + random.nextInt(33));
        Schedule schedule = FusionPlanner.plan(problem.graph());
        check(seed, problem, schedule, direct(MicroKernelShape.of(dtypeOf(problem.graph()))), "tiny product");
    }

    /// A product switches paths while a program runs (the scalar tile until the vector tile is warm,
    /// packing until the tiny product is), so every path must give the same bits: one chain of FMAs
    /// from 0 per element and block of K. Inputs are not moderated: products that overflow and
    /// infinities that meet must give the same NaN or infinity on every path.
    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void everyPathGivesTheSameBits(long seed) {
        var problem = problem(seed, random -> 1 + random.nextInt(40));
        Schedule schedule = FusionPlanner.plan(problem.graph());
        var shape = MicroKernelShape.of(dtypeOf(problem.graph()));
        MicroKernel vector = KernelLoader.load(VectorOnly.verified(MicroKernelEmitter.emit(shape)), MicroKernel.class), scalar = new ScalarTile(shape);
        var inputs = RandomGraphs.inputs(seed, problem.graph());
        var fromScalar = Programs.of(schedule, machineBlocking(shape, scalar, false), new Executor(3, 0)).run(inputs);
        var fromVector = Programs.of(schedule, machineBlocking(shape, vector, false), new Executor(3, 0)).run(inputs);
        var fromTiny = Programs.of(schedule, machineBlocking(shape, vector, true), new Executor(3, 0)).run(inputs);
        for (int o = 0; o < fromScalar.size(); o++)
            for (int i = 0; i < fromScalar.get(o).size(); i++) {
                double a = fromScalar.get(o).get(i), b = fromVector.get(o).get(i), c = fromTiny.get(o).get(i);
                if (!same(a, b) || !same(a, c))
                    fail("seed %d (%s): output %d element %d: scalar tile %s, vector tile %s, tiny product %s%n%s%s".formatted(seed, problem.description(),
                            o, i, a, b, c, problem.graph(), schedule));
            }
    }

    private static boolean same(double a, double b) { return Double.isNaN(a) ? Double.isNaN(b) : Double.doubleToRawLongBits(a) == Double.doubleToRawLongBits(b); }

    // The machine's blocking with `tile`, taking the tiny product when `tiny` and K is one block (as the library does).
    private static Function<KernelForm, KernelFunction> machineBlocking(MicroKernelShape shape, MicroKernel tile, boolean tiny) {
        return kernel -> switch (kernel) {
            case MatMulKernel m -> {
                var blocking = Blocking.of(shape, m.rows(), m.columns(), m.depth());
                boolean takesTiny = tiny && m.depth() <= blocking.depth();
                yield new MatMulFunction(m, shape, () -> tile, m.plain() ? null : VectorOnly.compile(m.epilogue()), blocking, () -> takesTiny, () -> false);
            }
            default -> VectorOnly.compile(kernel);
        };
    }

    // Blocks of 3 steps of K, two tiles of rows and one of columns; the vector tile packs with
    // vector copies, the scalar one with scalar loops, as each runs in the library.
    private static Function<KernelForm, KernelFunction> tiny(MicroKernelShape shape, MicroKernel tile) {
        boolean vectorPacking = !(tile instanceof ScalarTile);
        return kernel -> switch (kernel) {
            case MatMulKernel m -> new MatMulFunction(m, shape, () -> tile, m.plain() ? null : VectorOnly.compile(m.epilogue()),
                    new Blocking(3, 2 * shape.rows(), shape.columns()), () -> false, () -> vectorPacking);
            default -> VectorOnly.compile(kernel);
        };
    }

    // Every product through TinyProduct, whatever its size and whether or not C2 has compiled it yet.
    private static Function<KernelForm, KernelFunction> direct(MicroKernelShape shape) {
        return kernel -> switch (kernel) {
            case MatMulKernel m -> new MatMulFunction(m, shape, () -> { throw new AssertionError("packed path taken"); },
                    m.plain() ? null : VectorOnly.compile(m.epilogue()), Blocking.of(shape, m.rows(), m.columns(), m.depth()), () -> true, () -> false);
            default -> VectorOnly.compile(kernel);
        };
    }

    private static void check(long seed, Problem problem, Schedule schedule, Function<KernelForm, KernelFunction> compile, String how) {
        var graph = problem.graph();
        List<Storage> inputs = RandomGraphs.inputs(seed, graph);
        inputs.forEach(MatMulFunctionTest::moderate);
        var expected = Interpreter.run(graph, inputs);
        var bounds = Interpreter.run(GraphTolerance.bounds(graph), inputs);
        var actual = Programs.of(schedule, compile, new Executor(3, 0)).run(inputs); // every product split, however small
        for (int o = 0; o < expected.size(); o++)
            for (int i = 0; i < expected.get(o).size(); i++) {
                String mismatch = GraphTolerance.mismatch(expected.get(o).get(i), actual.get(o).get(i), bounds.get(o).get(i));
                if (mismatch != null)
                    fail("seed %d (%s, %s): output %d element %d: reference %s, compiled %s: %s%n%s%s".formatted(seed, problem.description(), how,
                            o, i, expected.get(o).get(i), actual.get(o).get(i), mismatch, graph, schedule));
            }
    }

    /// Large finite values become small ones (NaN and infinities stay): generated code sums in the
    /// dtype, as every BLAS does, so a partial sum of huge f32 values may overflow where the
    /// interpreter, summing in double, does not.
    private static void moderate(Storage values) {
        for (int i = 0; i < values.size(); i++)
            if (Double.isFinite(values.get(i)) && Math.abs(values.get(i)) > 100) values.set(i, i % 7 - 3);
    }

    static Problem problem(long seed) { return problem(seed, MatMulFunctionTest::pick); }

    static Problem problem(long seed, java.util.function.ToIntFunction<Random> size) {
        var random = new Random(seed);
        DType dtype = random.nextBoolean() ? DType.F32 : DType.F64;
        int m = size.applyAsInt(random), n = size.applyAsInt(random), k = random.nextInt(12) == 0 ? 0 : size.applyAsInt(random);
        boolean transposeA = random.nextBoolean(), transposeB = random.nextBoolean();
        List<Integer> batchA = batch(random), batchB = random.nextInt(3) == 0 ? batch(random) : batchA;
        if (batchA.size() != batchB.size() || !broadcastable(batchA, batchB)) batchB = batchA;
        var inputs = new ArrayList<Node.Input>();
        var batch = new ArrayList<Integer>();
        for (int i = 0; i < batchA.size(); i++) batch.add(Math.max(batchA.get(i), batchB.get(i)));
        var a = expanded(input(inputs, dtype, batchA, transposeA ? List.of(k, m) : List.of(m, k)), batch);
        var b = expanded(input(inputs, dtype, batchB, transposeB ? List.of(n, k) : List.of(k, n)), batch);
        Node product = new Node.MatMul(a, b, transposeA, transposeB);
        int epilogue = random.nextInt(6);
        var outputs = new ArrayList<Node>();
        Node result = switch (epilogue) {
            case 0 -> product;
            case 1 -> new Node.Unary(UnaryOp.RELU, add(product, bias(inputs, dtype, product.shape())));             // relu(x@w + b)
            case 2 -> new Node.Binary(BinaryOp.ADD, product, input(inputs, dtype, List.of(), product.shape().dims())); // x@w + residual
            case 3 -> new Node.Binary(BinaryOp.MUL, product, new Node.Constant(0.125, product.shape(), dtype));       // scaling
            case 4 -> new Node.Unary(UnaryOp.TANH, add(product, bias(inputs, dtype, product.shape())));
            default -> {
                outputs.add(new Node.Unary(UnaryOp.SIGMOID, product));                                                 // two outputs
                yield add(product, bias(inputs, dtype, product.shape()));
            }
        };
        outputs.add(result);
        String description = "%s [%s]%dx%d%s · [%s]%dx%d%s, epilogue %d".formatted(dtype, batchA, m, k, transposeA ? "ᵀ" : "",
                batchB, k, n, transposeB ? "ᵀ" : "", epilogue);
        return new Problem(new Graph(inputs, outputs), description);
    }

    // The tracer broadcasts batch axes by expanding: a stride of 0, read in place.
    private static Node expanded(Node operand, List<Integer> batch) {
        var dims = new ArrayList<>(batch);
        dims.addAll(operand.shape().dims().subList(batch.size(), operand.shape().rank()));
        return dims.equals(operand.shape().dims()) ? operand : new Node.Expand(operand, new Shape(dims));
    }

    private static Node add(Node x, Node y) { return new Node.Binary(BinaryOp.ADD, x, y); }

    // A bias over the last axis, broadcast over the rest: expand(reshape(b[N], [1…, N])).
    private static Node bias(List<Node.Input> inputs, DType dtype, Shape shape) {
        int n = shape.dim(shape.rank() - 1);
        var ones = new ArrayList<Integer>();
        for (int axis = 0; axis < shape.rank() - 1; axis++) ones.add(1);
        ones.add(n);
        var vector = new Node.Input(inputs.size(), Shape.of(n), dtype);
        inputs.add(vector);
        return new Node.Expand(new Node.Reshape(vector, new Shape(ones)), shape);
    }

    // An operand of shape batch ++ matrix; a transposed one is stored as given and read through the flag.
    private static Node input(List<Node.Input> inputs, DType dtype, List<Integer> batch, List<Integer> matrix) {
        var dims = new ArrayList<>(batch);
        dims.addAll(matrix);
        var input = new Node.Input(inputs.size(), new Shape(dims), dtype);
        inputs.add(input);
        return input;
    }

    private static List<Integer> batch(Random random) {
        return switch (random.nextInt(4)) {
            case 0, 1 -> List.of();
            case 2 -> List.of(1 + random.nextInt(3));
            default -> List.of(2, 1 + random.nextInt(2));
        };
    }

    // Batch axes of equal rank broadcast where one side is 1; else both take the same batch.
    private static boolean broadcastable(List<Integer> a, List<Integer> b) {
        for (int i = 0; i < a.size(); i++) if (!a.get(i).equals(b.get(i)) && a.get(i) != 1 && b.get(i) != 1) return false;
        return true;
    }

    private static int pick(Random random) { return SIZES[random.nextInt(SIZES.length)]; }

    private static DType dtypeOf(Graph graph) { return graph.inputs().getFirst().dtype(); }

    /// Items are blocks of columns, or of rows when the product is taller than wide and not a GEMV
    /// of a few rows, so that threads splitting it pack less (see MatMulKernel.alongRows); a
    /// product of a few rows takes narrower blocks of columns, so that two threads split it evenly.
    @org.junit.jupiter.api.Test
    void itemsRunAlongTheLongerSideOfEveryBatchEntry() {
        for (int[] mnk : new int[][] {{130, 17, 5}, {17, 130, 5}, {64, 64, 3}, {7, 2, 9}, {1024, 256, 256}, {1, 288, 9}, {4, 100, 3}}) {
            int m = mnk[0], n = mnk[1], k = mnk[2];
            var graph = dev.smelt.Jit.trace((dev.smelt.Tensor a, dev.smelt.Tensor b) -> a.matmul(b),
                    dev.smelt.Tensor.zeros(2, m, k), dev.smelt.Tensor.zeros(2, k, n)).graph();
            var kernel = (MatMulKernel) FusionPlanner.plan(graph).launches().stream()
                    .filter(l -> l.kernel() instanceof MatMulKernel).findFirst().orElseThrow().kernel();
            boolean alongRows = m > Math.max(n, 8);
            int unit = m <= MatMulKernel.FEW_ROWS ? MatMulKernel.FEW_ROWS_UNIT_COLUMNS : MatMulKernel.UNIT_COLUMNS;
            assertEquals(alongRows, kernel.alongRows(), () -> "[%d,%d,%d]".formatted(m, n, k));
            int items = alongRows ? (m + MatMulKernel.UNIT_ROWS - 1) / MatMulKernel.UNIT_ROWS : (n + unit - 1) / unit;
            assertEquals(2 * items, kernel.workItems(), () -> "[%d,%d,%d]".formatted(m, n, k));
        }
    }
}
