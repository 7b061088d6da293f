// SPDX-License-Identifier: Apache-2.0
package dev.smelt.ops;

import dev.smelt.ir.DType;
import dev.smelt.ir.Storage;
import java.util.Locale;

/// PyTorch-style printing: `tensor([[1.5000, 2.0000], [3.0000, 4.0000]], shape=[2,2], dtype=f32)`
/// with one number format for all elements (integral, fixed or scientific, chosen from the finite
/// values), right-aligned columns, and `...` beyond [#SUMMARY_THRESHOLD] elements.
public final class Format {
    private Format() {}

    /// Tensors with more elements show only [#EDGE_ITEMS] at each end of every axis (PyTorch's defaults).
    static final int SUMMARY_THRESHOLD = 1000, EDGE_ITEMS = 3;

    public static String format(Value x) {
        if (x.isTraced()) return "tensor(<traced>, shape=%s, dtype=%s)".formatted(x.shape(), x.dtype());
        Storage values = Dispatch.dense(x);
        boolean summarise = summarise(x.shape());
        var style = Style.of(values, x.dtype());
        var text = new StringBuilder("tensor(");
        appendAxis(text, values, x.shape().toArray(), 0, 0, style, summarise, "tensor(".length());
        return text.append(", shape=").append(x.shape()).append(", dtype=").append(x.dtype()).append(')').toString();
    }

    // Counts the lists an empty tensor prints too: [2^31-1, 0] would otherwise print 2^31-1 of them.
    private static boolean summarise(dev.smelt.ir.Shape shape) {
        long printed = 1;
        for (int dim : shape.dims()) printed = Math.min(printed * Math.max(dim, 1), SUMMARY_THRESHOLD + 1L);
        return printed > SUMMARY_THRESHOLD;
    }

    private static void appendAxis(StringBuilder text, Storage values, int[] dims, int axis, int base, Style style, boolean summarise, int indent) {
        if (axis == dims.length) {
            text.append(style.format(values.get(base)));
            return;
        }
        int stride = 1;
        for (int later = axis + 1; later < dims.length; later++) stride *= dims[later];
        String separator = axis == dims.length - 1 ? ", " : "," + "\n".repeat(dims.length - 1 - axis) + " ".repeat(indent + axis + 1);
        text.append('[');
        for (int i = 0; i < dims[axis]; i++) {
            if (summarise && dims[axis] > 2 * EDGE_ITEMS && i == EDGE_ITEMS) {
                text.append("...").append(separator);
                i = dims[axis] - EDGE_ITEMS;
            }
            appendAxis(text, values, dims, axis + 1, base + i * stride, style, summarise, indent);
            if (i < dims[axis] - 1) text.append(separator);
        }
        text.append(']');
    }

    /// How every element of one tensor is written, and at what width.
    private record Style(DType dtype, String pattern, int width) {
        static Style of(Storage values, DType dtype) {
            if (!dtype.isFloating()) return new Style(dtype, "", width(values, dtype, ""));
            double max = 0, min = Double.POSITIVE_INFINITY;
            boolean integral = true;
            for (int i = 0; i < values.size(); i++) {
                double v = Math.abs(values.get(i));
                if (!Double.isFinite(v)) continue;
                integral &= v == Math.rint(v);
                max = Math.max(max, v);
                if (v != 0) min = Math.min(min, v);
            }
            boolean scientific = max > 1e8 || (!integral && (min < 1e-4 || max / min > 1000));
            String pattern = scientific ? "%.4e" : integral ? "%.0f." : "%.4f";
            return new Style(dtype, pattern, width(values, dtype, pattern));
        }

        private static int width(Storage values, DType dtype, String pattern) {
            int width = 1;
            for (int i = 0; i < values.size(); i++) width = Math.max(width, raw(values.get(i), dtype, pattern).length());
            return width;
        }

        String format(double value) {
            String raw = raw(value, dtype, pattern);
            return " ".repeat(width - raw.length()) + raw;
        }

        private static String raw(double value, DType dtype, String pattern) {
            return switch (dtype) {
                case BOOL -> value != 0 ? "true" : "false";
                case I32 -> Integer.toString((int) value);
                case F32, F64 -> Double.isNaN(value) ? "nan" : Double.isInfinite(value) ? (value > 0 ? "inf" : "-inf")
                        : String.format(Locale.ROOT, pattern, value);
            };
        }
    }
}
