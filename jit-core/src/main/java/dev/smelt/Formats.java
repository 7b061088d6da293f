// SPDX-License-Identifier: Apache-2.0
package dev.smelt;

import dev.smelt.ir.DType;
import dev.smelt.ir.PackedMatrix;
import dev.smelt.ir.SmeltException;
import dev.smelt.ir.Storage;
import java.util.List;
import java.util.function.IntPredicate;

/// [TensorFormats]' conversions: a 2-D `f32` matrix into a [Storage] holding a [PackedMatrix].
final class Formats {
    private Formats() {}

    static Tensor convert(Tensor w, WeightFormat format) {
        if (format == null) throw SmeltException.of("toWeightFormat", "the format is null; expected F32, BF16 or INT8");
        Values.requireConcrete("toWeightFormat", w);
        if (w.rank() != 2 || w.dtype() != DType.F32)
            throw SmeltException.of("toWeightFormat", "expected a 2-D f32 weight matrix [N, K], got %s%s", w.dtype(), w.shape());
        if (format(w) != WeightFormat.F32)
            throw SmeltException.of("toWeightFormat", "the tensor %s%s is already %s; convert the f32 weight it was made from", w.dtype(), w.shape(), format(w));
        int rows = w.shape().dim(0), columns = w.shape().dim(1);
        PackedMatrix packed = switch (format) {
            case F32 -> null;
            case BF16 -> PackedMatrix.bf16(w.toFloatArray(), rows, columns);
            case INT8 -> {
                float[] values = w.toFloatArray();
                for (int i = 0; i < values.length; i++)
                    if (!Float.isFinite(values[i]))
                        throw SmeltException.of("toWeightFormat", "element [%d, %d] of the %s weight is %s; int8 holds finite values only", i / columns, i % columns, w.shape(), values[i]);
                yield PackedMatrix.q8(values, rows, columns);
            }
        };
        if (packed == null) return w;
        return new Tensor(Storage.packed(packed), w.shape(), w.shape().contiguousStrides(), 0);
    }

    static WeightFormat format(Tensor x) {
        PackedMatrix packed = x.isTraced() ? null : x.storage().packed();
        if (packed == null) return WeightFormat.F32;
        return switch (packed.format()) {
            case BF16 -> WeightFormat.BF16;
            case Q8_0 -> WeightFormat.INT8;
        };
    }

    /// Throws for a packed weight: its values live in the packed form, which a write would miss.
    static void requireWritable(String op, Tensor x) {
        if (format(x) != WeightFormat.F32)
            throw SmeltException.of(op, "the tensor %s%s is a read-only %s weight; write into the f32 weight and convert it again", x.dtype(), x.shape(), format(x));
    }

    /// A line per captured bf16 or int8 weight (capture i fills input `arguments + i`) for `explain()`:
    /// whether the program reads it packed, within the format's looser bound, or as its f32 copy.
    static String explain(List<Tensor> captures, int arguments, IntPredicate readsPacked) {
        var text = new StringBuilder();
        for (int i = 0; i < captures.size(); i++) {
            WeightFormat format = format(captures.get(i));
            if (format == WeightFormat.F32) continue;
            text.append("input %d: %s weight %s %s%n".formatted(arguments + i, format, captures.get(i).shape(), readsPacked.test(arguments + i)
                    ? "read packed by GEMV, f32 accumulation (within WeightFormat's bound of the f32 weight)"
                    : "read as its f32 copy (some kernel reading it is no GEMV of x @ w.t())"));
        }
        return text.toString();
    }
}
