// SPDX-License-Identifier: Apache-2.0
package dev.smelt.ops;

import dev.smelt.ir.DType;
import dev.smelt.ir.PackedMatrix;
import dev.smelt.ir.SmeltException;
import dev.smelt.ir.Storage;
import java.util.List;
import java.util.function.IntPredicate;

/// `Tensor.toWeightFormat`'s conversions: a 2-D `f32` matrix into a [Storage] holding a [PackedMatrix].
/// A format is the packed one, or null for plain `f32`; errors name them as the API does (`INT8` for Q8_0).
public final class Formats {
    private Formats() {}

    // Every write of a training step passes requireWritable, which returns this enum's type. Until
    // the enum is loaded, C2's code for format() can trap into loading it during a later step (seen
    // once in CI under load, SteadyStepsTest); loading it with this class keeps steady steps free
    // of class loads.
    static { PackedMatrix.Format.values(); }

    /// `w` in `format` (null: `f32`, `w` itself once checked).
    public static Value convert(Value w, PackedMatrix.Format format) {
        Values.requireConcrete("toWeightFormat", w);
        if (w.rank() != 2 || w.dtype() != DType.F32)
            throw SmeltException.of("toWeightFormat", "expected a 2-D f32 weight matrix [N, K], got %s%s", w.dtype(), w.shape());
        if (format(w) != null)
            throw SmeltException.of("toWeightFormat", "the tensor %s%s is already %s; convert the f32 weight it was made from", w.dtype(), w.shape(), name(format(w)));
        if (format == null) return w;
        int rows = w.shape().dim(0), columns = w.shape().dim(1);
        float[] values = Values.floats(w);
        PackedMatrix packed = switch (format) {
            case BF16 -> PackedMatrix.bf16(values, rows, columns);
            case Q8_0 -> {
                for (int i = 0; i < values.length; i++)
                    if (!Float.isFinite(values[i]))
                        throw SmeltException.of("toWeightFormat", "element [%d, %d] of the %s weight is %s; int8 holds finite values only", i / columns, i % columns, w.shape(), values[i]);
                yield PackedMatrix.q8(values, rows, columns);
            }
        };
        return Value.dense(Storage.packed(packed), w.shape());
    }

    /// The packed format `x` is stored in; null for an ordinary tensor.
    public static PackedMatrix.Format format(Value x) {
        PackedMatrix packed = x.isTraced() ? null : x.storage().packed();
        return packed == null ? null : packed.format();
    }

    private static String name(PackedMatrix.Format format) {
        return switch (format) {
            case BF16 -> "BF16";
            case Q8_0 -> "INT8";
        };
    }

    /// Throws for a packed weight: its values live in the packed form, which a write would miss.
    public static void requireWritable(String op, Value x) {
        if (format(x) != null)
            throw SmeltException.of(op, "the tensor %s%s is a read-only %s weight; write into the f32 weight and convert it again", x.dtype(), x.shape(), name(format(x)));
    }

    /// The bytes of graph input `i`'s packed form (capture `i - arguments`), or -1 when it has none.
    public static long packedBytes(List<Value> captures, int arguments, int i) {
        int capture = i - arguments;
        if (capture < 0 || capture >= captures.size() || format(captures.get(capture)) == null) return -1;
        return captures.get(capture).storage().packed().bytes();
    }

    /// A line per captured bf16 or int8 weight (capture i fills input `arguments + i`) for `explain()`:
    /// whether the program reads it packed, within the format's looser bound, or as its f32 copy.
    public static String explain(List<Value> captures, int arguments, IntPredicate readsPacked) {
        var text = new StringBuilder();
        for (int i = 0; i < captures.size(); i++) {
            PackedMatrix.Format format = format(captures.get(i));
            if (format == null) continue;
            text.append("input %d: %s weight %s %s%n".formatted(arguments + i, name(format), captures.get(i).shape(), readsPacked.test(arguments + i)
                    ? "read packed by GEMV, f32 accumulation (within WeightFormat's bound of the f32 weight)"
                    : "read as its f32 copy (some kernel reading it is no GEMV of x @ w.t())"));
        }
        return text.toString();
    }
}
