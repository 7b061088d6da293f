// SPDX-License-Identifier: Apache-2.0
package dev.smelt.stress;

import dev.smelt.ir.DType;
import dev.smelt.ir.Shape;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/// Shapes and dtypes for random programs. Dimensions favour sizes that no vector width divides
/// (primes, powers of two ± 1) and 1, which broadcasts; 0 occurs now and then. Large programs
/// take a total of 2^14 (the size from which kernels get a vector variant) up to the scale's
/// maximum, log-uniformly, so a few reach millions of elements.
final class Shapes {
    private Shapes() {}

    private static final int[] DIMS = {1, 1, 1, 2, 2, 3, 3, 4, 5, 5, 7, 8, 9, 16, 17, 31, 33, 64, 100, 127};
    private static final int[] ROWS = {1, 3, 8, 17, 64, 100, 257, 1000, 1023, 4097};
    /// Kernels with at least this many elements run a vector variant once it has warmed up.
    static final int VECTOR_ELEMENTS = 1 << 14;

    static DType dtype(Random random) {
        int roll = random.nextInt(100);
        return roll < 45 ? DType.F32 : roll < 70 ? DType.F64 : roll < 88 ? DType.I32 : DType.BOOL;
    }

    static DType floating(Random random) { return random.nextInt(3) == 0 ? DType.F64 : DType.F32; }

    static int dim(Random random) { return random.nextInt(50) == 0 ? 0 : DIMS[random.nextInt(DIMS.length)]; }

    /// Rank 0–4 with at most `maxElements` elements.
    static Shape small(Random random, int maxElements) {
        int rank = new int[] {0, 1, 1, 2, 2, 2, 3, 3, 4}[random.nextInt(9)];
        var dims = new ArrayList<Integer>();
        long size = 1;
        for (int axis = 0; axis < rank; axis++) {
            int dim = dim(random);
            if (size * dim > maxElements) dim = 1 + random.nextInt(2);
            if (size * dim > maxElements) dim = 1;
            dims.add(dim);
            size *= dim;
        }
        return new Shape(dims);
    }

    /// Rank 1–3 with between [#VECTOR_ELEMENTS] and `maxElements` elements.
    static Shape large(Random random, int maxElements) {
        double logSize = Math.log(VECTOR_ELEMENTS) + random.nextDouble() * (Math.log(maxElements) - Math.log(VECTOR_ELEMENTS));
        int total = (int) Math.exp(logSize);
        int rank = 1 + random.nextInt(3);
        if (rank == 1) return Shape.of(total);
        int last = ROWS[random.nextInt(ROWS.length)];
        if (rank == 2) return Shape.of(Math.max(1, total / last), last);
        int middle = new int[] {2, 3, 5, 16}[random.nextInt(4)];
        return Shape.of(Math.max(1, total / last / middle), middle, last);
    }

    /// `shape` with some axes set to 1 and maybe leading axes dropped: it broadcasts against `shape`.
    static Shape broadcastable(Random random, Shape shape) {
        var dims = new ArrayList<>(shape.dims());
        for (int axis = 0; axis < dims.size(); axis++) if (random.nextInt(3) == 0) dims.set(axis, 1);
        int drop = dims.isEmpty() ? 0 : random.nextInt(dims.size() + 1);
        return new Shape(dims.subList(drop, dims.size()));
    }

    /// The NumPy broadcast of `a` and `b`, or null when they do not broadcast.
    static Shape broadcast(Shape a, Shape b) {
        int rank = Math.max(a.rank(), b.rank());
        var dims = new ArrayList<Integer>();
        for (int axis = 0; axis < rank; axis++) {
            int x = dimFromEnd(a, rank - axis), y = dimFromEnd(b, rank - axis);
            if (x != y && x != 1 && y != 1) return null;
            dims.add(x == 1 ? y : x);
        }
        return new Shape(dims);
    }

    private static int dimFromEnd(Shape shape, int fromEnd) { return fromEnd > shape.rank() ? 1 : shape.dim(shape.rank() - fromEnd); }

    /// A random shape with `size` elements: its prime factors dealt out among 1–4 axes.
    static int[] factorization(Random random, int size) {
        int[] dims = new int[size == 1 ? random.nextInt(4) : 1 + random.nextInt(4)];
        java.util.Arrays.fill(dims, 1);
        if (size == 0) {
            for (int axis = 0; axis < dims.length; axis++) dims[axis] = 1 + random.nextInt(3);
            dims[random.nextInt(dims.length)] = 0;
            return dims;
        }
        for (int factor = 2, rest = size; rest > 1; factor++) {
            if ((long) factor * factor > rest) factor = rest;
            for (; rest % factor == 0; rest /= factor) dims[random.nextInt(dims.length)] *= factor;
        }
        return dims;
    }

    /// A random subset of the axes of a rank-`rank` shape, ascending, some written negative.
    static int[] axes(Random random, int rank, boolean nonEmpty) {
        var axes = new ArrayList<Integer>();
        for (int axis = 0; axis < rank; axis++) if (random.nextBoolean()) axes.add(axis);
        if (nonEmpty && axes.isEmpty() && rank > 0) axes.add(random.nextInt(rank));
        return axes.stream().mapToInt(axis -> random.nextInt(3) == 0 ? axis - rank : axis).toArray();
    }

    static List<Integer> normalized(int[] axes, int rank) {
        return java.util.Arrays.stream(axes).map(axis -> axis < 0 ? axis + rank : axis).boxed().toList();
    }
}
