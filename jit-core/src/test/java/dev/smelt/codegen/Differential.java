// SPDX-License-Identifier: Apache-2.0
package dev.smelt.codegen;

import static org.junit.jupiter.api.Assertions.fail;

import dev.smelt.ir.DType;
import dev.smelt.ir.Storage;
import dev.smelt.kernel.Kernel;
import dev.smelt.kernel.KernelInterpreter;
import dev.smelt.testing.Bound;
import dev.smelt.testing.KernelBounds;
import dev.smelt.testing.RandomData;
import java.util.Random;

/// Runs a kernel as generated code and through the `KernelInterpreter` on the same buffers and
/// compares every element of every output (including those the kernel must leave alone). The
/// scalar variant must match bit for bit; the vector variant must stay within the element's
/// [KernelBounds]. A failure names the seed, the variant, the first differing element, and prints
/// the kernel as text.
final class Differential {
    /// How many output elements were compared, and how: exactly, within a bound, or not at all
    /// (the bound allowed anything).
    record Counts(long exact, long bounded, long unbounded) {
        Counts plus(Counts other) { return new Counts(exact + other.exact, bounded + other.bounded, unbounded + other.unbounded); }
    }

    private Differential() {}

    static Counts check(long seed, Kernel kernel, Object[] buffers, Variant variant) {
        return check(seed, Compiled.of(kernel, variant), buffers);
    }

    static Counts check(long seed, Kernel kernel, Object[] buffers, Variant variant, int lanes) {
        return check(seed, Compiled.of(kernel, variant, lanes), buffers);
    }

    static Counts check(long seed, Compiled compiled, Object[] buffers) {
        var kernel = compiled.kernel();
        var variant = compiled.generated().variant();
        var expected = RandomData.copy(buffers);
        new KernelInterpreter(kernel).run(expected, 0, kernel.workItems());
        var actual = RandomData.copy(buffers);
        compiled.runInPieces(actual, new Random(seed));
        Bound[][] bounds = variant == Variant.VECTOR ? KernelBounds.of(kernel, buffers) : null;
        long exact = 0, bounded = 0, unbounded = 0;
        for (int i = 0; i < kernel.outputs().size(); i++) {
            int buffer = kernel.inputs().size() + i;
            var dtype = kernel.outputs().get(i).dtype();
            Storage want = Storage.wrapArray(expected[buffer]), got = Storage.wrapArray(actual[buffer]);
            for (int element = 0; element < want.size(); element++) {
                var bound = bounds == null || bounds[i][element] == null ? Bound.exact(want.get(element)) : bounds[i][element];
                if (!bound.contains(dtype, want.get(element)))
                    fail(message(seed, kernel, compiled, i, element, want.get(element), got.get(element), bound) + "\nthe bound does not hold the interpreter's value: KernelBounds is wrong");
                if (!bound.contains(dtype, got.get(element)))
                    fail(message(seed, kernel, compiled, i, element, want.get(element), got.get(element), bound));
                if (bound.exact()) exact++;
                else if (bound.equals(Bound.any(dtype))) unbounded++;
                else bounded++;
            }
        }
        return new Counts(exact, bounded, unbounded);
    }

    static String message(long seed, Kernel kernel, Compiled compiled, int output, int element, double want, double got, Bound bound) {
        return "seed %d, %s variant of %s: out%d[%d] is %s, the interpreter gives %s (allowed: %s)%n%s%s".formatted(seed,
                compiled.generated().variant(), compiled.generated().className(), output, element, got, want, bound, kernel,
                compiled.generated().scalarFallbacks().isEmpty() ? "" : "loops that run scalar: " + compiled.generated().scalarFallbacks());
    }
}
