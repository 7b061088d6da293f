// SPDX-License-Identifier: Apache-2.0
package dev.smelt.ops;

import dev.smelt.ir.Node;
import dev.smelt.ir.Shape;
import dev.smelt.ir.SmeltException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/// View operations. Eagerly they return a tensor over the same storage with new shape, strides and
/// offset; traced they record view nodes (index maps, never copies).
public final class Views {
    private Views() {}

    public static Value reshape(Value x, int[] requested) {
        Ops.nonNull("reshape", x, requested);
        Shape shape = inferShape(x.shape(), requested);
        if (Dispatch.isRecording(List.of(x))) return record("reshape", x, (b, n) -> b.reshape(n, shape));
        Value dense = isContiguous(x) ? x : contiguous(x);
        return new Value(dense.storage(), shape, shape.contiguousStrides(), dense.offset());
    }

    // One -1 is inferred from the element count, as in PyTorch.
    private static Shape inferShape(Shape from, int[] requested) {
        int inferred = -1;
        long known = 1; // a product of ints below 2^31 each, capped at the element count, cannot overflow
        for (int axis = 0; axis < requested.length; axis++) {
            if (requested[axis] == -1 && inferred < 0) inferred = axis;
            else if (requested[axis] < 0) throw SmeltException.of("reshape", "invalid size %d in %s; sizes are ≥ 0 with at most one -1", requested[axis], Arrays.toString(requested));
            else known = Math.min(known * requested[axis], from.size() + 1L);
        }
        int[] dims = requested.clone();
        if (inferred >= 0) {
            if (known == 0 || from.size() % known != 0)
                throw SmeltException.of("reshape", "cannot infer -1 in %s for %s (%d elements)", Arrays.toString(requested), from, from.size());
            dims[inferred] = (int) (from.size() / known);
        }
        Shape shape = Creation.shape("reshape", dims);
        if (shape.size() != from.size())
            throw SmeltException.of("reshape", "cannot reshape %s (%d elements) to %s (%d elements); expected the same element count", from, from.size(), shape, shape.size());
        return shape;
    }

    public static Value permute(Value x, int[] order) {
        Ops.nonNull("permute", x, order);
        int rank = x.rank();
        if (order.length != rank) throw SmeltException.of("permute", "order %s has %d axes but the tensor %s has %d", Arrays.toString(order), order.length, x.shape(), rank);
        List<Integer> axes = new ArrayList<>();
        for (int axis : order) {
            int normalized = Builder.axis("permute", axis, rank);
            if (axes.contains(normalized)) throw SmeltException.of("permute", "axis %d appears twice in %s", axis, Arrays.toString(order));
            axes.add(normalized);
        }
        if (Dispatch.isRecording(List.of(x))) return record("permute", x, (b, n) -> b.permute(n, axes));
        int[] strides = new int[rank];
        for (int i = 0; i < rank; i++) strides[i] = x.strides()[axes.get(i)];
        return new Value(x.storage(), new Shape(axes.stream().map(x.shape().dims()::get).toList()), strides, x.offset());
    }

    public static Value transpose(Value x, int axis0, int axis1) {
        Ops.nonNull("transpose", x);
        if (x.rank() < 2) throw SmeltException.of("transpose", "needs at least two axes, got %s", x.shape());
        int[] order = java.util.stream.IntStream.range(0, x.rank()).toArray();
        int a = Builder.axis("transpose", axis0, x.rank()), c = Builder.axis("transpose", axis1, x.rank());
        order[a] = c;
        order[c] = a;
        return permute(x, order);
    }

    public static Value expand(Value x, int[] dims) {
        Ops.nonNull("expand", x, dims);
        Shape target = Creation.shape("expand", kept(x, dims));
        int extra = target.rank() - x.rank();
        if (extra < 0) throw SmeltException.of("expand", "cannot expand %s to fewer axes %s", x.shape(), target);
        for (int axis = 0; axis < x.rank(); axis++)
            if (x.shape().dim(axis) != 1 && x.shape().dim(axis) != target.dim(axis + extra))
                throw SmeltException.of("expand", "cannot expand %s to %s: axis %d has size %d; expected %d or 1", x.shape(), target, axis, x.shape().dim(axis), target.dim(axis + extra));
        if (Dispatch.isRecording(List.of(x))) return record("expand", x, (b, n) -> b.broadcast(n, target));
        return expandConcrete(x, target);
    }

    /// `dims` with each -1 replaced by x's size on that axis (PyTorch's "keep this size"); a -1 on a
    /// new leading axis has no size to keep.
    private static int[] kept(Value x, int[] dims) {
        int[] sizes = dims.clone();
        int extra = dims.length - x.rank();
        for (int i = 0; i < sizes.length; i++) {
            if (sizes[i] != -1) continue;
            if (i < extra) throw SmeltException.of("expand", "size -1 (keep) on new leading axis %d of %s; expected a size", i, Arrays.toString(dims));
            sizes[i] = x.shape().dim(i - extra);
        }
        return sizes;
    }

    /// The eager half of [#expand], for a concrete `x` and a `target` it broadcasts to: a view
    /// with stride 0 on the repeated axes. It never records, even while a trace is bound.
    static Value expandConcrete(Value x, Shape target) {
        int extra = target.rank() - x.rank();
        int[] strides = new int[target.rank()];
        for (int axis = 0; axis < x.rank(); axis++)
            strides[axis + extra] = x.shape().dim(axis) == target.dim(axis + extra) ? x.strides()[axis] : 0;
        return new Value(x.storage(), target, strides, x.offset());
    }

    public static Value slice(Value x, int axis, int start, int stop, int step) {
        Ops.nonNull("slice", x);
        int a = Builder.axis("slice", axis, x.rank()), size = x.shape().dim(a);
        int from = start < 0 ? start + size : start, to = stop < 0 ? stop + size : stop;
        if (from < 0 || from > size || to < 0 || to > size || step < 1)
            throw SmeltException.of("slice", "%d:%d:%d is out of range for axis %d of %s; expected indices in [-%d, %d] and step ≥ 1", start, stop, step, axis, x.shape(), size, size);
        int end = Math.max(from, to);
        // A step past the range takes one element: so stated, the stride below cannot overflow an int.
        int by = Math.min(step, Math.max(1, end - from));
        if (Dispatch.isRecording(List.of(x))) return record("slice", x, (b, n) -> b.slice(n, a, from, end, by));
        int[] strides = x.strides().clone();
        strides[a] *= by;
        Shape shape = x.shape().with(a, end == from ? 0 : (end - from - 1) / by + 1); // ⌈(end-from)/by⌉, no int overflow
        return new Value(x.storage(), shape, strides, x.offset() + (shape.size() == 0 ? 0 : from * x.strides()[a]));
    }

    public static Value squeeze(Value x, int[] axes) {
        Ops.nonNull("squeeze", x, axes);
        List<Integer> chosen = axes.length == 0 ? null : Builder.axes("squeeze", axes, x.rank());
        var keep = new ArrayList<Integer>();
        for (int axis = 0; axis < x.rank(); axis++) {
            boolean asked = chosen == null ? x.shape().dim(axis) == 1 : chosen.contains(axis);
            if (asked && x.shape().dim(axis) != 1) throw SmeltException.of("squeeze", "axis %d of %s has size %d, not 1", axis, x.shape(), x.shape().dim(axis));
            if (!asked) keep.add(axis);
        }
        return select("squeeze", x, keep, -1);
    }

    public static Value unsqueeze(Value x, int axis) {
        Ops.nonNull("unsqueeze", x);
        int at = Builder.axis("unsqueeze", axis, x.rank() + 1);
        var keep = new ArrayList<Integer>();
        for (int i = 0; i < x.rank(); i++) keep.add(i);
        return select("unsqueeze", x, keep, at);
    }

    // Keeps the listed axes and, when `insertAt` ≥ 0, adds a size-1 axis there; a view either way.
    private static Value select(String name, Value x, List<Integer> keep, int insertAt) {
        var dims = new ArrayList<Integer>();
        var strides = new ArrayList<Integer>();
        for (int axis : keep) {
            dims.add(x.shape().dim(axis));
            strides.add(x.isTraced() ? 0 : x.strides()[axis]);
        }
        if (insertAt >= 0) {
            dims.add(insertAt, 1);
            strides.add(insertAt, 0);
        }
        Shape shape = new Shape(dims);
        if (Dispatch.isRecording(List.of(x))) return record(name, x, (b, n) -> b.reshape(n, shape));
        return new Value(x.storage(), shape, strides.stream().mapToInt(Integer::intValue).toArray(), x.offset());
    }

    public static Value flatten(Value x, int startAxis, int endAxis) {
        Ops.nonNull("flatten", x);
        // A 0-d tensor flattens to one element, and its axes are checked as a vector's, as in PyTorch.
        int from = Builder.axis("flatten", startAxis, Math.max(1, x.rank())), to = Builder.axis("flatten", endAxis, Math.max(1, x.rank()));
        if (x.rank() == 0) return reshape(x, new int[] {1});
        if (from > to) throw SmeltException.of("flatten", "start axis %d comes after end axis %d", startAxis, endAxis);
        var dims = new ArrayList<Integer>(x.shape().dims().subList(0, from));
        long length = Builder.count(x.shape().dims().subList(from, to + 1)); // past an int only when the tensor is empty
        if (length > Value.MAX_SIZE) throw Builder.tooLarge("flatten", x.shape().dims().subList(from, to + 1), " (axes %d..%d of %s, as one axis)".formatted(from, to, x.shape()));
        dims.add((int) length);
        dims.addAll(x.shape().dims().subList(to + 1, x.rank()));
        return reshape(x, dims.stream().mapToInt(Integer::intValue).toArray());
    }

    public static Value contiguous(Value x) {
        if (x.isTraced() || isContiguous(x)) return x;
        return Value.dense(Dispatch.dense(x), x.shape());
    }

    /// Whether `x` is its whole storage in row-major order: its storage's array is its elements.
    public static boolean isDense(Value x) {
        return x.offset() == 0 && x.storage().size() == x.size() && isContiguous(x);
    }

    /// Whether the elements are dense and in row-major order (size-1 axes may have any stride).
    public static boolean isContiguous(Value x) {
        int expected = 1;
        for (int axis = x.rank() - 1; axis >= 0; axis--) {
            int dim = x.shape().dim(axis);
            if (dim == 0) return true;
            if (dim != 1 && x.strides()[axis] != expected) return false;
            expected *= dim;
        }
        return true;
    }

    private static Value record(String name, Value x, java.util.function.BiFunction<Builder, Node, Node> view) {
        return Dispatch.apply(name, List.of(x), (b, in) -> view.apply(b, in.getFirst()));
    }

    public static List<Value> split(Value x, int size, int axis) {
        Ops.nonNull("split", x);
        int normalized = Builder.axis("split", axis, x.rank()), length = x.dim(normalized);
        if (size <= 0) throw SmeltException.of("split", "piece size must be positive, got %d", size);
        var pieces = new ArrayList<Value>();
        for (int start = 0; start < length; start += size) pieces.add(slice(x, normalized, start, Math.min(length, start + size), 1));
        if (pieces.isEmpty()) pieces.add(x); // an empty axis splits into one empty piece, as in PyTorch
        return List.copyOf(pieces);
    }

    public static List<Value> chunk(Value x, int chunks, int axis) {
        Ops.nonNull("chunk", x);
        if (chunks <= 0) throw SmeltException.of("chunk", "number of chunks must be positive, got %d", chunks);
        int length = x.dim(Builder.axis("chunk", axis, x.rank()));
        return split(x, Math.max(1, (length + chunks - 1) / chunks), axis);
    }
}
