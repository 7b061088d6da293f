// SPDX-License-Identifier: Apache-2.0
package dev.smelt.stress;

import dev.smelt.Tensor;
import dev.smelt.Traced;
import dev.smelt.ir.DType;
import dev.smelt.ir.Shape;
import dev.smelt.testing.GraphTolerance;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/// What a program must return for some arguments: the reference interpreter's results, and for
/// each element the error bound [GraphTolerance] derives from the ops (itself evaluated by the
/// interpreter). Compiled and eager results must be within twice the bound of the reference
/// (both may be that far from the exact value); elements the bound cannot cover (a comparison
/// within error, a cast near a boundary, a value near overflow) are counted, not compared.
public record Reference(List<Shape> shapes, List<DType> dtypes, List<double[]> values, List<double[]> bounds) {
    /// Elements compared, and elements left out as unstable, over every check in this JVM.
    static final AtomicLong COMPARED = new AtomicLong(), UNSTABLE = new AtomicLong();

    public static Reference of(Traced traced, List<Tensor> arguments) {
        Tensor[] args = arguments.toArray(Tensor[]::new);
        List<Tensor> results = traced.interpret(args);
        var errors = new Traced(GraphTolerance.bounds(traced.graph()), traced.arguments(), traced.captures()).interpret(args);
        return new Reference(results.stream().map(Tensor::shape).toList(), results.stream().map(Tensor::dtype).toList(),
                results.stream().map(Tensor::toDoubleArray).toList(), errors.stream().map(Tensor::toDoubleArray).toList());
    }

    /// How `actual` differs from the reference (the first element out of bounds), or null when it does not.
    public String mismatch(List<Tensor> actual) {
        if (actual.size() != values.size()) return "%d results, the reference has %d".formatted(actual.size(), values.size());
        for (int o = 0; o < values.size(); o++) {
            Tensor result = actual.get(o);
            if (!result.shape().equals(shapes.get(o)) || result.dtype() != dtypes.get(o))
                return "result %d is %s%s, the reference %s%s".formatted(o, result.dtype(), result.shape(), dtypes.get(o), shapes.get(o));
            String problem = mismatch(o, result.toDoubleArray());
            if (problem != null) return problem;
        }
        return null;
    }

    private String mismatch(int output, double[] actual) {
        double[] expected = values.get(output), bound = bounds.get(output);
        long compared = 0, unstable = 0;
        try {
            for (int i = 0; i < expected.length; i++) {
                if (Double.isFinite(bound[i])) compared++;
                else unstable++;
                String problem = GraphTolerance.mismatch(expected[i], actual[i], bound[i]);
                if (problem != null)
                    return "result %d, element %d %s: reference %s, got %s (bound %s): %s".formatted(output, i,
                            index(shapes.get(output), i), expected[i], actual[i], bound[i], problem);
            }
            return null;
        } finally {
            COMPARED.addAndGet(compared);
            UNSTABLE.addAndGet(unstable);
        }
    }

    /// The multi-index of flat element `flat`: `[1, 0, 2]`.
    static String index(Shape shape, int flat) {
        int[] index = new int[shape.rank()];
        for (int axis = shape.rank() - 1; axis >= 0; axis--) {
            int dim = Math.max(1, shape.dim(axis));
            index[axis] = flat % dim;
            flat /= dim;
        }
        return java.util.Arrays.toString(index);
    }
}
