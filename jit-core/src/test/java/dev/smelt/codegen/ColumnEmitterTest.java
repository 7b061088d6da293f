// SPDX-License-Identifier: Apache-2.0
package dev.smelt.codegen;

import static dev.smelt.codegen.Kernels.binary;
import static dev.smelt.codegen.Kernels.f32;
import static dev.smelt.codegen.Kernels.unary;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.smelt.ir.BinaryOp;
import dev.smelt.ir.DType;
import dev.smelt.ir.ReduceOp;
import dev.smelt.ir.Shape;
import dev.smelt.ir.UnaryOp;
import dev.smelt.kernel.Expr;
import dev.smelt.kernel.IndexMap;
import dev.smelt.kernel.Kernel;
import dev.smelt.kernel.KernelPrinter;
import dev.smelt.testing.RandomData;
import dev.smelt.testing.RandomKernels;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.LongStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

/// Column reductions ([ColumnPlan], [ColumnEmitter]): reductions over strided axes, vectorised
/// across neighbouring rows, against the interpreter on both variants and on 4, 8 and the
/// preferred number of lanes.
class ColumnEmitterTest {
    static final int KERNELS = 300;
    static final int[][] SHAPES = {{1, 16}, {2, 17}, {7, 31}, {33, 16}, {5, 100}, {64, 257}, {3, 1}, {1, 5}, {0, 19}};
    private static final AtomicInteger RANDOM_COLUMN_KERNELS = new AtomicInteger();

    /// `op(x, 0)` of a row-major `[b, f]`: the space `[f, b]` with the batch reduced, read at `[1, f]`.
    static Kernel columnReduce(ReduceOp op, DType dtype, int b, int f) {
        var space = Shape.of(f, b);
        var input = new Kernel.Input(dtype, b * f, new IndexMap(0, List.of(1, f)));
        var reduction = new Kernel.Reduction(op, new Expr.Load(0, dtype));
        var out = new Kernel.Output(new Expr.Accumulated(0, reduction.dtype()), f, new IndexMap(0, List.of(1, 0)), true);
        return new Kernel(space, 1, List.of(input), List.of(reduction), List.of(out));
    }

    /// `softmax(x, 0)` of `[b, f]` as lowering builds it: max, sum of `exp(x - max)`, and every point
    /// written as `e1 / r1`.
    static Kernel softmaxOverBatch(int b, int f) {
        var space = Shape.of(f, b);
        var columns = new IndexMap(0, List.of(1, f));
        var x = new Expr.Load(0, DType.F32);
        var shifted = unary(UnaryOp.EXP, binary(BinaryOp.SUB, x, new Expr.Accumulated(0, DType.F32)));
        return new Kernel(space, 1, List.of(new Kernel.Input(DType.F32, b * f, columns)),
                List.of(new Kernel.Reduction(ReduceOp.MAX, x), new Kernel.Reduction(ReduceOp.SUM, shifted)),
                List.of(new Kernel.Output(binary(BinaryOp.DIV, new Expr.Element(1, DType.F32), new Expr.Accumulated(1, DType.F32)), b * f, columns, false)));
    }

    /// Mean and variance over the batch, each a row output, and the centred input scaled by both
    /// at every point: a reduction reading an earlier one's result, and a pointwise epilogue.
    static Kernel normaliseOverBatch(Kernel.Input input, int b, int f) {
        var space = Shape.of(f, b);
        var x = new Expr.Load(0, DType.F32);
        var mean = new Expr.Accumulated(0, DType.F32);
        var centred = binary(BinaryOp.SUB, x, mean);
        var rows = new IndexMap(0, List.of(1, 0));
        return new Kernel(space, 1, List.of(input),
                List.of(new Kernel.Reduction(ReduceOp.SUM, binary(BinaryOp.MUL, x, f32(1.0 / b))),
                        new Kernel.Reduction(ReduceOp.SUM, binary(BinaryOp.MUL, unary(UnaryOp.SQUARE, centred), f32(1.0 / b)))),
                List.of(new Kernel.Output(mean, f, rows, true), new Kernel.Output(new Expr.Accumulated(1, DType.F32), f, rows, true),
                        new Kernel.Output(binary(BinaryOp.MUL, centred, unary(UnaryOp.RSQRT, binary(BinaryOp.ADD, new Expr.Accumulated(1, DType.F32), f32(1e-5)))),
                                b * f, new IndexMap(0, List.of(1, f)), false)));
    }

    /// `sum(x, axes)` of a row-major `[b, c, f]` over the batch (`[c, f]` kept, merged into one row
    /// axis) or over the batch and `c` (two reduced axes, merged into one).
    static Kernel sumOf3d(int b, int c, int f, boolean overTwo) {
        var x = new Expr.Load(0, DType.F32);
        var reduction = new Kernel.Reduction(ReduceOp.SUM, x);
        var result = new Expr.Accumulated(0, DType.F32);
        if (overTwo) {
            var input = new Kernel.Input(DType.F32, b * c * f, new IndexMap(0, List.of(1, c * f, f)));
            return new Kernel(Shape.of(f, b, c), 2, List.of(input), List.of(reduction),
                    List.of(new Kernel.Output(result, f, new IndexMap(0, List.of(1, 0, 0)), true)));
        }
        var input = new Kernel.Input(DType.F32, b * c * f, new IndexMap(0, List.of(f, 1, c * f)));
        return new Kernel(Shape.of(c, f, b), 1, List.of(input), List.of(reduction),
                List.of(new Kernel.Output(result, c * f, new IndexMap(0, List.of(f, 1, 0)), true)));
    }

    static Stream<Arguments> opsAndDtypes() {
        return Stream.of(ReduceOp.values()).flatMap(op -> Stream.of(DType.F32, DType.F64, DType.I32).map(dtype -> Arguments.of(op, dtype)));
    }

    @ParameterizedTest(name = "{0} of {1}")
    @MethodSource("opsAndDtypes")
    void everyReduceOpOverTheBatchMatchesInterpreter(ReduceOp op, DType dtype) {
        for (int[] shape : SHAPES) {
            var kernel = columnReduce(op, dtype, shape[0], shape[1]);
            for (var variant : Variant.values()) check(kernel, variant, 0);
            check(kernel, Variant.VECTOR, 4);
            check(kernel, Variant.VECTOR, 8);
        }
    }

    @Test
    void columnReductionsTakeTheColumnPathAndOthersDoNot() {
        int lanes = VectorPlan.of(columnReduce(ReduceOp.SUM, DType.F32, 3, 64)).lanes();
        for (var op : List.of(ReduceOp.SUM, ReduceOp.MAX, ReduceOp.MIN))
            for (var dtype : List.of(DType.F32, DType.F64, DType.I32)) assertNotNull(plan(columnReduce(op, dtype, 3, 4 * lanes)), op + " of " + dtype);
        assertNotNull(plan(columnReduce(ReduceOp.PROD, DType.I32, 3, 4 * lanes)));
        assertNull(plan(columnReduce(ReduceOp.PROD, DType.F32, 3, 4 * lanes)), "float products fold in double, scalar");
        assertNotNull(plan(columnReduce(ReduceOp.ARGMAX, DType.F32, 3, 4 * lanes)));
        assertNotNull(plan(columnReduce(ReduceOp.ARGMIN, DType.I32, 3, 4 * lanes)));
        assertNull(plan(columnReduce(ReduceOp.SUM, DType.F32, 3, lanes - 1)), "fewer rows than lanes");
        assertNull(plan(Kernels.softmax(64, 64)), "a last-axis reduction keeps its loops");
        assertNotNull(plan(softmaxOverBatch(5, 4 * lanes)));
        assertNotNull(plan(sumOf3d(3, 5, lanes, false)));
        assertNotNull(plan(sumOf3d(3, 5, 4 * lanes, true)));
        String text = Compiled.text(Compiled.emit(columnReduce(ReduceOp.SUM, DType.F32, 3, 4 * lanes), Variant.VECTOR));
        assertFalse(text.contains("STRIDE_"), "no gathers down the columns\n" + text);
    }

    @ParameterizedTest
    @EnumSource(Variant.class)
    void softmaxOverTheBatchReusingElementsMatchesInterpreter(Variant variant) {
        for (int[] shape : SHAPES) checkAllWidths(softmaxOverBatch(shape[0], shape[1]), variant);
    }

    @ParameterizedTest
    @EnumSource(Variant.class)
    void meanAndVarianceOverTheBatchWithAnEpilogueMatchInterpreter(Variant variant) {
        for (int[] shape : SHAPES) {
            int b = shape[0], f = shape[1];
            checkAllWidths(normaliseOverBatch(new Kernel.Input(DType.F32, b * f, new IndexMap(0, List.of(1, f))), b, f), variant);
        }
    }

    /// Views read in place: a slice (an offset and rows padded to `f + 5`), a batch broadcast from
    /// one row (stride 0 along the reduced axis), and a flipped batch (a negative stride).
    @ParameterizedTest
    @EnumSource(Variant.class)
    void slicedBroadcastAndFlippedInputsMatchInterpreter(Variant variant) {
        for (int[] shape : SHAPES) {
            int b = shape[0], f = shape[1];
            checkAllWidths(normaliseOverBatch(new Kernel.Input(DType.F32, 3 + b * (f + 5), new IndexMap(3, List.of(1, f + 5))), b, f), variant);
            checkAllWidths(normaliseOverBatch(new Kernel.Input(DType.F32, f + 2, new IndexMap(1, List.of(1, 0))), b, f), variant);
            if (b > 0) checkAllWidths(normaliseOverBatch(new Kernel.Input(DType.F32, b * f, new IndexMap((b - 1) * f, List.of(1, -f))), b, f), variant);
        }
    }

    @ParameterizedTest
    @EnumSource(Variant.class)
    void sumsOf3dTensorsOverOneAndTwoAxesMatchInterpreter(Variant variant) {
        for (int[] shape : new int[][] {{2, 3, 16}, {5, 7, 17}, {1, 1, 33}, {3, 2, 5}, {4, 16, 1}}) {
            checkAllWidths(sumOf3d(shape[0], shape[1], shape[2], false), variant);
            checkAllWidths(sumOf3d(shape[0], shape[1], shape[2], true), variant);
        }
    }

    /// Sums that read none of one another's results fold in one pass, their common value computed
    /// once per point; one that reads an earlier one's result waits for the next pass. Both
    /// variants against the interpreter, and the same bits from each.
    @Test
    void independentReductionsFoldInOnePass() {
        var x = new Expr.Load(0, DType.F32);
        var y = new Expr.Load(1, DType.F32);
        var sum = new Expr.Shared(0, binary(BinaryOp.ADD, x, y));
        var reductions = List.of(new Kernel.Reduction(ReduceOp.SUM, binary(BinaryOp.MUL, sum, x)), new Kernel.Reduction(ReduceOp.SUM, y),
                new Kernel.Reduction(ReduceOp.MAX, binary(BinaryOp.MUL, sum, y)),
                new Kernel.Reduction(ReduceOp.SUM, binary(BinaryOp.SUB, sum, new Expr.Accumulated(0, DType.F32))));
        for (int[] shape : SHAPES) {
            int b = shape[0], f = shape[1];
            var columns = new IndexMap(0, List.of(1, f));
            var outputs = new java.util.ArrayList<Kernel.Output>();
            for (int k = 0; k < reductions.size(); k++) outputs.add(new Kernel.Output(new Expr.Accumulated(k, DType.F32), f, new IndexMap(0, List.of(1, 0)), true));
            var kernel = new Kernel(Shape.of(f, b), 1, List.of(new Kernel.Input(DType.F32, b * f, columns), new Kernel.Input(DType.F32, b * f, columns)),
                    reductions, outputs);
            assertEquals(List.of(List.of(0, 1, 2), List.of(3)), kernel.reductionPasses());
            for (var variant : Variant.values()) checkAllWidths(kernel, variant);
            long seed = b * 1000L + f;
            Differential.agree(seed, kernel, RandomData.buffers(seed, kernel), 0);
        }
    }

    static LongStream seeds() { return LongStream.range(0, KERNELS); }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void randomColumnKernelsMatchInterpreter(long seed) {
        var kernel = RandomKernels.generateColumns(seed);
        if (plan(kernel) != null) RANDOM_COLUMN_KERNELS.incrementAndGet();
        var buffers = RandomData.buffers(seed, kernel);
        Differential.check(seed, kernel, buffers, Variant.SCALAR);
        Differential.check(seed, kernel, buffers, Variant.VECTOR);
        Differential.check(seed, kernel, buffers, Variant.VECTOR, seed % 2 == 0 ? 4 : 8);
        Differential.agree(seed, kernel, buffers, 0);
    }

    /// The random column kernels must mostly take the column path, or they test little of it.
    @AfterAll
    static void mostRandomColumnKernelsTakeTheColumnPath() {
        int taken = RANDOM_COLUMN_KERNELS.get();
        System.out.printf("random column kernels on the column path: %d of %d%n", taken, KERNELS);
        assertTrue(taken == 0 || taken > KERNELS / 4, "only " + taken + " of " + KERNELS + " random column kernels take the column path");
    }

    /// Rows beyond one tile (32 vectors), tiles shrunk by long rows of kept values, and a last
    /// tile shorter than the others.
    @ParameterizedTest
    @EnumSource(Variant.class)
    void rowsOfSeveralTilesMatchInterpreter(Variant variant) {
        checkAllWidths(columnReduce(ReduceOp.MAX, DType.F32, 3, 1100), variant);
        checkAllWidths(normaliseOverBatch(new Kernel.Input(DType.F32, 4 * 1100, new IndexMap(0, List.of(1, 1100))), 4, 1100), variant);
        var softmax = softmaxOverBatch(3000, 700);
        assertTrue(plan(softmax).tile() < 32 * VectorPlan.of(softmax).lanes(), "kept values shrink the tile: " + plan(softmax).tile());
        checkAllWidths(softmax, variant);
    }

    /// A column sum over at least a block of points ([SumOrder#COLUMN_BLOCK]) adds each row's running `f32`
    /// sum to a `double` after every block, in both variants at the same points: the same bits from
    /// each, in random pieces of rows, and within the interpreter's bounds.
    @Test
    void longColumnSumsAddTheirBlocksInDoubleInBothVariants() {
        for (int batch : new int[] {SumOrder.COLUMN_BLOCK, 2 * SumOrder.COLUMN_BLOCK, 2 * SumOrder.COLUMN_BLOCK + 7, 5 * SumOrder.COLUMN_BLOCK - 1}) {
            var kernel = columnReduce(ReduceOp.SUM, DType.F32, batch, 37);
            assertNotNull(plan(kernel));
            assertTrue(new SumOrder(null, true).blocked(kernel, 0));
            for (var variant : Variant.values()) checkAllWidths(kernel, variant);
            for (int lanes : new int[] {0, 4, 8}) Differential.agree(batch + lanes, kernel, RandomData.buffers(batch, kernel), lanes);
        }
    }

    /// The column `run` holds the vector blocks and the rows left over; over the method limit, the
    /// kernel has no vector variant (row loops would add up its sums in another order than its
    /// scalar variant, see `SumOrder`), and the scalar one, split into helpers, stays correct.
    @Test
    void aColumnKernelTooLargeForOneMethodRunsScalar() {
        var kernel = columnReduce(ReduceOp.SUM, DType.F32, 5, 100);
        var big = new Kernel(kernel.space(), 1, kernel.inputs(), List.of(new Kernel.Reduction(ReduceOp.SUM, Kernels.tree(Kernels.X, 400)),
                new Kernel.Reduction(ReduceOp.MAX, Kernels.tree(Kernels.X, 401))), List.of(
                new Kernel.Output(Kernels.tree(binary(BinaryOp.SUB, Kernels.result(0), Kernels.result(1)), 300), 100, new IndexMap(0, List.of(1, 0)), true)));
        assertNotNull(plan(big));
        assertThrows(KernelTooLargeException.class, () -> KernelEmitter.emit(big, Variant.VECTOR));
        var generated = Compiled.emit(big, Variant.SCALAR);
        assertTrue(Compiled.text(generated).contains("reduce0"), "split into helpers\n" + generated);
        check(big, Variant.SCALAR, 0);
    }

    @Test
    void theColumnSpaceMovesTheLastRowAxisInside() {
        var space = LoopSpace.of(sumOf3d(3, 5, 7, true));
        var columns = ColumnPlan.transposed(space);
        assertEquals(List.of(7, 15), space.dims());
        assertEquals(List.of(15, 7), columns.dims());
        assertEquals(List.of(List.of(7, 1), List.of(0, 1)), columns.strides());
        assertEquals(0, columns.outerRank());
    }

    private static ColumnPlan plan(Kernel kernel) {
        return ColumnPlan.of(kernel, LoopSpace.of(kernel), VectorPlan.of(kernel, 0));
    }

    private static void checkAllWidths(Kernel kernel, Variant variant) {
        check(kernel, variant, 0);
        if (variant == Variant.VECTOR) {
            check(kernel, variant, 4);
            check(kernel, variant, 8);
        }
    }

    private static void check(Kernel kernel, Variant variant, int lanes) {
        long seed = Arrays.hashCode(KernelPrinter.print(kernel).getBytes()) + lanes;
        Differential.check(seed, kernel, RandomData.buffers(seed, kernel), variant, lanes);
    }
}
