// SPDX-License-Identifier: Apache-2.0
package dev.smelt.testing;

import dev.smelt.ir.BinaryOp;
import dev.smelt.ir.DType;
import dev.smelt.ir.Distribution;
import dev.smelt.ir.ReduceOp;
import dev.smelt.ir.Shape;
import dev.smelt.ir.UnaryOp;
import dev.smelt.kernel.Expr;
import dev.smelt.kernel.IndexMap;
import dev.smelt.kernel.Kernel;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.stream.IntStream;

/// Random valid kernels and their data, the same for the same seed, for differential tests of code
/// generation.
///
/// The space has rank 0–4 with sizes that include 0, 1, primes, powers of two and sizes no lane
/// count divides (17, 33, 1027), at most [#MAX_POINTS] points. Half the kernels are pointwise; the
/// others reduce their last one to three axes with zero to three reductions, later ones often
/// reading earlier ones ([Expr.Accumulated], as softmax does), and write full and row outputs.
/// Later reductions and full outputs sometimes reuse what an earlier reduction folds at the point
/// ([Expr.Element], as lowered softmax does), and values recur as [Expr.Shared], within a body
/// and across bodies, as the cost model shares them.
/// Inputs are read through random index maps: contiguous, broadcast (stride 0), permuted, strided
/// with padding and an offset, flipped (negative strides). Expressions are trees of depth up to 4
/// over every operator, `where`, casts between all dtypes, indices, constants, loads and gathers.
public final class RandomKernels {
    public static final int MAX_POINTS = 2048;
    private static final int[] DIMS = {1, 2, 3, 4, 5, 7, 8, 13, 16, 17, 31, 33};
    private static final int[] LONG_DIMS = {64, 100, 257, 1027};
    private static final DType[] NUMERIC = {DType.F32, DType.F32, DType.F64, DType.I32};
    private static final BinaryOp[] ARITHMETIC = {BinaryOp.ADD, BinaryOp.SUB, BinaryOp.MUL, BinaryOp.DIV, BinaryOp.POW, BinaryOp.MAXIMUM, BinaryOp.MINIMUM};
    private static final BinaryOp[] COMPARISONS = {BinaryOp.EQ, BinaryOp.NE, BinaryOp.LT, BinaryOp.LE, BinaryOp.GT, BinaryOp.GE};
    private static final int MAX_INPUTS = 6;

    private final Random random;
    private Shape space;
    private int reducedRank;
    private final List<Kernel.Input> inputs = new ArrayList<>();
    private final List<Boolean> rowInvariant = new ArrayList<>();
    private final List<DType> accumulated = new ArrayList<>();
    /// Each reduction's value dtype, or null for an arg-reduction, whose values are not kept.
    private final List<DType> elements = new ArrayList<>();

    /// Whether to make column reductions: reduced axes laid out outside the row axes, mostly.
    private final boolean columns;

    private RandomKernels(long seed, boolean columns) {
        random = new Random(seed);
        this.columns = columns;
    }

    public static Kernel generate(long seed) { return new RandomKernels(seed, false).kernel(); }

    /// A reduction kernel whose buffers mostly lay the reduced axes out outside the row axes, so
    /// that neighbouring rows are contiguous (`sum(x, 0)` and its fusions), with a last row axis of
    /// 16 to 100 and one or two reduced axes.
    public static Kernel generateColumns(long seed) { return new RandomKernels(seed, true).kernel(); }

    private Kernel kernel() {
        if (columns) columnSpace();
        else {
            space = randomSpace();
            reducedRank = space.rank() == 0 || random.nextInt(2) == 0 ? 0 : 1 + (random.nextInt(3) == 0 ? random.nextInt(space.rank()) : 0);
        }
        var reductions = new ArrayList<Kernel.Reduction>();
        for (int k = 0, count = reducedRank == 0 ? 0 : columns ? 1 + random.nextInt(3) : random.nextInt(4); k < count; k++) {
            var reduction = reduction();
            reductions.add(reduction);
            accumulated.add(reduction.dtype());
            elements.add(reduction.op().isArg() ? null : reduction.value().dtype());
        }
        var outputs = new ArrayList<Kernel.Output>();
        for (int i = 0, count = 1 + random.nextInt(3); i < count; i++) {
            boolean perRow = reducedRank > 0 && random.nextInt(3) == 0;
            var dtype = random.nextInt(5) == 0 ? DType.BOOL : any(NUMERIC);
            var layout = layout(perRow, 0.03);
            outputs.add(new Kernel.Output(expression(dtype, 1 + random.nextInt(4), perRow), layout.size(), layout.map(), perRow));
        }
        return new Kernel(space, reducedRank, inputs, reductions, outputs);
    }

    /// `[…rows, reduced…]`: the last row axis has 16 to 100 rows, a reduced axis 1 to 33 points.
    private void columnSpace() {
        int rank = 2 + random.nextInt(2);
        int[] dims = new int[rank];
        for (int axis = 0; axis < rank; axis++) dims[axis] = DIMS[random.nextInt(DIMS.length)];
        reducedRank = rank == 3 ? 1 + random.nextInt(2) : 1;
        dims[rank - reducedRank - 1] = new int[] {16, 17, 31, 33, 64, 100}[random.nextInt(6)];
        space = Shape.of(dims);
    }

    private Shape randomSpace() {
        int rank = new int[] {0, 1, 1, 1, 2, 2, 2, 3, 3, 4}[random.nextInt(10)];
        int[] dims = new int[rank];
        for (int axis = 0; axis < rank; axis++) {
            int kind = random.nextInt(40);
            dims[axis] = kind == 0 ? 0 : kind < 5 ? LONG_DIMS[random.nextInt(LONG_DIMS.length)] : DIMS[random.nextInt(DIMS.length)];
        }
        while (Arrays.stream(dims).asLongStream().reduce(1, (a, b) -> a * b) > MAX_POINTS) {
            int largest = IntStream.range(0, rank).reduce((a, b) -> dims[a] >= dims[b] ? a : b).orElseThrow();
            dims[largest] = dims[largest] / 2;
        }
        return Shape.of(dims);
    }

    private Kernel.Reduction reduction() {
        var op = columns && random.nextInt(4) > 0 ? any(ReduceOp.SUM, ReduceOp.MAX, ReduceOp.MIN) : any(ReduceOp.values());
        if (op.isArg() && reducedRank != 1) op = random.nextBoolean() ? ReduceOp.SUM : ReduceOp.MAX;
        return new Kernel.Reduction(op, expression(any(NUMERIC), 1 + random.nextInt(4), false));
    }

    /// A random expression of `dtype`; in a row output (`perRow`) it must not vary along the reduced axes.
    private Expr expression(DType dtype, int depth, boolean perRow) {
        if (depth <= 0 || random.nextInt(4) == 0) return leaf(dtype, perRow);
        var reusable = shared.stream().filter(s -> s.value().dtype() == dtype && (s.perRow() || !perRow)).toList();
        if (!reusable.isEmpty() && random.nextInt(4) == 0) return reusable.get(random.nextInt(reusable.size())).value();
        Expr expr = compound(dtype, depth, perRow);
        if (random.nextInt(5) > 0) return expr;
        var value = new Expr.Shared(shared.size(), expr);
        shared.add(new SharedValue(value, perRow));
        return value;
    }

    /// A shared value, and whether it is row-invariant (made for a row output), so any body may read it.
    private record SharedValue(Expr.Shared value, boolean perRow) {}

    private final List<SharedValue> shared = new ArrayList<>();

    private Expr compound(DType dtype, int depth, boolean perRow) {
        int kinds = dtype == DType.BOOL ? 3 : 5;
        return switch (random.nextInt(kinds)) {
            case 0 -> dtype == DType.BOOL ? comparison(depth, perRow) : unary(dtype, depth, perRow);
            case 1 -> new Expr.Where(expression(DType.BOOL, depth - 1, perRow), expression(dtype, depth - 1, perRow), expression(dtype, depth - 1, perRow));
            case 2 -> {
                var from = any(DType.values());
                yield new Expr.Cast(expression(from, depth - 1, perRow), dtype);
            }
            default -> {
                if (dtype.isFloating() && random.nextInt(8) == 0) // a random draw: its key is the same at every point
                    yield new Expr.Random(any(Distribution.values()), expression(DType.I32, depth - 1, perRow),
                            new Expr.Constant(random.nextInt(), DType.I32), new Expr.Constant(random.nextInt(), DType.I32), dtype);
                var ops = dtype == DType.I32 ? Arrays.stream(ARITHMETIC).filter(BinaryOp::acceptsIntegers).toArray(BinaryOp[]::new) : ARITHMETIC;
                yield new Expr.Binary(any(ops), expression(dtype, depth - 1, perRow), expression(dtype, depth - 1, perRow));
            }
        };
    }

    private Expr unary(DType dtype, int depth, boolean perRow) {
        var ops = Arrays.stream(UnaryOp.values()).filter(op -> dtype.isFloating() || op.acceptsIntegers()).toArray(UnaryOp[]::new);
        return new Expr.Unary(any(ops), expression(dtype, depth - 1, perRow));
    }

    private Expr comparison(int depth, boolean perRow) {
        var operands = any(DType.values());
        return new Expr.Binary(any(COMPARISONS), expression(operands, depth - 1, perRow), expression(operands, depth - 1, perRow));
    }

    private Expr leaf(DType dtype, boolean perRow) {
        var results = IntStream.range(0, accumulated.size()).filter(k -> accumulated.get(k) == dtype).toArray();
        var kept = IntStream.range(0, elements.size()).filter(k -> elements.get(k) == dtype).toArray();
        if (!perRow && kept.length > 0 && random.nextInt(5) == 0) return new Expr.Element(kept[random.nextInt(kept.length)], dtype);
        int kind = random.nextInt(10);
        if (kind < 3 && results.length > 0) return new Expr.Accumulated(results[random.nextInt(results.length)], dtype);
        if (kind < 4) return new Expr.Constant(constant(dtype), dtype);
        int axes = perRow ? space.rank() - reducedRank : space.rank();
        if (kind < 5 && dtype != DType.BOOL && axes > 0) return new Expr.Index(random.nextInt(axes), dtype);
        if (kind < 6 && !columns && inputs.size() < MAX_INPUTS) return gather(dtype, perRow); // a gather keeps a kernel off the column path
        return new Expr.Load(input(dtype, perRow), dtype);
    }

    /// A gather from a new input of `limit` stacked copies of a random layout, its index a random
    /// `i32` expression clamped into `0..limit-1`.
    private Expr gather(DType dtype, boolean perRow) {
        int limit = 1 + random.nextInt(4);
        Expr index = new Expr.Binary(BinaryOp.MINIMUM, new Expr.Binary(BinaryOp.MAXIMUM, expression(DType.I32, 2, perRow), new Expr.Constant(0, DType.I32)),
                new Expr.Constant(limit - 1, DType.I32));
        var layout = layout(perRow, 0.2);
        inputs.add(new Kernel.Input(dtype, layout.size() * limit, layout.map()));
        int first = space.rank() - reducedRank;
        rowInvariant.add(IntStream.range(first, space.rank()).allMatch(axis -> layout.map().stride(axis) == 0));
        return new Expr.Gather(inputs.size() - 1, index, layout.size(), limit, dtype);
    }

    private double constant(DType dtype) {
        return switch (dtype) {
            case BOOL -> random.nextInt(2);
            case I32 -> random.nextInt(9) - 4;
            case F32, F64 -> random.nextInt(8) == 0 ? any(RandomData.SPECIAL) : Math.round(random.nextGaussian() * 8) / 4.0;
        };
    }

    /// An input of `dtype`: an existing one, or a new one with a random index map.
    private int input(DType dtype, boolean perRow) {
        var fits = IntStream.range(0, inputs.size()).filter(i -> inputs.get(i).dtype() == dtype && (!perRow || rowInvariant.get(i))).toArray();
        if (fits.length > 0 && (random.nextInt(10) < 6 || inputs.size() >= MAX_INPUTS)) return fits[random.nextInt(fits.length)];
        var layout = layout(perRow, 0.2);
        inputs.add(new Kernel.Input(dtype, layout.size(), layout.map()));
        int first = space.rank() - reducedRank;
        rowInvariant.add(IntStream.range(first, space.rank()).allMatch(axis -> layout.map().stride(axis) == 0));
        return inputs.size() - 1;
    }

    private record Layout(IndexMap map, int size) {}

    /// A random index map over the space and the smallest buffer it fits, plus a little slack. The
    /// axes are laid out in random order with strides and padding; some are broadcast (always the
    /// reduced ones when `perRow`), some flipped.
    private Layout layout(boolean perRow, double broadcastChance) {
        int rank = space.rank(), firstReduced = rank - reducedRank;
        var order = new ArrayList<Integer>(IntStream.range(0, rank).boxed().toList());
        if (columns && random.nextInt(20) > 0) Collections.rotate(order, reducedRank);  // reduced axes outermost
        else if (random.nextInt(10) < 3) Collections.shuffle(order, random);
        long[] strides = new long[rank];
        long extent = 1;
        for (int i = rank - 1; i >= 0; i--) {
            int axis = order.get(i);
            if (perRow && axis >= firstReduced || random.nextDouble() < broadcastChance) continue;
            int step = random.nextInt(columns ? 30 : 8) == 0 ? 2 + random.nextInt(2) : 1, padding = random.nextInt(8) == 0 ? 1 + random.nextInt(2) : 0;
            strides[axis] = extent * step;
            extent *= (long) Math.max(space.dim(axis), 1) * step + padding;
        }
        long offset = random.nextInt(4), reach = 0;
        for (int axis = 0; axis < rank; axis++) {
            long span = (long) Math.max(space.dim(axis) - 1, 0) * strides[axis];
            if (strides[axis] != 0 && random.nextInt(columns ? 30 : 10) == 0) {
                offset += span;
                strides[axis] = -strides[axis];
            } else reach += span;
        }
        var map = new IndexMap(Math.toIntExact(offset), Arrays.stream(strides).mapToInt(Math::toIntExact).boxed().toList());
        return new Layout(map, Math.toIntExact(offset + reach + 1 + random.nextInt(3)));
    }

    @SafeVarargs
    private <T> T any(T... choices) { return choices[random.nextInt(choices.length)]; }

    private double any(double[] choices) { return choices[random.nextInt(choices.length)]; }
}
