// SPDX-License-Identifier: Apache-2.0
package dev.smelt;

import dev.smelt.ir.DType;
import dev.smelt.ir.Shape;
import dev.smelt.ir.Storage;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;

/// `argsort` and `topk`, computed eagerly (a compiled function cannot sort yet: they throw when
/// traced). Sorts are stable, as `torch.sort(stable=True)`: equal values keep their index order,
/// descending too; NaN sorts above every number, and -0 equals +0.
final class Sorting {
    private Sorting() {}

    static Tensor argsort(Tensor x, int axis, boolean descending) {
        int a = lineAxis("argsort", x, axis);
        return sorted(x, a, descending, x.rank() == 0 ? 1 : x.dim(a))[1];
    }

    /// The `k` largest values along `axis` in descending order, and their `i32` indices.
    static List<Tensor> topk(Tensor x, int k, int axis) {
        int a = lineAxis("topk", x, axis);
        int n = x.rank() == 0 ? 1 : x.dim(a);
        if (k < 0 || k > n) throw SmeltException.of("topk", "k = %d is outside 0..%d, the size of axis %d of %s", k, n, axis, x.shape());
        return List.of(sorted(x, a, true, k));
    }

    private static int lineAxis(String op, Tensor x, int axis) {
        Ops.nonNull(op, x);
        if (x.isTraced()) throw SmeltException.of(op, "runs eagerly only; call it on the result of the compiled function");
        if (x.dtype() == DType.BOOL) throw SmeltException.of(op, "needs numbers, not bool; convert with to(DType.I32)");
        return x.rank() == 0 ? 0 : Builder.axis(op, axis, x.rank());
    }

    // Values and i32 indices of the first `keep` elements of each line along `axis`, sorted.
    private static Tensor[] sorted(Tensor x, int axis, boolean descending, int keep) {
        Storage data = Dispatch.dense(x);
        Shape shape = x.rank() == 0 ? Shape.of(1) : x.shape();
        int n = shape.dim(axis), stride = shape.contiguousStrides()[axis];
        int lines = n == 0 ? 0 : shape.size() / n;
        Shape result = shape.with(axis, keep);
        Storage values = Storage.allocate(x.dtype(), result.size()), indices = Storage.allocate(DType.I32, result.size());
        int resultStride = result.contiguousStrides()[axis];
        Comparator<Integer> order = (i, j) -> compare(data.get(i), data.get(j));
        Integer[] line = new Integer[n];
        for (int l = 0; l < lines; l++) {
            int outer = l / stride, inner = l % stride;
            int base = outer * n * stride + inner, resultBase = outer * keep * resultStride + inner;
            for (int i = 0; i < n; i++) line[i] = base + i * stride;
            Arrays.sort(line, descending ? order.reversed().thenComparing(Comparator.naturalOrder()) : order); // TimSort: stable
            for (int i = 0; i < keep; i++) {
                values.set(resultBase + i * resultStride, data.get(line[i]));
                indices.set(resultBase + i * resultStride, (line[i] - base) / stride);
            }
        }
        Shape out = x.rank() == 0 ? Shape.SCALAR : result;
        return new Tensor[] {new Tensor(values, out, out.contiguousStrides(), 0), new Tensor(indices, out, out.contiguousStrides(), 0)};
    }

    // Ascending, NaN last, -0 = +0.
    private static int compare(double a, double b) {
        if (Double.isNaN(a) || Double.isNaN(b)) return Boolean.compare(Double.isNaN(a), Double.isNaN(b));
        return a < b ? -1 : a > b ? 1 : 0;
    }
}
