// SPDX-License-Identifier: Apache-2.0
package dev.smelt;

import static dev.smelt.TensorAssertions.F64_FEW_ULPS;
import static dev.smelt.TensorAssertions.assertClose;
import static dev.smelt.TensorAssertions.assertTensor;
import static dev.smelt.TensorAssertions.shape;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.smelt.ir.DType;
import dev.smelt.ir.UnaryOp;
import dev.smelt.testing.Tolerance;
import java.util.function.DoubleUnaryOperator;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/// Every unary op on f32 special values, against its definition computed in double with `Math`
/// and rounded once to f32 (the interpreter's contract), within the operator's [Tolerance] (the
/// `f32` `exp`, `sin`, `cos` and the composites built on them are polynomials in generated code),
/// plus hand-checked edge values.
class UnaryOpsTest {
    private static final float INF = Float.POSITIVE_INFINITY, NAN = Float.NaN;
    private static final float[] SPECIALS = {-3, -1, -0.5f, -0.0f, 0, 1e-10f, 0.5f, 1, 2, 25, NAN, INF, -INF, Float.MIN_VALUE, Float.MAX_VALUE};

    static Stream<Arguments> definitions() {
        double root = Math.sqrt(2 / Math.PI);
        return Stream.of(
                op("neg", Tensor::neg, x -> -x),
                op("abs", Tensor::abs, Math::abs),
                op("exp", Tensor::exp, Math::exp),
                op("expm1", Tensor::expm1, Math::expm1),
                op("log", Tensor::log, Math::log),
                op("log1p", Tensor::log1p, Math::log1p),
                op("sqrt", Tensor::sqrt, Math::sqrt),
                op("rsqrt", Tensor::rsqrt, x -> 1 / Math.sqrt(x)),
                op("reciprocal", Tensor::reciprocal, x -> 1 / x),
                op("square", Tensor::square, x -> x * x),
                op("sin", Tensor::sin, Math::sin),
                op("cos", Tensor::cos, Math::cos),
                op("tanh", Tensor::tanh, Math::tanh),
                op("sigmoid", Tensor::sigmoid, x -> 1 / (1 + Math.exp(-x))),
                op("relu", Tensor::relu, x -> Double.isNaN(x) ? x : x > 0 ? x : 0.0),
                op("geluTanh", Tensor::geluTanh, x -> 0.5 * x * (1 + Math.tanh(root * (x + 0.044715 * x * x * x)))),
                op("silu", Tensor::silu, x -> x / (1 + Math.exp(-x))),
                op("softplus", Tensor::softplus, x -> x > 20 ? x : Math.log1p(Math.exp(x))),
                op("sign", Tensor::sign, x -> Double.isNaN(x) ? x : x == 0 ? 0.0 : Math.signum(x)),
                op("stopGradient", Tensor::detach, x -> x)); // the op under Tensor.detach
    }

    private static Arguments op(String name, UnaryOperator<Tensor> op, DoubleUnaryOperator definition) {
        return Arguments.of(name, op, definition);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("definitions")
    void matchesItsDefinitionOnSpecialValues(String name, UnaryOperator<Tensor> op, DoubleUnaryOperator definition) {
        double[] expected = new double[SPECIALS.length];
        for (int i = 0; i < SPECIALS.length; i++) expected[i] = definition.applyAsDouble(SPECIALS[i]);
        assertWithin(name, op.apply(Tensor.of(SPECIALS)), shape(SPECIALS.length), expected);
    }

    // exact where the operator's Tolerance is, otherwise within it
    private static void assertWithin(String name, Tensor actual, int[] shape, double... expected) {
        var bound = Tolerance.of(UnaryOp.valueOf(name.replaceAll("([a-z])([A-Z])", "$1_$2").toUpperCase(java.util.Locale.ROOT)), DType.F32);
        if (bound.isExact()) {
            assertTensor(actual, DType.F32, shape, expected);
            return;
        }
        double[] values = actual.toDoubleArray();
        assertTensor(actual, DType.F32, shape, values); // the dtype and shape

        for (int i = 0; i < expected.length; i++) {
            int element = i;
            assertTrue(bound.accepts(DType.F32, (float) expected[i], values[i]), () -> "%s element %d: %s, expected %s within %s".formatted(name, element, values[element], (float) expected[element], bound));
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("definitions")
    void appliesToNonContiguousViewsInTheirOwnOrder(String name, UnaryOperator<Tensor> op, DoubleUnaryOperator definition) {
        var base = Tensor.of(new float[] {-2, -1, 0, 0.5f, 1, 3}, 2, 3);
        float[] transposed = {-2, 0.5f, -1, 1, 0, 3}, sliced = {-2, 0}, expanded = {0.5f, 1, 3, 0.5f, 1, 3};
        assertWithin(name, op.apply(base.t()), shape(3, 2), map(definition, transposed));
        assertWithin(name, op.apply(base.slice(1, 0, 3, 2).slice(0, 0, 1)), shape(1, 2), map(definition, sliced));
        assertWithin(name, op.apply(base.slice(0, 1, 2).expand(2, 3)), shape(2, 3), map(definition, expanded));
        assertTensor(op.apply(Tensor.zeros(0, 3)), DType.F32, shape(0, 3));
        assertWithin(name, op.apply(Tensor.scalar(0.5)), shape(), definition.applyAsDouble(0.5));
    }

    private static double[] map(DoubleUnaryOperator definition, float[] values) {
        double[] result = new double[values.length];
        for (int i = 0; i < values.length; i++) result[i] = definition.applyAsDouble(values[i]);
        return result;
    }

    @Test
    void signedZerosInfinitiesAndNaNFollowIeee() {
        var x = Tensor.of(new float[] {-0.0f, 0, INF, -INF, NAN});
        assertTensor(x.neg(), DType.F32, shape(5), 0.0, -0.0, -INF, INF, NAN);
        assertTensor(x.abs(), DType.F32, shape(5), 0.0, 0.0, INF, INF, NAN);
        assertTensor(x.exp(), DType.F32, shape(5), 1, 1, INF, 0, NAN);
        assertTensor(x.expm1(), DType.F32, shape(5), -0.0, 0.0, INF, -1, NAN);
        assertTensor(x.log(), DType.F32, shape(5), -INF, -INF, INF, NAN, NAN);
        assertTensor(x.sqrt(), DType.F32, shape(5), -0.0, 0.0, INF, NAN, NAN);
        assertTensor(x.rsqrt(), DType.F32, shape(5), -INF, INF, 0, NAN, NAN);
        assertTensor(x.reciprocal(), DType.F32, shape(5), -INF, INF, 0, -0.0, NAN);
        assertTensor(x.sin(), DType.F32, shape(5), -0.0, 0.0, NAN, NAN, NAN);
        assertTensor(x.tanh(), DType.F32, shape(5), -0.0, 0.0, 1, -1, NAN);
        assertTensor(x.sigmoid(), DType.F32, shape(5), 0.5, 0.5, 1, 0, NAN);
        assertTensor(x.relu(), DType.F32, shape(5), 0.0, 0.0, INF, 0, NAN);   // relu(-0) = +0
        assertTensor(x.sign(), DType.F32, shape(5), 0.0, 0.0, 1, -1, NAN);   // sign(NaN) = NaN
        assertTensor(x.softplus(), DType.F32, shape(5), Math.log(2), Math.log(2), INF, 0, NAN);
        assertTensor(Tensor.of(new float[] {-1, 0, 1}).log1p(), DType.F32, shape(3), -INF, 0, Math.log(2));
    }

    @Test
    void geluMatchesKnownValues() {
        // Φ(1) = 0.8413447460685429; the tanh form is 0.5·(1 + tanh(√(2/π)·1.044715)).
        var x = Tensor.of(new double[] {1, -1, 0, -0.0, 3});
        assertClose(x.gelu(), DType.F64, shape(5), F64_FEW_ULPS, 0.8413447460685429, -0.15865525393145707, 0, 0, 2.99595030590511);
        assertClose(x.geluTanh(), DType.F64, shape(5), F64_FEW_ULPS, 0.8411919906082768, -0.15880800939172324, 0, 0, 2.996362607918227);
        assertTensor(Tensor.of(new float[] {1, -1}).gelu(), DType.F32, shape(2), 0.8413447460685429, -0.15865525393145707);
        assertWithin("geluTanh", Tensor.of(new float[] {1, -1}).geluTanh(), shape(2), 0.8411919906082768, -0.15880800939172324);
        assertTensor(Tensor.of(new float[] {INF, NAN}).gelu(), DType.F32, shape(2), INF, NAN);
    }

    @Test
    void softplusIsTheIdentityAboveTwenty() {
        // Visible in f64: log1p(e²⁰) = 20.000000002061153, but softplus(20.5) is exactly 20.5.
        var x = Tensor.of(new double[] {20, 20.5, 1000, -1000, 0});
        assertTensor(x.softplus(), DType.F64, shape(5), Math.log1p(Math.exp(20)), 20.5, 1000, 0, Math.log(2));
    }

    @Test
    void smallAndLargeArgumentsStayAccurate() {
        var x = Tensor.of(new double[] {1e-10, -1e-10});
        assertTensor(x.expm1(), DType.F64, shape(2), Math.expm1(1e-10), Math.expm1(-1e-10));
        assertTensor(x.log1p(), DType.F64, shape(2), Math.log1p(1e-10), Math.log1p(-1e-10));
        var wide = Tensor.of(new float[] {-100, 100, 89});
        // in f32, exp(100) overflows: sigmoid(-100) is 0 (3.8e-44, subnormal, in double), silu(-100) -0
        assertTensor(wide.sigmoid(), DType.F32, shape(3), 0, 1, 1);
        assertTensor(wide.exp(), DType.F32, shape(3), Math.exp(-100), INF, INF);
        assertTensor(wide.silu(), DType.F32, shape(3), -0.0, 100, 89);
    }

    @Test
    void integerDefinedOpsKeepI32AndWrap() {
        var x = Tensor.of(new int[] {-5, 0, 7, Integer.MIN_VALUE, 65536});
        assertTensor(x.neg(), DType.I32, shape(5), 5, 0, -7, Integer.MIN_VALUE, -65536);
        assertTensor(x.abs(), DType.I32, shape(5), 5, 0, 7, Integer.MIN_VALUE, 65536);
        assertTensor(x.square(), DType.I32, shape(5), 25, 0, 49, 0, 0);          // 2¹⁶·2¹⁶ wraps to 0
        assertTensor(x.relu(), DType.I32, shape(5), 0, 0, 7, 0, 65536);
        assertTensor(x.sign(), DType.I32, shape(5), -1, 0, 1, -1, 1);
    }

    @Test
    void floatOnlyOpsConvertIntegersAndBoolsToF32() {
        var ints = Tensor.of(new int[] {0, 1, 4});
        assertTensor(ints.exp(), DType.F32, shape(3), 1, Math.E, Math.exp(4));
        assertTensor(ints.sqrt(), DType.F32, shape(3), 0, 1, 2);
        assertTensor(ints.reciprocal(), DType.F32, shape(3), INF, 1, 0.25);
        assertTensor(ints.sigmoid(), DType.F32, shape(3), 0.5, 1 / (1 + Math.exp(-1)), 1 / (1 + Math.exp(-4)));
        var bools = Tensor.of(new boolean[] {true, false});
        assertTensor(bools.exp(), DType.F32, shape(2), Math.E, 1);
        assertTensor(bools.neg(), DType.I32, shape(2), -1, 0);
        assertTensor(bools.sign(), DType.I32, shape(2), 1, 0);
    }

    @Test
    void f64StaysF64WithoutRoundingToF32() {
        var x = Tensor.of(new double[] {1, 0.1, 2});
        assertTensor(x.exp(), DType.F64, shape(3), Math.E, Math.exp(0.1), Math.exp(2));
        assertTensor(x.sin(), DType.F64, shape(3), Math.sin(1), Math.sin(0.1), Math.sin(2));
        assertTensor(x.cos(), DType.F64, shape(3), Math.cos(1), Math.cos(0.1), Math.cos(2));
        assertTensor(x.sqrt(), DType.F64, shape(3), 1, Math.sqrt(0.1), Math.sqrt(2));
        assertTensor(x.log(), DType.F64, shape(3), 0, Math.log(0.1), Math.log(2));
        assertTensor(x.square(), DType.F64, shape(3), 1, 0.1 * 0.1, 4);
    }

    @Test
    void theTableCoversEveryUnaryOp() {
        // gelu is the one op missing from the table: its definition needs erf, so it has known values.
        assertEquals(UnaryOp.values().length, definitions().count() + 1);
    }
}
