// SPDX-License-Identifier: Apache-2.0
package dev.smelt.kernel;

import dev.smelt.ir.Storage;
import java.util.Arrays;
import java.util.Comparator;

/// Runs a [SortKernel], the reference and the compiled form alike: each line's positions sorted by
/// `Arrays.sort` (a merge sort, so stable) on the values read as doubles, which orders every dtype
/// exactly. NaN sorts above every number and `-0` equals `+0`.
public record SortFunction(SortKernel kernel) implements KernelFunction {
    @Override
    public String tier() { return "plain Java loops (not generated)"; }

    @Override
    public void run(Object[] buffers, int start, int end) {
        var x = Storage.wrapArray(buffers[0]);
        int[] out = (int[]) buffers[1];
        var shape = kernel.shape();
        int n = shape.dim(kernel.axis()), stride = shape.contiguousStrides()[kernel.axis()];
        Integer[] line = new Integer[n];
        double[] values = new double[n];
        Comparator<Integer> ascending = (i, j) -> compare(values[i], values[j]);
        Comparator<Integer> order = kernel.descending() ? ascending.reversed().thenComparing(Comparator.naturalOrder()) : ascending;
        for (int l = start; l < end; l++) {
            int first = l / stride * n * stride + l % stride; // line l's first element: outer block, then position within it
            for (int i = 0; i < n; i++) {
                line[i] = i;
                values[i] = x.get(first + i * stride);
            }
            Arrays.sort(line, order);
            for (int i = 0; i < n; i++) out[first + i * stride] = line[i];
        }
    }

    private static int compare(double a, double b) {
        if (Double.isNaN(a) || Double.isNaN(b)) return Boolean.compare(Double.isNaN(a), Double.isNaN(b));
        return a < b ? -1 : a > b ? 1 : 0;
    }
}
