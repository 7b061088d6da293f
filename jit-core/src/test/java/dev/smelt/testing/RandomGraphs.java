// SPDX-License-Identifier: Apache-2.0
package dev.smelt.testing;

import dev.smelt.ir.BinaryOp;
import dev.smelt.ir.DType;
import dev.smelt.ir.Distribution;
import dev.smelt.ir.Graph;
import dev.smelt.ir.Node;
import dev.smelt.ir.ReduceOp;
import dev.smelt.ir.Shape;
import dev.smelt.ir.Storage;
import dev.smelt.ir.UnaryOp;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.function.Predicate;
import java.util.stream.IntStream;

/// Random well-typed graphs and input data for property tests, the same for the same seed.
///
/// A graph has one to three inputs of rank 0–4 and every dtype, then `size` random steps that each
/// add a node of a random kind (every [Node] kind and every operator occurs), picking operands
/// mostly among the newest nodes, so chains form, and otherwise anywhere, so nodes fan out. The
/// graph returns every node that nothing else uses. Operands that do not fit are adapted first
/// (cast, reshape, permute), never caught: every node is valid as built. Nodes are hash-consed as
/// the tracer does, so the graph prints canonically. Dimensions are mostly 1–5, sometimes 0 or 7;
/// a node above [#MAX_ELEMENTS] elements is dropped.
public final class RandomGraphs {
    /// Bounds every node's element count, which keeps interpreter runs of random graphs quick.
    public static final int MAX_ELEMENTS = 1024;

    private static final double[] SPECIAL_FLOATS = {Double.NaN, 0.0, -0.0, Double.POSITIVE_INFINITY,
        Double.NEGATIVE_INFINITY, Float.MIN_VALUE, -Float.MIN_VALUE, Float.MIN_NORMAL / 3, Float.MAX_VALUE,
        -Float.MAX_VALUE, 1.0, -1.0, 0.5};
    private static final double[] SPECIAL_DOUBLES = {Double.MIN_VALUE, Double.MIN_NORMAL / 3, Double.MAX_VALUE, -Double.MAX_VALUE};

    private enum Kind { CONSTANT, IOTA, UNARY, BINARY, WHERE, CAST, REDUCE, MATMUL, RESHAPE, PERMUTE, EXPAND, SLICE, CONCAT, RANDOM, GATHER, SCATTER, SLICE_UPDATE, ARGSORT }

    private final Random random;
    private final List<Node> pool = new ArrayList<>();
    private final Map<Node, Node> canonical = new HashMap<>();

    private RandomGraphs(long seed) { random = new Random(seed); }

    public static Graph generate(long seed, int size) { return new RandomGraphs(seed).graph(size); }

    /// Data for each of `graph`'s inputs: about a quarter special values (NaN, ±0, ±∞, subnormals,
    /// the largest finite value) among normal floats, small integers for i32, 0 and 1 for bool.
    public static List<Storage> inputs(long seed, Graph graph) {
        var random = new Random(seed);
        return graph.inputs().stream().map(input -> {
            var storage = Storage.allocate(input.dtype(), input.shape().size());
            for (int index = 0; index < storage.size(); index++) storage.set(index, element(random, input.dtype()));
            return storage;
        }).toList();
    }

    private static double element(Random random, DType dtype) {
        return switch (dtype) {
            case BOOL -> random.nextInt(2);
            case I32 -> random.nextInt(17) - 8;
            case F32 -> random.nextInt(4) > 0 ? random.nextGaussian() * 2 : any(random, SPECIAL_FLOATS);
            case F64 -> random.nextInt(4) > 0 ? random.nextGaussian() * 2 : any(random, random.nextBoolean() ? SPECIAL_FLOATS : SPECIAL_DOUBLES);
        };
    }

    private Graph graph(int size) {
        var inputs = new ArrayList<Node.Input>();
        for (int slot = 0, count = 1 + random.nextInt(3); slot < count; slot++)
            inputs.add(new Node.Input(slot, randomShape(), any(DType.values())));
        pool.addAll(inputs);
        for (int step = 0; step < size; step++) {
            Node node = build(any(Kind.values()));
            if (node.shape().size() <= MAX_ELEMENTS) pool.add(node);
        }
        return new Graph(inputs, outputs());
    }

    /// Every node no other node uses, so that nothing built is dead (inputs may stay unused), and
    /// sometimes one more node from anywhere, which may be an input or a node used elsewhere too.
    private List<Node> outputs() {
        Set<Node> used = Collections.newSetFromMap(new IdentityHashMap<>());
        pool.forEach(node -> used.addAll(node.inputs()));
        var outputs = new ArrayList<Node>();
        for (Node node : pool)
            if (!used.contains(node) && !(node instanceof Node.Input) && !outputs.contains(node)) outputs.add(node);
        if (outputs.isEmpty() || random.nextInt(3) == 0) outputs.add(any(pool));
        return outputs;
    }

    private Node build(Kind kind) {
        return switch (kind) {
            case CONSTANT -> constant(random.nextBoolean() ? pick().shape() : randomShape(), any(DType.values()));
            case IOTA -> iota(atLeastRank(pick(), 1).shape(), any(List.of(DType.I32, DType.F32, DType.F64)));
            case UNARY -> unary(any(UnaryOp.values()), pick());
            case BINARY -> binary(any(BinaryOp.values()), pick());
            case WHERE -> where(pick());
            case CAST -> add(new Node.Cast(pick(), any(DType.values())));
            case REDUCE -> reduce(any(ReduceOp.values()), atLeastRank(numeric(pick()), 1));
            case MATMUL -> matmul(atLeastRank(floating(pick()), 2), random.nextBoolean(), random.nextBoolean());
            case RESHAPE -> reshape(pick());
            case PERMUTE -> permute(pick());
            case EXPAND -> expand(withUnitAxis(pick()));
            case SLICE -> slice(atLeastRank(pick(), 1));
            case CONCAT -> concat(atLeastRank(pick(), 1));
            // Keyed by a constant: every evaluation draws the same values, so the oracle can check them.
            case RANDOM -> add(new Node.Random(any(Distribution.values()), constant(Shape.of(2), DType.I32), randomShape(), any(List.of(DType.F32, DType.F64))));
            case GATHER -> gather(atLeastRank(pick(), 1));
            case SCATTER -> scatter(atLeastRank(pick(), 1));
            case SLICE_UPDATE -> sliceUpdate(atLeastRank(pick(), 1));
            case ARGSORT -> argsort(atLeastRank(numeric(pick()), 1));
        };
    }

    private Node gather(Node x) {
        int axis = random.nextInt(x.shape().rank());
        return add(new Node.Gather(x, axis, index(x.shape(), axis)));
    }

    private Node scatter(Node x) {
        int axis = random.nextInt(x.shape().rank());
        Node index = index(x.shape(), axis);
        Node src = partner(index.shape()::equals, index.shape(), x.dtype());
        return add(new Node.Scatter(x, axis, index, src, x.dtype() != DType.BOOL && random.nextBoolean()));
    }

    private Node argsort(Node x) { return add(new Node.ArgSort(x, random.nextInt(x.shape().rank()), random.nextBoolean())); }

    private Node sliceUpdate(Node x) {
        int axis = random.nextInt(x.shape().rank()), dim = x.shape().dim(axis), length = random.nextInt(dim + 1);
        Shape region = x.shape().with(axis, length);
        Node value = partner(region::equals, region, x.dtype());
        return add(new Node.SliceUpdate(x, axis, constant(Shape.SCALAR, dim - length, DType.I32), value));
    }

    /// An index into `shape` along `axis`, in range whatever the data: no larger than `shape` off the
    /// axis, its values an iota capped at the axis's last index, sometimes reversed, so it repeats.
    private Node index(Shape shape, int axis) {
        int dim = shape.dim(axis);
        var dims = new ArrayList<Integer>();
        for (int d = 0; d < shape.rank(); d++) dims.add(d == axis ? (dim == 0 ? 0 : random.nextInt(5)) : random.nextInt(shape.dim(d) + 1));
        Shape index = new Shape(dims);
        if (dim == 0 || index.count() == 0) return constant(index, 0, DType.I32);
        Node capped = add(new Node.Binary(BinaryOp.MINIMUM, iota(index, DType.I32), constant(index, dim - 1, DType.I32)));
        return random.nextBoolean() ? capped : add(new Node.Binary(BinaryOp.SUB, constant(index, dim - 1, DType.I32), capped));
    }

    private Node constant(Shape shape, double value, DType dtype) { return add(new Node.Constant(value, shape, dtype)); }

    private Node constant(Shape shape, DType dtype) {
        double value = switch (dtype) {
            case BOOL -> random.nextInt(2);
            case I32 -> random.nextInt(17) - 8;
            case F32, F64 -> random.nextInt(3) == 0 ? any(random, SPECIAL_FLOATS) : Math.round(random.nextGaussian() * 8) / 4.0;
        };
        return add(new Node.Constant(value, shape, dtype));
    }

    private Node iota(Shape shape, DType dtype) { return add(new Node.Iota(random.nextInt(shape.rank()), shape, dtype)); }

    private Node unary(UnaryOp op, Node x) {
        if (!(x.dtype().isFloating() || op.acceptsIntegers() && x.dtype() == DType.I32))
            x = cast(x, op.acceptsIntegers() && random.nextBoolean() ? DType.I32 : floatType());
        return add(new Node.Unary(op, x));
    }

    private Node binary(BinaryOp op, Node left) {
        if (!(left.dtype().isFloating() || op.acceptsIntegers() && left.dtype() != DType.BOOL || op.isComparison()))
            left = cast(left, op.acceptsIntegers() && random.nextBoolean() ? DType.I32 : floatType());
        Node right = random.nextInt(5) == 0 ? left : partner(left.shape()::equals, left.shape(), left.dtype());
        return add(new Node.Binary(op, left, right));
    }

    /// `where(x cmp y, a, b)`: the condition is a comparison, as the tracer produces masks.
    private Node where(Node x) {
        var comparisons = List.of(BinaryOp.EQ, BinaryOp.NE, BinaryOp.LT, BinaryOp.LE, BinaryOp.GT, BinaryOp.GE);
        Node condition = binary(any(comparisons), x);
        DType dtype = random.nextBoolean() ? x.dtype() : any(DType.values());
        return add(new Node.Where(condition, partner(x.shape()::equals, x.shape(), dtype), partner(x.shape()::equals, x.shape(), dtype)));
    }

    /// Sums, products and extremes over a random ascending set of axes (possibly none); arg
    /// reductions over one non-empty axis, since an empty one has no index (see `Verifier`).
    private Node reduce(ReduceOp op, Node x) {
        var nonEmpty = IntStream.range(0, x.shape().rank()).filter(axis -> x.shape().dim(axis) > 0).boxed().toList();
        if (op.isArg() && !nonEmpty.isEmpty()) return add(new Node.Reduce(op, x, List.of(any(nonEmpty))));
        var axes = IntStream.range(0, x.shape().rank()).filter(_ -> random.nextBoolean()).boxed().toList();
        return add(new Node.Reduce(op.isArg() ? ReduceOp.SUM : op, x, axes));
    }

    /// `a · b` where `b` is `a` itself (read transposed or not, so that K matches), or a node of
    /// the exact shape K and a random N call for.
    private Node matmul(Node a, boolean transposeA, boolean transposeB) {
        int rank = a.shape().rank();
        int k = a.shape().dim(rank - (transposeA ? 2 : 1)), n = randomDim();
        Shape shape = a.shape().with(rank - 2, transposeB ? n : k).with(rank - 1, transposeB ? k : n);
        Node b = random.nextInt(3) > 0 ? partner(shape::equals, shape, a.dtype())
                : transposeA != transposeB ? a : add(new Node.Permute(a, swapLastTwo(rank)));
        return add(new Node.MatMul(a, b, transposeA, transposeB));
    }

    /// A random shape of the same element count: the size's prime factors dealt out among the axes.
    private Node reshape(Node x) {
        int size = x.shape().size();
        int[] dims = new int[size == 1 ? random.nextInt(5) : 1 + random.nextInt(4)];
        java.util.Arrays.fill(dims, 1);
        if (size == 0) {
            for (int axis = 0; axis < dims.length; axis++) dims[axis] = randomDim();
            dims[random.nextInt(dims.length)] = 0;
        }
        for (int factor = 2, rest = size; rest > 1; factor++)
            for (; rest % factor == 0; rest /= factor) dims[random.nextInt(dims.length)] *= factor;
        return add(new Node.Reshape(x, Shape.of(dims)));
    }

    private Node permute(Node x) {
        var order = new ArrayList<>(IntStream.range(0, x.shape().rank()).boxed().toList());
        Collections.shuffle(order, random);
        return add(new Node.Permute(x, order));
    }

    /// Each size-1 axis of `x` kept or repeated to a random size (0 included).
    private Node expand(Node x) {
        var dims = new ArrayList<>(x.shape().dims());
        for (int axis = 0; axis < dims.size(); axis++)
            if (dims.get(axis) == 1 && random.nextBoolean()) dims.set(axis, randomDim());
        return add(new Node.Expand(x, new Shape(dims)));
    }

    private Node slice(Node x) {
        int axis = random.nextInt(x.shape().rank()), dim = x.shape().dim(axis);
        int start = random.nextInt(dim + 1), stop = start + random.nextInt(dim - start + 1);
        return add(new Node.Slice(x, axis, start, stop, 1 + random.nextInt(3)));
    }

    /// `x` joined with itself or with nodes that agree on every other axis (cast to its dtype).
    private Node concat(Node x) {
        int axis = random.nextInt(x.shape().rank());
        Shape others = x.shape().with(axis, 0);
        Predicate<Shape> fits = shape -> shape.rank() == others.rank() && shape.with(axis, 0).equals(others);
        var parts = new ArrayList<>(List.of(x));
        for (int count = random.nextInt(3); count > 0; count--)
            parts.add(random.nextInt(4) == 0 ? x : partner(fits, x.shape().with(axis, randomDim()), x.dtype()));
        Collections.shuffle(parts, random);
        return add(new Node.Concat(parts, axis));
    }

    /// An operand for a node that needs `dtype` and a shape that `fits`: usually a pool node
    /// (cast if need be), otherwise a constant or iota of the `fallback` shape.
    private Node partner(Predicate<Shape> fits, Shape fallback, DType dtype) {
        int start = random.nextInt(pool.size());
        for (int offset = 0; offset < pool.size(); offset++) {
            Node candidate = pool.get((start + offset) % pool.size());
            if (fits.test(candidate.shape()) && random.nextInt(4) > 0) return cast(candidate, dtype);
        }
        return fallback.rank() == 0 || dtype == DType.BOOL || random.nextBoolean() ? constant(fallback, dtype) : iota(fallback, dtype);
    }

    /// Mostly one of the four newest nodes, so that chains form; otherwise any node, for fan-out.
    private Node pick() { return random.nextBoolean() ? pool.get(Math.max(0, pool.size() - 1 - random.nextInt(4))) : any(pool); }

    private Node cast(Node x, DType dtype) { return x.dtype() == dtype ? x : add(new Node.Cast(x, dtype)); }

    private Node numeric(Node x) { return x.dtype() == DType.BOOL ? cast(x, any(List.of(DType.I32, DType.F32, DType.F64))) : x; }

    private Node floating(Node x) { return x.dtype().isFloating() ? x : cast(x, floatType()); }

    /// `x` with size-1 axes prepended up to `rank`.
    private Node atLeastRank(Node x, int rank) {
        if (x.shape().rank() >= rank) return x;
        var dims = new ArrayList<>(Collections.nCopies(rank - x.shape().rank(), 1));
        dims.addAll(x.shape().dims());
        return add(new Node.Reshape(x, new Shape(dims)));
    }

    /// `x` if it has a size-1 axis, else `x` reshaped to have one (merging the two outer axes at rank 4).
    private Node withUnitAxis(Node x) {
        var dims = new ArrayList<>(x.shape().dims());
        if (dims.contains(1)) return x;
        if (dims.size() == 4) {
            int outer = dims.removeFirst();
            dims.set(0, outer * dims.getFirst());
        }
        dims.add(random.nextInt(dims.size() + 1), 1);
        return add(new Node.Reshape(x, new Shape(dims)));
    }

    private Node add(Node node) {
        Node known = canonical.putIfAbsent(node, node);
        return known != null ? known : node;
    }

    /// Rank 0–4, at most [#MAX_ELEMENTS] elements.
    private Shape randomShape() {
        Shape shape;
        do shape = Shape.of(IntStream.range(0, random.nextInt(5)).map(_ -> randomDim()).toArray());
        while (shape.size() > MAX_ELEMENTS);
        return shape;
    }

    /// 1–5, with an occasional 0 or 7.
    private int randomDim() {
        int roll = random.nextInt(20);
        return roll == 0 ? 0 : roll == 1 ? 7 : 1 + roll % 5;
    }

    private DType floatType() { return random.nextBoolean() ? DType.F32 : DType.F64; }

    private static List<Integer> swapLastTwo(int rank) {
        var order = new ArrayList<>(IntStream.range(0, rank).boxed().toList());
        Collections.swap(order, rank - 2, rank - 1);
        return order;
    }

    private <T> T any(T[] values) { return values[random.nextInt(values.length)]; }

    private <T> T any(List<T> values) { return values.get(random.nextInt(values.size())); }

    private static double any(Random random, double[] values) { return values[random.nextInt(values.length)]; }
}
