// SPDX-License-Identifier: Apache-2.0
package dev.smelt.stress;

import dev.smelt.ir.Shape;
import dev.smelt.stress.Program.Value;
import dev.smelt.stress.Program.Values;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.stream.IntStream;

/// View calls for [ProgramGenerator], every form the API offers: reshape (with an inferred -1),
/// permute, transpose, `t`, slice (negative indices, steps, empty ranges), expand and
/// broadcastTo, squeeze, unsqueeze, flatten, contiguous, a piece of split or chunk; and concat.
final class ViewCalls {
    private ViewCalls() {}

    static void view(ProgramGenerator g) {
        int x = g.pick();
        Shape shape = g.shape(x);
        int rank = shape.rank();
        var x0 = new Value(x);
        switch (g.random.nextInt(11)) {
            case 0 -> g.call("reshape", x0, reshape(g, shape.size()));
            case 1 -> g.call("permute", x0, order(g, rank));
            case 2 -> { if (rank >= 2) g.call("transpose", x0, axis(g, rank), axis(g, rank)); }
            case 3 -> { if (rank >= 2) g.call("t", x0); }
            case 4 -> { if (rank >= 1) slice(g, x0, shape); }
            case 5 -> expand(g, x0, shape);
            case 6 -> squeeze(g, x0, shape);
            case 7 -> { if (rank < 5) g.call("unsqueeze", x0, g.random.nextInt(2 * rank + 2) - rank - 1); }
            case 8 -> flatten(g, x0, rank);
            case 9 -> g.call("contiguous", x0);
            default -> { if (rank >= 1) piece(g, x0, shape); }
        }
    }

    /// One of the views `x.split(size, axis)` or `x.chunk(chunks, axis)` returns, the last (maybe
    /// shorter) one included; an empty axis gives one empty piece.
    private static void piece(ProgramGenerator g, Value x, Shape shape) {
        int axis = g.random.nextInt(shape.rank()), dim = shape.dim(axis), signed = g.random.nextBoolean() ? axis : axis - shape.rank();
        boolean split = g.random.nextBoolean();
        int argument = split ? 1 + g.random.nextInt(Math.max(dim, 1) + 1) : 1 + g.random.nextInt(4); // split's piece size, chunk's count
        int size = split ? argument : Math.max(1, (dim + argument - 1) / argument);
        int pieces = Math.max(1, (dim + size - 1) / size);
        g.callPart(g.random.nextInt(pieces), split ? "split" : "chunk", x, argument, signed);
    }

    /// `Tensor.concat(axis, x, …)` with one or two parts that agree with `x` off the axis: values at
    /// hand, slices of `x`, or `x` itself.
    static void concat(ProgramGenerator g) {
        int x = g.pick();
        Shape shape = g.shape(x);
        if (shape.rank() == 0) return;
        int axis = g.random.nextInt(shape.rank());
        var parts = new ArrayList<>(List.of(x));
        for (int count = 1 + g.random.nextInt(2); count > 0; count--) {
            int part = g.find(i -> g.shape(i).rank() == shape.rank() && g.shape(i).with(axis, 0).equals(shape.with(axis, 0)));
            if (part < 0 && g.random.nextBoolean()) part = g.call("slice", new Value(x), axis, g.random.nextInt(shape.dim(axis) + 1), shape.dim(axis));
            parts.add(part < 0 ? x : part);
        }
        Collections.shuffle(parts, g.random);
        g.callStatic("concat", g.random.nextBoolean() ? axis : axis - shape.rank(), new Values(parts));
    }

    private static int[] reshape(ProgramGenerator g, int size) {
        int[] dims = Shapes.factorization(g.random, size);
        if (dims.length > 0 && size > 0 && g.random.nextBoolean()) dims[g.random.nextInt(dims.length)] = -1;
        return dims;
    }

    private static int[] order(ProgramGenerator g, int rank) {
        var order = new ArrayList<>(IntStream.range(0, rank).boxed().toList());
        Collections.shuffle(order, g.random);
        return order.stream().mapToInt(axis -> g.random.nextInt(4) == 0 ? axis - rank : axis).toArray();
    }

    private static int axis(ProgramGenerator g, int rank) { return g.random.nextInt(2 * rank) - rank; }

    private static void slice(ProgramGenerator g, Value x, Shape shape) {
        int axis = g.random.nextInt(shape.rank()), size = shape.dim(axis);
        int start = g.random.nextInt(size + 1), stop = start + g.random.nextInt(size - start + 1);
        if (g.random.nextInt(8) == 0) stop = g.random.nextInt(size + 1); // may be before start: empty
        if (g.random.nextInt(3) == 0) start -= size;
        if (g.random.nextInt(3) == 0) stop -= size;
        int axisArgument = g.random.nextBoolean() ? axis : axis - shape.rank();
        if (g.random.nextBoolean()) g.call("slice", x, axisArgument, start, stop, 1 + g.random.nextInt(3));
        else g.call("slice", x, axisArgument, start, stop);
    }

    /// `x.expand(dims)` or `broadcastTo`, unless the result is past the element budget.
    private static void expand(ProgramGenerator g, Value x, Shape shape) {
        String method = g.random.nextBoolean() ? "expand" : "broadcastTo";
        int[] dims = expanded(g, shape);
        if (g.fits(Shape.of(dims))) g.call(method, x, dims);
    }

    /// Each size-1 axis kept or repeated, and maybe one or two leading axes added.
    private static int[] expanded(ProgramGenerator g, Shape shape) {
        var dims = new ArrayList<Integer>();
        for (int extra = g.random.nextInt(4) == 0 ? 1 + g.random.nextInt(2) : 0; extra > 0; extra--) dims.add(Shapes.dim(g.random));
        for (int dim : shape.dims()) dims.add(dim == 1 && g.random.nextBoolean() ? Shapes.dim(g.random) : dim);
        return dims.stream().mapToInt(Integer::intValue).toArray();
    }

    private static void squeeze(ProgramGenerator g, Value x, Shape shape) {
        var ones = IntStream.range(0, shape.rank()).filter(axis -> shape.dim(axis) == 1).boxed().toList();
        if (ones.isEmpty() || g.random.nextBoolean()) g.call("squeeze", x, new int[0]);
        else g.call("squeeze", x, new int[] {g.any(ones) - (g.random.nextBoolean() ? shape.rank() : 0)});
    }

    private static void flatten(ProgramGenerator g, Value x, int rank) {
        if (rank == 0 || g.random.nextBoolean()) {
            g.call("flatten", x);
            return;
        }
        int start = g.random.nextInt(rank), end = start + g.random.nextInt(rank - start);
        g.call("flatten", x, start, end);
    }
}
