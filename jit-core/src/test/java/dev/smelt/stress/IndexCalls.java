// SPDX-License-Identifier: Apache-2.0
package dev.smelt.stress;

import dev.smelt.ir.DType;
import dev.smelt.ir.Shape;
import dev.smelt.stress.Program.Value;
import java.util.ArrayList;
import java.util.List;

/// Indexing calls for [ProgramGenerator], every form `TensorIndexing` offers: gather, indexSelect,
/// scatterAdd, scatter, indexPut, sliceUpdate (an `int` start, negative included, and a 0-d tensor
/// one), argsort and topk (its values or its indices); and tril, triu and oneHot.
///
/// Indices are a captured `i32` tensor below the axis's size, repeats included (so scatters meet
/// them), or computed from the data: an argsort along the axis (a permutation) or an argmax with
/// keepDims (take-along-argmax), so compiled code also reads indices a kernel of its own computed.
final class IndexCalls {
    private IndexCalls() {}

    /// One of them; for a program to be differentiated ([ProgramGenerator#smooth]) only those with
    /// a gradient almost everywhere, their indices captured.
    static void index(ProgramGenerator g) {
        int x = g.smooth() ? g.as(g.pick(), DType.F64) : g.pick(); // an update casts its source to x's dtype: f32 would swamp central differences
        if (x < 0) return;
        Shape shape = g.shape(x);
        if (shape.rank() == 0) {
            if (g.dtype(x) == DType.I32 && !g.smooth()) oneHot(g, x);
            return;
        }
        int axis = g.random.nextInt(shape.rank());
        int roll = g.random.nextInt(g.smooth() ? 8 : 11);
        switch (g.smooth() && roll == 7 ? 8 : roll) { // smooth: no argsort or oneHot
            case 0, 1 -> gather(g, x, axis);
            case 2 -> indexSelect(g, x, axis);
            case 3, 4 -> scatter(g, x, axis);
            case 5 -> indexPut(g, x, axis);
            case 6 -> sliceUpdate(g, x, axis);
            case 7 -> argsort(g, x, signed(g, axis, shape.rank()));
            case 8 -> { if (shape.rank() >= 2) g.call(g.random.nextBoolean() ? "tril" : "triu", new Value(x), g.random.nextInt(7) - 3); }
            case 9 -> { if (g.dtype(x) != DType.BOOL) g.callPart(g.random.nextInt(2), "topk", new Value(x), g.random.nextInt(shape.dim(axis) + 1), signed(g, axis, shape.rank())); }
            default -> oneHot(g, x);
        }
    }

    /// `x.argsort(axis, descending)`, a bool `x` converted first (argsort wants numbers).
    private static int argsort(ProgramGenerator g, int x, int axis) {
        int numbers = g.dtype(x) == DType.BOOL ? g.as(x, DType.I32) : x;
        return numbers < 0 ? -1 : g.call("argsort", new Value(numbers), axis, g.random.nextBoolean());
    }

    /// `x.gather(axis, index)`: an index no larger than `x` off the axis, of any length along it.
    private static void gather(ProgramGenerator g, int x, int axis) {
        Shape shape = g.shape(x);
        Object index = computed(g, x, axis);
        if (index == null) {
            Shape region = region(g, shape, axis);
            index = g.fits(region) ? g.indices(region, shape.dim(axis)) : null;
        }
        if (index != null) g.call("gather", new Value(x), signed(g, axis, shape.rank()), index);
    }

    private static void indexSelect(ProgramGenerator g, int x, int axis) {
        Shape shape = g.shape(x);
        int n = length(g, shape.dim(axis));
        Object index = g.fits(shape.with(axis, n)) ? g.indices(Shape.of(n), shape.dim(axis)) : null;
        if (index != null) g.call("indexSelect", new Value(x), signed(g, axis, shape.rank()), index);
    }

    /// `x.scatterAdd(axis, index, src)` or `scatter`: `src` a value of the index's shape or a captured
    /// one; a computed index then has `x`'s shape (a permutation) or size 1 on the axis.
    private static void scatter(ProgramGenerator g, int x, int axis) {
        Shape shape = g.shape(x);
        boolean add = g.dtype(x) != DType.BOOL && g.random.nextBoolean();
        Object index = computed(g, x, axis);
        Shape region = index instanceof Value(int i) ? g.shape(i) : region(g, shape, axis);
        if (index == null && g.fits(region)) index = g.indices(region, shape.dim(axis));
        if (index == null) return;
        int found = g.find(i -> g.shape(i).equals(region));
        Object src = found >= 0 ? new Value(found) : g.constant(g.random.nextBoolean() ? g.dtype(x) : Shapes.dtype(g.random), region);
        g.call(add ? "scatterAdd" : "scatter", new Value(x), signed(g, axis, shape.rank()), index, src);
    }

    /// `x.indexPut(axis, index, values)`: values broadcasting to `x` with the index's length on the axis.
    private static void indexPut(ProgramGenerator g, int x, int axis) {
        Shape shape = g.shape(x);
        int n = length(g, shape.dim(axis));
        Shape target = shape.with(axis, n);
        Object index = g.fits(target) ? g.indices(Shape.of(n), shape.dim(axis)) : null;
        if (index == null) return;
        int found = g.find(i -> target.equals(Shapes.broadcast(g.shape(i), target)));
        Object values = found >= 0 ? new Value(found) : g.constant(Shapes.dtype(g.random), Shapes.broadcastable(g.random, target));
        g.call("indexPut", new Value(x), signed(g, axis, shape.rank()), index, values);
    }

    /// `x.sliceUpdate(axis, start, value)`: `start` an `int` (negative half the time) or a 0-d index
    /// read from the closure, so that a compiled call writes where that call's argument says.
    private static void sliceUpdate(ProgramGenerator g, int x, int axis) {
        Shape shape = g.shape(x);
        int dim = shape.dim(axis), length = g.random.nextInt(dim + 1), start = g.random.nextInt(dim - length + 1);
        Shape part = shape.with(axis, length);
        int found = g.find(i -> g.shape(i).equals(part));
        Object value = found >= 0 ? new Value(found) : g.constant(Shapes.dtype(g.random), part);
        int signedAxis = signed(g, axis, shape.rank());
        if (g.random.nextBoolean()) g.call("sliceUpdate", new Value(x), signedAxis, g.random.nextBoolean() && dim > 0 ? start - dim : start, value);
        else g.call("sliceUpdate", new Value(x), signedAxis, g.indices(Shape.SCALAR, dim - length + 1), value);
    }

    /// `indices.oneHot(classes)` of an `i32` value whose values are known to be small: an argmax
    /// (below its axis's size) or captured indices; any other `i32` value is converted by an argmax.
    private static void oneHot(ProgramGenerator g, int x) {
        Shape shape = g.shape(x);
        Object indices;
        int classes;
        if (shape.rank() > 0 && shape.dim(shape.rank() - 1) > 0 && g.random.nextBoolean()) {
            classes = shape.dim(shape.rank() - 1) + g.random.nextInt(3);
            indices = ElementwiseCalls.operand(g.call("argmax", new Value(x), -1));
        } else {
            classes = 1 + g.random.nextInt(9);
            indices = g.indices(shape.rank() == 0 ? Shape.of(length(g, 8)) : shape, classes);
        }
        if (indices != null) g.call("oneHot", indices, classes);
    }

    /// An index computed from the data for `x` along `axis`, or null: `x.argsort(axis)` (x's shape,
    /// a permutation of each line) or `x.argmax(axis, true)` (size 1 on the axis).
    private static Object computed(ProgramGenerator g, int x, int axis) {
        Shape shape = g.shape(x);
        if (g.smooth() || shape.dim(axis) == 0 || g.random.nextInt(3) > 0) return null;
        if (g.random.nextBoolean()) return ElementwiseCalls.operand(argsort(g, x, axis));
        return ElementwiseCalls.operand(g.call("argmax", new Value(x), axis, true));
    }

    /// An index's shape for `x` of `shape` along `axis`: no larger off the axis, of any length on it.
    private static Shape region(ProgramGenerator g, Shape shape, int axis) {
        var dims = new ArrayList<Integer>();
        for (int d = 0; d < shape.rank(); d++)
            dims.add(d == axis ? length(g, Math.max(shape.dim(d), 1)) : g.random.nextInt(3) == 0 ? g.random.nextInt(shape.dim(d) + 1) : shape.dim(d));
        return new Shape(List.copyOf(dims));
    }

    /// A length for an index along an axis of `dim`: 0 to twice that, mostly within it.
    private static int length(ProgramGenerator g, int dim) {
        int roll = g.random.nextInt(8);
        return roll == 0 ? 0 : roll == 1 ? 1 : g.random.nextInt(2 * dim + 1);
    }

    /// `axis` or, half the time, its negative form.
    private static int signed(ProgramGenerator g, int axis, int rank) { return g.random.nextBoolean() ? axis : axis - rank; }
}
