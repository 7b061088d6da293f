// SPDX-License-Identifier: Apache-2.0
package dev.smelt.ops;

import dev.smelt.ir.DType;
import dev.smelt.ir.Node;
import dev.smelt.ir.SmeltException;
import java.util.List;

/// `argsort` and `topk` as graph nodes, eager and compiled alike: an argsort ([Node.ArgSort]),
/// stable as `torch.sort(stable=True)`; `topk` is the descending argsort's first `k` positions and the
/// values gathered there (so its values have a gradient, the gather's).
public final class Sorting {
    private Sorting() {}

    /// Bools sort as 0 and 1, false first, as PyTorch's do.
    public static Value argsort(Value x, int axis, boolean descending) {
        int a = lineAxis("argsort", x, axis);
        return Dispatch.apply("argsort", List.of(x), (b, in) -> {
            Node numbers = x.dtype() == DType.BOOL ? b.cast(in.getFirst(), DType.I32) : in.getFirst();
            return b.reshape(b.argsort(line(b, numbers), a, descending), x.shape());
        });
    }

    /// The `k` largest values along `axis` in descending order, and their `i32` indices.
    public static List<Value> topk(Value x, int k, int axis) {
        int a = lineAxis("topk", x, axis);
        if (x.dtype() == DType.BOOL) throw SmeltException.of("topk", "needs numbers, not bool; convert with to(DType.I32)"); // PyTorch's has no bool kernel either
        int n = x.rank() == 0 ? 1 : x.dim(a);
        if (k < 0 || k > n) throw SmeltException.of("topk", "k = %d is outside 0..%d, the size of axis %d of %s", k, n, axis, x.shape());
        Value indices = Dispatch.apply("topk", List.of(x), (b, in) -> b.slice(b.argsort(line(b, in.getFirst()), a, true), a, 0, k, 1));
        // The positions come from the sort: in range by construction, so no index check.
        Value values = Dispatch.apply("topk", List.of(x, indices), (b, in) -> b.gather(line(b, in.get(0)), a, in.get(1)));
        if (x.rank() == 0 && k == 1) return List.of(Views.reshape(values, new int[0]), Views.reshape(indices, new int[0])); // torch keeps a 0-d tensor 0-d
        return List.of(values, indices);
    }

    private static int lineAxis(String op, Value x, int axis) {
        Ops.nonNull(op, x);
        if (x.rank() > 0) return Builder.axis(op, axis, x.rank());
        Builder.scalarAxis(op, axis);
        return 0;
    }

    // A 0-d tensor sorts as a line of one.
    private static Node line(Builder b, Node x) { return x.shape().rank() == 0 ? b.reshape(x, dev.smelt.ir.Shape.of(1)) : x; }
}
