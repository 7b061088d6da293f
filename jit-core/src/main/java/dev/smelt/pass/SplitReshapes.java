// SPDX-License-Identifier: Apache-2.0
package dev.smelt.pass;

import dev.smelt.ir.Node;
import dev.smelt.ir.Node.Binary;
import dev.smelt.ir.Node.Cast;
import dev.smelt.ir.Node.Constant;
import dev.smelt.ir.Node.Expand;
import dev.smelt.ir.Node.Reshape;
import dev.smelt.ir.Node.Unary;
import dev.smelt.ir.Node.Where;
import dev.smelt.ir.Shape;
import java.util.ArrayList;
import java.util.List;

/// Elementwise operations run in the shape their operand was computed in: a reshape that only
/// splits axes moves past them, to their users. `reshape(matmul) + bias` (a linear layer on a
/// batch of sequences, whose product is one matrix of all the rows) becomes `reshape(matmul +
/// bias)`: the bias add is in the product's shape, where it fuses into the matmul's epilogue, and
/// a user that merges the axes again (cross-entropy over the logits' rows, the next layer's
/// product) reads the sum directly, where before a merging reshape above the add left fusion only
/// flat positions, at which the broadcast bias had to be written out at full size.
///
/// Exact, as every pass: an elementwise operation does not care in which shape it runs. Only
/// splitting reshapes move, and every other operand becomes a split of the same axes or a
/// broadcast of them, so no merging reshape is introduced and none of an operand's axes is
/// computed twice.
final class SplitReshapes {
    private SplitReshapes() {}

    /// `n` with the split reshape of its operands moved above it, or `n` itself.
    static Node rewrite(Node n) {
        if (!(n instanceof Unary || n instanceof Binary || n instanceof Cast || n instanceof Where)) return n;
        Shape split = null;
        for (Node input : n.inputs())
            if (input instanceof Reshape r && splits(r.x().shape(), r.shape())) {
                split = r.x().shape();
                break;
            }
        if (split == null) return n;
        var operands = new ArrayList<Node>();
        for (Node input : n.inputs()) {
            Node operand = unsplit(input, split);
            if (operand == null) return n;
            operands.add(operand);
        }
        return new Reshape(n.withInputs(operands), n.shape());
    }

    // `input` (of the split shape) in the shape `from` before the split, or null where it is not a
    // reshape of that shape, a splat, or a broadcast whose axes line up with the split's runs.
    private static Node unsplit(Node input, Shape from) {
        return switch (input) {
            case Reshape r when r.x().shape().equals(from) -> r.x();
            case Constant c -> new Constant(c.value(), from, c.dtype());
            case Expand e -> unsplitBroadcast(e, from);
            default -> null;
        };
    }

    // expand(x) → expand(reshape(x, s)) over `from`: a run of the split broadcast on all its axes is
    // broadcast on its one axis of `from`; a run of one long axis keeps that axis. The reshape of x
    // then only moves unit axes.
    private static Node unsplitBroadcast(Expand e, Shape from) {
        Shape to = e.shape(), x = e.x().shape();
        var dims = new ArrayList<Integer>();
        int next = 0; // next axis of `to`
        for (int axis = 0; axis < from.rank(); axis++) {
            long product = 1;
            boolean broadcast = true;
            int longAxes = 0;
            while (next < to.rank() && (product < from.dim(axis) || to.dim(next) == 1 && from.dim(axis) == 1)) {
                if (to.dim(next) != 1) longAxes++;
                if (x.dim(next) != 1) broadcast = false;
                product *= to.dim(next++);
            }
            if (broadcast) dims.add(1);
            else if (longAxes == 1) dims.add(from.dim(axis));
            else return null;
        }
        Shape kept = new Shape(dims);
        Node reshaped = kept.equals(x) ? e.x() : new Reshape(e.x(), kept);
        return kept.equals(from) ? reshaped : new Expand(reshaped, from);
    }

    /// Whether the axes of `to` longer than 1, in order, split the axes of `from` longer than 1:
    /// each of those is a run of consecutive ones of `to` with the same product.
    static boolean splits(Shape from, Shape to) {
        if (from.rank() >= to.rank() || from.count() != to.count()) return false;
        List<Integer> parts = longDims(to);
        int next = 0;
        for (int dim : longDims(from)) {
            long product = 1;
            while (next < parts.size() && product < dim) product *= parts.get(next++);
            if (product != dim) return false;
        }
        return next == parts.size();
    }

    private static List<Integer> longDims(Shape shape) {
        var dims = new ArrayList<Integer>();
        for (int dim : shape.dims()) if (dim != 1) dims.add(dim);
        return dims;
    }
}
