// SPDX-License-Identifier: Apache-2.0
package dev.smelt.ref;

import dev.smelt.ir.DType;
import dev.smelt.ir.Graph;
import dev.smelt.ir.Node;
import dev.smelt.ir.Node.Binary;
import dev.smelt.ir.Node.Cast;
import dev.smelt.ir.Node.Concat;
import dev.smelt.ir.Node.Constant;
import dev.smelt.ir.Node.Expand;
import dev.smelt.ir.Node.IndexCheck;
import dev.smelt.ir.Node.Input;
import dev.smelt.ir.Node.Iota;
import dev.smelt.ir.Node.MatMul;
import dev.smelt.ir.Node.Permute;
import dev.smelt.ir.Node.Reduce;
import dev.smelt.ir.Node.Reshape;
import dev.smelt.ir.Node.Slice;
import dev.smelt.ir.Node.Unary;
import dev.smelt.ir.Node.Where;
import dev.smelt.ir.Shape;
import dev.smelt.ir.Storage;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;

/// Op-by-op evaluation of the graph IR: the oracle every compiled kernel is tested against.
///
/// Each node's value is a fresh contiguous row-major [Storage] of its dtype and shape. Floating
/// results are computed in double and rounded once to the dtype; `i32` arithmetic wraps like Java's
/// `int`. Floating sums, products and matmul accumulate in double, in index order. An output that
/// is a graph input is returned as the caller's storage itself.
public final class Interpreter {
    private Interpreter() {}

    /// Evaluates `graph` on `inputs` (one storage per input slot) and returns its outputs in order.
    /// Throws [IllegalArgumentException] when the inputs' count, dtypes or sizes do not match the graph's.
    /// A value is dropped after the last node that reads it, so memory holds the live values only,
    /// not every intermediate: a test's error-bound graph has hundreds of nodes of its program's
    /// largest shape.
    public static List<Storage> run(Graph graph, List<Storage> inputs) {
        checkInputs(graph, inputs);
        List<Node> nodes = graph.nodes();
        var lastReader = new IdentityHashMap<Node, Integer>();
        for (int i = 0; i < nodes.size(); i++)
            for (Node input : nodes.get(i).inputs()) lastReader.put(input, i);
        for (Node output : graph.outputs()) lastReader.put(output, nodes.size());
        var values = new IdentityHashMap<Node, Storage>();
        for (int i = 0; i < nodes.size(); i++) {
            Node node = nodes.get(i);
            Storage value = evaluate(node, values, inputs);
            if (lastReader.containsKey(node)) values.put(node, value); // else read by nothing
            for (Node input : node.inputs())
                if (lastReader.get(input) == i) values.remove(input);
        }
        return graph.outputs().stream().map(values::get).toList();
    }

    private static void checkInputs(Graph graph, List<Storage> inputs) {
        if (inputs.size() != graph.inputs().size())
            throw new IllegalArgumentException("expected %d inputs, got %d".formatted(graph.inputs().size(), inputs.size()));
        for (int slot = 0; slot < inputs.size(); slot++) {
            Input input = graph.inputs().get(slot);
            Storage storage = inputs.get(slot);
            if (storage.dtype() != input.dtype() || storage.size() != input.shape().size())
                throw new IllegalArgumentException("input %%%d: expected %s%s (%d elements), got %s with %d".formatted(
                        slot, input.dtype(), input.shape(), input.shape().size(), storage.dtype(), storage.size()));
        }
    }

    private static Storage evaluate(Node node, Map<Node, Storage> values, List<Storage> inputs) {
        return switch (node) {
            case Input input -> inputs.get(input.slot());
            case Constant constant -> constant(constant);
            case Iota iota -> iota(iota);
            case Unary unary -> unary(unary, values.get(unary.x()));
            case Binary binary -> binary(binary, values.get(binary.left()), values.get(binary.right()));
            case Where where -> where(where, values.get(where.condition()), values.get(where.ifTrue()), values.get(where.ifFalse()));
            case Cast cast -> convert(values.get(cast.x()), cast.dtype());
            case IndexCheck check -> checked(check, values.get(check.x()));
            case Reduce reduce -> Reduction.evaluate(reduce, values.get(reduce.x()));
            case MatMul matMul -> matMul(matMul, values.get(matMul.a()), values.get(matMul.b()));
            case Reshape reshape -> convert(values.get(reshape.x()), reshape.dtype()); // same row-major order: a copy
            case Permute permute -> permute(permute, values.get(permute.x()));
            case Expand expand -> expand(expand, values.get(expand.x()));
            case Slice slice -> slice(slice, values.get(slice.x()));
            case Concat concat -> concat(concat, concat.parts().stream().map(values::get).toList());
            case Node.Random random -> random(random, values.get(random.key()));
            case Node.Gather gather -> Indexing.gather(gather, values.get(gather.x()), values.get(gather.index()));
            case Node.Scatter scatter -> Indexing.scatter(scatter, values.get(scatter.x()), values.get(scatter.index()), values.get(scatter.src()));
            case Node.SliceUpdate update -> Indexing.sliceUpdate(update, values.get(update.x()), values.get(update.start()), values.get(update.value()));
            case Node.ArgSort sort -> Indexing.argsort(sort, values.get(sort.x()));
            case Node.Attention attention -> attention(attention, attention.operands().stream().map(values::get).toList());
        };
    }

    // Attention the plain way: the scores, their softmax and the products, one op after another
    // (AttentionMath.expand), over the operands' values.
    private static Storage attention(Node.Attention attention, List<Storage> operands) {
        var inputs = new java.util.ArrayList<Input>();
        for (Node operand : attention.operands()) inputs.add(new Input(inputs.size(), operand.shape(), operand.dtype()));
        Node plain = dev.smelt.ir.AttentionMath.expand((Node.Attention) attention.withInputs(List.copyOf(inputs)));
        return run(new Graph(inputs, List.of(plain)), operands).getFirst();
    }

    // Element i is distribution.sample(key, i), rounded once by Storage.set.
    private static Storage random(Node.Random random, Storage key) {
        long stream = Node.Random.key((int) key.get(0), (int) key.get(1));
        var result = Storage.allocate(random.dtype(), random.shape().size());
        for (int i = 0; i < result.size(); i++) result.set(i, random.distribution().sample(stream, i, random.dtype()));
        return result;
    }

    private static Storage checked(IndexCheck check, Storage indices) {
        check.bounds().check((int[]) indices.array());
        return indices;
    }

    private static Storage constant(Constant constant) {
        var result = Storage.allocate(constant.dtype(), constant.shape().size());
        for (int i = 0; i < result.size(); i++) result.set(i, constant.value());
        return result;
    }

    private static Storage iota(Iota iota) {
        int[] coordinates = Strides.coordinates(iota.shape(), iota.axis());
        var result = Storage.allocate(iota.dtype(), coordinates.length);
        for (int i = 0; i < coordinates.length; i++) result.set(i, coordinates[i]);
        return result;
    }

    // f32/f64: op.apply in double, rounded once by Storage.set; i32: op.applyInt.
    private static Storage unary(Unary unary, Storage x) {
        var result = Storage.allocate(unary.dtype(), x.size());
        var op = unary.op();
        boolean integer = unary.dtype() == DType.I32;
        for (int i = 0; i < x.size(); i++)
            result.set(i, integer ? op.applyInt((int) x.get(i)) : op.apply(x.get(i)));
        return result;
    }

    // Comparisons are exact in double for every dtype and give 0 or 1; i32 arithmetic wraps.
    private static Storage binary(Binary binary, Storage left, Storage right) {
        var result = Storage.allocate(binary.dtype(), left.size());
        var op = binary.op();
        boolean integer = binary.left().dtype() == DType.I32 && !op.isComparison();
        for (int i = 0; i < left.size(); i++)
            result.set(i, integer ? op.applyInt((int) left.get(i), (int) right.get(i)) : op.apply(left.get(i), right.get(i)));
        return result;
    }

    private static Storage where(Where where, Storage condition, Storage ifTrue, Storage ifFalse) {
        var result = Storage.allocate(where.dtype(), condition.size());
        for (int i = 0; i < condition.size(); i++)
            result.set(i, condition.get(i) != 0 ? ifTrue.get(i) : ifFalse.get(i));
        return result;
    }

    // Storage.set converts: to bool x != 0 (NaN is true), to i32 (int) (long) x (NaN is 0), to floats rounds.
    private static Storage convert(Storage x, DType dtype) {
        var result = Storage.allocate(dtype, x.size());
        for (int i = 0; i < x.size(); i++) result.set(i, x.get(i));
        return result;
    }

    // out[batch, i, j] = Σₚ a[batch, i, p] · b[batch, p, j], in double in p order, rounded once.
    // Element (i, p) of a is at i·k + p, or at p·m + i when transposed; likewise for b.
    private static Storage matMul(MatMul matMul, Storage a, Storage b) {
        Shape shape = matMul.shape();
        int rank = shape.rank();
        int m = shape.dim(rank - 2), n = shape.dim(rank - 1);
        int k = matMul.a().shape().dim(rank - (matMul.transposeA() ? 2 : 1));
        int batches = new Shape(shape.dims().subList(0, rank - 2)).size();
        int aRow = matMul.transposeA() ? 1 : k, aStep = matMul.transposeA() ? m : 1;
        int bColumn = matMul.transposeB() ? k : 1, bStep = matMul.transposeB() ? 1 : n;
        var result = Storage.allocate(matMul.dtype(), shape.size());
        for (int batch = 0; batch < batches; batch++)
            for (int i = 0; i < m; i++)
                for (int j = 0; j < n; j++)
                    result.set((batch * m + i) * n + j, dot(k,
                            a, batch * m * k + i * aRow, aStep,
                            b, batch * k * n + j * bColumn, bStep));
        return result;
    }

    private static double dot(int length, Storage a, int aStart, int aStep, Storage b, int bStart, int bStep) {
        double sum = 0;
        for (int p = 0; p < length; p++) sum += a.get(aStart + p * aStep) * b.get(bStart + p * bStep);
        return sum;
    }

    // Output axis i reads input axis order[i].
    private static Storage permute(Permute permute, Storage x) {
        int[] inputStrides = permute.x().shape().contiguousStrides();
        int[] strides = permute.order().stream().mapToInt(axis -> inputStrides[axis]).toArray();
        return gather(x, Strides.offsets(permute.shape(), strides, 0), permute.dtype());
    }

    // A size-1 input axis is read with stride 0.
    private static Storage expand(Expand expand, Storage x) {
        Shape input = expand.x().shape();
        int[] strides = input.contiguousStrides();
        for (int axis = 0; axis < strides.length; axis++)
            if (input.dim(axis) == 1) strides[axis] = 0;
        return gather(x, Strides.offsets(expand.shape(), strides, 0), expand.dtype());
    }

    private static Storage slice(Slice slice, Storage x) {
        int[] strides = slice.x().shape().contiguousStrides();
        int base = slice.start() * strides[slice.axis()];
        strides[slice.axis()] *= slice.step();
        return gather(x, Strides.offsets(slice.shape(), strides, base), slice.dtype());
    }

    // Each part is written at its base along the axis, with the output's strides.
    private static Storage concat(Concat concat, List<Storage> parts) {
        var result = Storage.allocate(concat.dtype(), concat.shape().size());
        int[] strides = concat.shape().contiguousStrides();
        int start = 0;
        for (int part = 0; part < parts.size(); part++) {
            Shape shape = concat.parts().get(part).shape();
            int[] targets = Strides.offsets(shape, strides, start * strides[concat.axis()]);
            for (int i = 0; i < targets.length; i++) result.set(targets[i], parts.get(part).get(i));
            start += shape.dim(concat.axis());
        }
        return result;
    }

    private static Storage gather(Storage x, int[] offsets, DType dtype) {
        var result = Storage.allocate(dtype, offsets.length);
        for (int i = 0; i < offsets.length; i++) result.set(i, x.get(offsets[i]));
        return result;
    }
}
