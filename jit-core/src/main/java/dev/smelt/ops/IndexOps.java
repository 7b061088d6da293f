// SPDX-License-Identifier: Apache-2.0
package dev.smelt.ops;

import dev.smelt.ir.DType;
import dev.smelt.ir.IndexBounds;
import dev.smelt.ir.Node;
import dev.smelt.ir.Shape;
import dev.smelt.ir.SmeltException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/// Gather, index select, scatter and the functional updates: argument checks, then graph nodes
/// whose `i32` indices carry an index check, so eager and compiled calls fail alike on an index out
/// of range. Negative indices are out of range, as PyTorch's `gather` and `index_select` have them.
public final class IndexOps {
    private IndexOps() {}

    public static Value gather(Value x, int axis, Value index) {
        Ops.nonNull("gather", x, index);
        int a = indexed("gather", x, axis, index, index.shape());
        requireRoom("gather", x, a, index);
        return Dispatch.apply("gather", List.of(x, index), (b, in) ->
                b.gather(in.get(0), a, b.indexCheck(in.get(1), new IndexBounds("gather", "index", x.dim(a)))));
    }

    public static Value indexSelect(Value x, int axis, Value index) {
        Ops.nonNull("indexSelect", x, index);
        int a = axisOf("indexSelect", x, axis);
        requireIndices("indexSelect", index, index.rank() <= 1, "a 1-d");
        requireRoom("indexSelect", x, a, index);
        Shape shape = x.shape().with(a, index.size());
        return Dispatch.apply("indexSelect", List.of(x, index), (b, in) -> {
            Node checked = b.indexCheck(in.get(1), new IndexBounds("indexSelect", "index", x.dim(a)));
            return b.gather(in.get(0), a, b.broadcast(b.reshape(checked, along(shape.rank(), a, index.size())), shape));
        });
    }

    public static Value scatter(String op, Value x, int axis, Value index, Value src, boolean add) {
        Ops.nonNull(op, x, index, src);
        int a = indexed(op, x, axis, index, src.shape());
        requireRoom(op, x, a, index);
        if (add && x.dtype() == DType.BOOL) throw SmeltException.of(op, "cannot add bool tensors; convert with to(DType.I32) first");
        return Dispatch.apply(op, List.of(x, index, src), (b, in) -> b.scatter(in.get(0), a,
                b.indexCheck(in.get(1), new IndexBounds(op, "index", x.dim(a))), b.cast(in.get(2), x.dtype()), add));
    }

    public static Value indexPut(Value x, int axis, Value index, Value values) {
        Ops.nonNull("indexPut", x, index, values);
        int a = axisOf("indexPut", x, axis);
        requireIndices("indexPut", index, index.rank() <= 1, "a 1-d");
        requireRoom("indexPut", x, a, index);
        Shape shape = x.shape().with(a, index.size());
        return Dispatch.apply("indexPut", List.of(x, index, values), (b, in) -> {
            Node checked = b.indexCheck(in.get(1), new IndexBounds("indexPut", "index", x.dim(a)));
            Node spread = b.broadcast(b.reshape(checked, along(shape.rank(), a, index.size())), shape);
            Shape given = Builder.broadcastShapes("indexPut", in.get(2).shape(), shape);
            if (!given.equals(shape)) throw SmeltException.of("indexPut", "values %s do not broadcast to %s", values.shape(), shape);
            return b.scatter(in.get(0), a, spread, b.broadcast(b.cast(in.get(2), x.dtype()), shape), false);
        });
    }

    public static Value sliceUpdate(Value x, int axis, int start, Value value) {
        Ops.nonNull("sliceUpdate", x, value);
        int a = axisOf("sliceUpdate", x, axis);
        int from = start < 0 ? start + x.dim(a) : start;
        int length = requireSlice(x, a, value);
        if (from < 0 || from > x.dim(a) - length)
            throw SmeltException.of("sliceUpdate", "start %d with %d elements does not fit axis %d of %s", start, length, axis, x.shape());
        return Dispatch.apply("sliceUpdate", List.of(x, value), (b, in) ->
                b.sliceUpdate(in.get(0), a, b.constant(from, Shape.SCALAR, DType.I32), b.cast(in.get(1), x.dtype())));
    }

    public static Value sliceUpdate(Value x, int axis, Value start, Value value) {
        Ops.nonNull("sliceUpdate", x, start, value);
        int a = axisOf("sliceUpdate", x, axis);
        requireIndices("sliceUpdate", start, start.rank() == 0, "a 0-d");
        int length = requireSlice(x, a, value);
        return Dispatch.apply("sliceUpdate", List.of(x, start, value), (b, in) -> b.sliceUpdate(in.get(0), a,
                b.indexCheck(in.get(1), new IndexBounds("sliceUpdate", "start", x.dim(a) - length + 1)), b.cast(in.get(2), x.dtype())));
    }

    // The axis, after checking an index of x's rank, no larger than `region` and x off the axis.
    private static int indexed(String op, Value x, int axis, Value index, Shape region) {
        int a = axisOf(op, x, axis);
        requireIndices(op, index, index.rank() == x.rank(), "an index of rank " + x.rank() + ", a");
        if (!index.shape().equals(region)) throw SmeltException.of(op, "index %s and source %s must have one shape", index.shape(), region);
        for (int d = 0; d < x.rank(); d++)
            if (d != a && index.dim(d) > x.dim(d))
                throw SmeltException.of(op, "index %s is larger than the tensor %s on axis %d", index.shape(), x.shape(), d);
        return a;
    }

    /// No index is in range of an empty axis, so any index there is refused where the op is called:
    /// its index check would come too late (a gather's kernel cannot be built over an empty
    /// table, and a scatter into an empty result does no work, so its check was dropped with it).
    private static void requireRoom(String op, Value x, int axis, Value index) {
        if (x.dim(axis) == 0 && index.size() > 0)
            throw SmeltException.of(op, "axis %d of %s%s is empty, so no index is in range; got %d indices %s, expected none",
                    axis, x.dtype(), x.shape(), index.size(), index.shape());
    }

    private static int axisOf(String op, Value x, int axis) {
        if (x.rank() == 0) throw SmeltException.of(op, "needs at least one axis, got a 0-d tensor");
        return Builder.axis(op, axis, x.rank());
    }

    private static void requireIndices(String op, Value index, boolean rankFits, String what) {
        if (index.dtype() != DType.I32) throw SmeltException.of(op, "indices must be i32, not %s", index.dtype());
        if (!rankFits) throw SmeltException.of(op, "needs %s i32 tensor of indices, got %s", what, index.shape());
    }

    // The slice's length along `axis`, once value has x's rank and sizes off the axis.
    private static int requireSlice(Value x, int axis, Value value) {
        if (value.rank() != x.rank() || !value.shape().with(axis, 0).equals(x.shape().with(axis, 0)) || value.dim(axis) > x.dim(axis))
            throw SmeltException.of("sliceUpdate", "value %s does not fit a slice of %s along axis %d", value.shape(), x.shape(), axis);
        return value.dim(axis);
    }

    // [1, …, n, …, 1]: n along `axis`.
    private static Shape along(int rank, int axis, int n) {
        var dims = new ArrayList<>(Collections.nCopies(rank, 1));
        dims.set(axis, n);
        return new Shape(dims);
    }
}
