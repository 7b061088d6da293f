// SPDX-License-Identifier: Apache-2.0
package dev.smelt.codegen;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.smelt.ir.DType;
import dev.smelt.ir.UnaryOp;
import dev.smelt.kernel.Kernel;
import dev.smelt.testing.RandomData;
import java.util.Arrays;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/// A tiered kernel serves its first calls with the scalar variant and later ones with the vector
/// variant, so the two must give the same bits, both before and after C2 compiles them: every
/// unary operator and `pow` on every kind of input (`VectorAccuracy`'s ranges and special
/// values, including lanes past the inline polynomials' ranges among lanes within them), and the
/// row reductions of softmax and layer norm at lengths around the vector width.
/// `KernelEmitterRandomTest.variantsGiveTheSameBits` covers random kernels.
class TierAgreementTest {
    static final int CALLS = 400;

    static Stream<Arguments> operators() {
        return Stream.of(DType.F32, DType.F64).flatMap(dtype -> Stream.concat(Arrays.stream(UnaryOp.values()).map(op -> Arguments.of(op, dtype)),
                Stream.of(Arguments.of(null, dtype))));
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("operators")
    void operatorsGiveTheSameBitsInBothVariants(UnaryOp op, DType dtype) {
        var kernel = op == null ? VectorAccuracy.pow(dtype) : VectorAccuracy.unary(op, dtype);
        var scalar = Compiled.of(kernel, Variant.SCALAR).function();
        var vector = Compiled.of(kernel, Variant.VECTOR).function();
        var random = new Random(op == null ? 7 : op.ordinal());
        int arity = kernel.inputs().size(), points = VectorAccuracy.POINTS;
        Object[] buffers = new Object[arity + 1];
        long compared = 0;
        for (int call = 0; call < CALLS; call++) {
            VectorAccuracy.fill(buffers, dtype, random, arity);
            Object[] fromVector = buffers.clone();
            fromVector[arity] = dtype == DType.F32 ? new float[points] : new double[points];
            scalar.run(buffers, 0, points);
            vector.run(fromVector, 0, points);
            compared += same(kernel, buffers[arity], fromVector[arity], call);
        }
        assertTrue(compared == (long) CALLS * points);
    }

    static Stream<Arguments> rows() {
        return Stream.of(new int[] {3, 15}, new int[] {3, 16}, new int[] {5, 17}, new int[] {2, 31}, new int[] {2, 33}, new int[] {4, 100},
                new int[] {2, 1027}, new int[] {1, 4099}, new int[] {2, SumOrder.BLOCK}, new int[] {1, 2 * SumOrder.BLOCK - 1},
                new int[] {2, 3 * SumOrder.BLOCK + 45}).map(Arguments::of);
    }

    /// Sums fold in lanes of the dtype in both variants, then in one fixed order ([SumOrder], [LaneSums#sum]).
    @ParameterizedTest(name = "{0}")
    @MethodSource("rows")
    void rowReductionsGiveTheSameBitsInBothVariants(int[] shape) {
        for (Kernel kernel : new Kernel[] {Kernels.softmax(shape[0], shape[1]), Kernels.softmaxReusingElements(shape[0], shape[1]),
                Kernels.layerNorm(shape[0], 3, shape[1])}) {
            var scalar = Compiled.of(kernel, Variant.SCALAR).function();
            var vector = Compiled.of(kernel, Variant.VECTOR).function();
            for (int call = 0; call < 50; call++) {
                var buffers = RandomData.buffers(call, kernel);
                var fromVector = RandomData.copy(buffers);
                scalar.run(buffers, 0, kernel.workItems());
                vector.run(fromVector, 0, kernel.workItems());
                for (int i = 0; i < kernel.outputs().size(); i++) {
                    int buffer = kernel.inputs().size() + i;
                    same(kernel, buffers[buffer], fromVector[buffer], call);
                }
            }
        }
    }

    private static long same(Kernel kernel, Object scalar, Object vector, int call) {
        int length = java.lang.reflect.Array.getLength(scalar);
        for (int i = 0; i < length; i++) {
            double a = scalar instanceof float[] f ? f[i] : ((double[]) scalar)[i], b = vector instanceof float[] f ? f[i] : ((double[]) vector)[i];
            boolean same = Double.isNaN(a) ? Double.isNaN(b) : Double.doubleToRawLongBits(a) == Double.doubleToRawLongBits(b);
            if (!same) fail("call %d, element %d: scalar %s, vector %s%n%s".formatted(call, i, a, b, kernel));
        }
        return length;
    }
}
