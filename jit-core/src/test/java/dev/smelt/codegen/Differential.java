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
/// compares every element of every output (including those the kernel must leave alone): both
/// variants must stay within the element's [KernelBounds]. [#agree] runs both variants and wants
/// the same bits from each. A failure names the seed, the variant, the first differing element, and
/// prints the kernel as text.
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
        Bound[][] bounds = KernelBounds.of(kernel, buffers);
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

    /// Runs the scalar and the vector variant (of `lanes` lanes, 0 for the preferred count) on
    /// copies of `buffers`, each in its own random pieces, and fails unless every output element
    /// has the same bits in both (any NaN equals any NaN). Returns how many elements were compared.
    static long agree(long seed, Kernel kernel, Object[] buffers, int lanes) {
        var scalar = Compiled.of(kernel, Variant.SCALAR, lanes);
        var vector = Compiled.of(kernel, Variant.VECTOR, lanes);
        var fromScalar = RandomData.copy(buffers);
        scalar.runInPieces(fromScalar, new Random(seed));
        var fromVector = RandomData.copy(buffers);
        vector.runInPieces(fromVector, new Random(~seed));
        long compared = 0;
        for (int i = 0; i < kernel.outputs().size(); i++) {
            int buffer = kernel.inputs().size() + i;
            Storage want = Storage.wrapArray(fromScalar[buffer]), got = Storage.wrapArray(fromVector[buffer]);
            for (int element = 0; element < want.size(); element++, compared++) {
                double a = want.get(element), b = got.get(element);
                boolean same = Double.isNaN(a) ? Double.isNaN(b) : Double.doubleToRawLongBits(a) == Double.doubleToRawLongBits(b);
                if (!same) fail("seed %d, %d lanes: out%d[%d] is %s from the scalar variant and %s from the vector one%n%s%s".formatted(seed, lanes, i, element,
                        a, b, kernel, vector.generated().scalarFallbacks().isEmpty() ? "" : "loops that run scalar: " + vector.generated().scalarFallbacks()));
            }
        }
        return compared;
    }

    static String message(long seed, Kernel kernel, Compiled compiled, int output, int element, double want, double got, Bound bound) {
        return "seed %d, %s variant of %s: out%d[%d] is %s, the interpreter gives %s (allowed: %s)%n%s%s".formatted(seed,
                compiled.generated().variant(), compiled.generated().className(), output, element, got, want, bound, kernel,
                compiled.generated().scalarFallbacks().isEmpty() ? "" : "loops that run scalar: " + compiled.generated().scalarFallbacks());
    }
}
