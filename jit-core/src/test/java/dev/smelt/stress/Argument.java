// SPDX-License-Identifier: Apache-2.0
package dev.smelt.stress;

import dev.smelt.Tensor;
import dev.smelt.ir.DType;
import dev.smelt.ir.Shape;
import dev.smelt.ir.Storage;
import dev.smelt.testing.RandomData;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.stream.IntStream;

/// An argument of a random program: its dtype and shape, and how the tensor passed is laid out.
/// Users pass views as often as dense tensors, so an argument may be a view of a larger base
/// (transposed, sliced with a step, or expanded with stride 0); the compiled call must read it
/// through its strides as eager code does. Values are drawn as [RandomData] draws them, special
/// values included, unless `ordinary` (standard normal, for central differences).
record Argument(DType dtype, Shape shape, Layout layout, boolean ordinary) {
    /// How the tensor passed is made from a dense base holding random data.
    sealed interface Layout {
        /// The base itself.
        record Dense() implements Layout {}

        /// `base.permute(order)`, the base holding the permuted shape.
        record Permuted(List<Integer> order) implements Layout {}

        /// `base.slice(axis, start, start + step·size, step)` of a base longer along `axis`.
        record Sliced(int axis, int start, int step) implements Layout {}

        /// `base.expand(shape)` of a base with size 1 on `axes`.
        record Expanded(List<Integer> axes) implements Layout {}
    }

    /// A random layout for `shape`: dense half the time.
    static Argument random(Random random, DType dtype, Shape shape) {
        int rank = shape.rank(), roll = random.nextInt(8);
        if (rank == 0 || roll < 4) return new Argument(dtype, shape, new Layout.Dense(), false);
        if (roll < 6 && rank >= 2) {
            var order = new ArrayList<>(IntStream.range(0, rank).boxed().toList());
            java.util.Collections.shuffle(order, random);
            return new Argument(dtype, shape, new Layout.Permuted(order), false);
        }
        if (roll < 7) {
            int axis = random.nextInt(rank);
            return new Argument(dtype, shape, new Layout.Sliced(axis, random.nextInt(3), 1 + random.nextInt(3)), false);
        }
        var axes = IntStream.range(0, rank).filter(axis -> shape.dim(axis) != 1 && random.nextBoolean()).boxed().toList();
        return new Argument(dtype, shape, new Layout.Expanded(axes), false);
    }

    /// This argument at another shape of the same rank, laid out alike.
    Argument withShape(Shape other) {
        Layout kept = layout instanceof Layout.Expanded(var axes) ? new Layout.Expanded(axes.stream().filter(axis -> other.dim(axis) != 1).toList()) : layout;
        return new Argument(dtype, other, kept, ordinary);
    }

    /// This argument with standard normal values.
    Argument withOrdinaryValues() { return new Argument(dtype, shape, layout, true); }

    /// The tensor passed, over random data drawn from `random`.
    Tensor tensor(Random random) {
        return switch (layout) {
            case Layout.Dense() -> data(random, shape);
            case Layout.Permuted(var order) -> data(random, permuted(order)).permute(inverse(order));
            case Layout.Sliced(int axis, int start, int step) -> {
                int size = shape.dim(axis), stop = size == 0 ? start : start + (size - 1) * step + 1;
                yield data(random, shape.with(axis, stop + random.nextInt(2))).slice(axis, start, stop, step);
            }
            case Layout.Expanded(var axes) -> {
                Shape base = shape;
                for (int axis : axes) base = base.with(axis, 1);
                yield data(random, base).expand(shape.toArray());
            }
        };
    }

    private Tensor data(Random random, Shape base) {
        if (!ordinary) return data(random, dtype, base);
        double[] values = new double[base.size()];
        for (int i = 0; i < values.length; i++) values[i] = random.nextGaussian();
        Tensor data = Tensor.of(values, base.toArray()).to(dtype);
        return base.rank() == 0 ? data.reshape() : data;
    }

    /// A dense tensor of `shape` with values as [RandomData] draws them.
    static Tensor data(Random random, DType dtype, Shape shape) {
        Storage values = RandomData.values(random, dtype, shape.size());
        int[] dims = shape.toArray();
        Tensor data = switch (dtype) {
            case F32 -> Tensor.of(values.floats(), dims);
            case F64 -> Tensor.of(values.doubles(), dims);
            case I32 -> Tensor.of(values.ints(), dims);
            case BOOL -> {
                boolean[] bools = new boolean[values.size()];
                for (int i = 0; i < bools.length; i++) bools[i] = values.get(i) != 0;
                yield Tensor.of(bools, dims);
            }
        };
        return shape.rank() == 0 ? data.reshape() : data; // Tensor.of with no dims makes a vector
    }

    /// How the listing describes it: `f32[3,4]`, `f32[3,4] (permute [1, 0] of a dense base)`.
    @Override
    public String toString() {
        String type = dtype + shape.toString();
        return switch (layout) {
            case Layout.Dense() -> type;
            case Layout.Permuted(var order) -> type + " passed as base.permute(" + java.util.Arrays.toString(inverse(order)) + ")";
            case Layout.Sliced(int axis, int start, int step) -> type + " passed as a slice of axis %d from %d, step %d".formatted(axis, start, step);
            case Layout.Expanded(var axes) -> type + " passed as an expand of size 1 on axes " + axes;
        };
    }

    private Shape permuted(List<Integer> order) {
        return new Shape(order.stream().map(shape::dim).toList());
    }

    // base = x.permute(order), so x = base.permute(inverse).
    private static int[] inverse(List<Integer> order) {
        int[] inverse = new int[order.size()];
        for (int i = 0; i < inverse.length; i++) inverse[order.get(i)] = i;
        return inverse;
    }
}
