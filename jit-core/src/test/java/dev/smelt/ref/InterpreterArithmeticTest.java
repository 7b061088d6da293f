// SPDX-License-Identifier: Apache-2.0
package dev.smelt.ref;

import static dev.smelt.ref.Evaluate.assertValues;
import static dev.smelt.ref.Evaluate.bool;
import static dev.smelt.ref.Evaluate.f32;
import static dev.smelt.ref.Evaluate.f64;
import static dev.smelt.ref.Evaluate.i32;
import static dev.smelt.ref.Evaluate.input;
import static dev.smelt.ref.Evaluate.run;

import dev.smelt.ir.BinaryOp;
import dev.smelt.ir.DType;
import dev.smelt.ir.Node;
import dev.smelt.ir.Storage;
import dev.smelt.ir.UnaryOp;
import org.junit.jupiter.api.Test;

/// Known cases for every [UnaryOp] and [BinaryOp], with the special values each one must get right.
/// Exact operators are checked to the bit; transcendental ones within 1 ulp of the correctly
/// rounded value (mpmath, 200 bits), 2 ulps where erf is involved.
class InterpreterArithmeticTest {
    static final double NAN = Double.NaN, INF = Double.POSITIVE_INFINITY;
    static final int MIN = Integer.MIN_VALUE, MAX = Integer.MAX_VALUE;

    @Test
    void negAbsSquareAreExact() {
        unary(UnaryOp.NEG, new double[] {1, -2, 0, -0.0, INF, NAN}, new double[] {-1, 2, -0.0, 0, -INF, NAN}, 0);
        unary(UnaryOp.ABS, new double[] {-3, -0.0, NAN, -INF}, new double[] {3, 0, NAN, INF}, 0);
        unary(UnaryOp.SQUARE, new double[] {3, -3, NAN, -INF, 1e200}, new double[] {9, 9, NAN, INF, INF}, 0);
    }

    @Test
    void expAndLogFamilies() {
        unary(UnaryOp.EXP, new double[] {0, 1, -INF, INF, NAN, -800}, new double[] {1, Math.E, 0, INF, NAN, 0}, 1);
        unary(UnaryOp.EXPM1, new double[] {0, -0.0, 1e-10, -INF, INF}, new double[] {0, -0.0, 1.00000000005e-10, -1, INF}, 1);
        unary(UnaryOp.LOG, new double[] {1, Math.E, 0, -0.0, -1, INF, NAN}, new double[] {0, 1, -INF, -INF, NAN, INF, NAN}, 1);
        unary(UnaryOp.LOG1P, new double[] {0, -1, 1e-20, Math.E - 1, -2}, new double[] {0, -INF, 1e-20, 1, NAN}, 1);
    }

    @Test
    void rootsAndReciprocal() {
        unary(UnaryOp.SQRT, new double[] {4, 2, -0.0, -1, INF}, new double[] {2, 1.4142135623730951, -0.0, NAN, INF}, 0);
        unary(UnaryOp.RSQRT, new double[] {4, 0, -0.0, INF, -4}, new double[] {0.5, INF, -INF, 0, NAN}, 0);
        unary(UnaryOp.RECIPROCAL, new double[] {2, 0, -0.0, INF, -INF, NAN}, new double[] {0.5, INF, -INF, 0, -0.0, NAN}, 0);
    }

    @Test
    void trigonometricAndHyperbolic() {
        unary(UnaryOp.SIN, new double[] {0, -0.0, 1, INF}, new double[] {0, -0.0, 0.8414709848078965, NAN}, 1);
        unary(UnaryOp.COS, new double[] {0, Math.PI, 1, NAN}, new double[] {1, -1, 0.5403023058681398, NAN}, 1);
        unary(UnaryOp.TANH, new double[] {0, -0.0, 0.5, 20, INF, -INF}, new double[] {0, -0.0, 0.46211715726000974, 1, 1, -1}, 1);
    }

    @Test
    void activations() {
        unary(UnaryOp.SIGMOID, new double[] {0, 1, INF, -INF, -800, Math.log(3)}, new double[] {0.5, 0.7310585786300049, 1, 0, 0, 0.75}, 1);
        unary(UnaryOp.SILU, new double[] {0, 1, INF}, new double[] {0, 0.7310585786300049, INF}, 1);
        unary(UnaryOp.SOFTPLUS, new double[] {0, 20, 21, -30, -INF, INF, NAN},
                new double[] {0.6931471805599453, 20.000000002061153, 21, 9.357622968839737e-14, 0, INF, NAN}, 1);
        unary(UnaryOp.GELU_TANH, new double[] {0, 1, INF}, new double[] {0, 0.8411919906082767, INF}, 1);
        unary(UnaryOp.GELU_ERF, new double[] {0, 1, -1, INF}, new double[] {0, 0.8413447460685429, -0.15865525393145705, INF}, 2);
        // erfc(z) has relative condition number 2z² + O(1); the rounding of -x/√2 = 2.12… costs about 9 half-ulps.
        unary(UnaryOp.GELU_ERF, new double[] {-3}, new double[] {-0.0040496940948902835}, 6);
    }

    @Test
    void reluGivesPlusZeroForMinusZeroAndKeepsNan() {
        unary(UnaryOp.RELU, new double[] {-1, 2, -0.0, 0, NAN, -INF, INF}, new double[] {0, 2, 0, 0, NAN, 0, INF}, 0);
    }

    @Test
    void signIsPlusZeroForBothZerosAndNanForNan() {
        unary(UnaryOp.SIGN, new double[] {3, -2, 0, -0.0, NAN, -INF, 1e-320}, new double[] {1, -1, 0, 0, NAN, -1, 1}, 0);
    }

    @Test
    void unaryOnF32ComputesInDoubleAndRoundsOnce() {
        var x = input(0, DType.F32, 3);
        assertValues(DType.F32, new double[] {(float) Math.E, 1, 0.5f},
                run(new Node.Unary(UnaryOp.EXP, x), f32(1, 0, -0.6931472f)), 1);
        assertValues(DType.F32, new double[] {(float) Math.E, (float) Math.sqrt(2), 0.5f},
                run(new Node.Unary(UnaryOp.SQRT, x), f32((float) (Math.E * Math.E), 2, 0.25f)), 0);
    }

    @Test
    void unaryOnIntegersWraps() {
        var x = input(0, DType.I32, 5);
        Storage values = i32(5, -7, 0, MIN, 46341);
        assertValues(DType.I32, new double[] {-5, 7, 0, MIN, -46341}, run(new Node.Unary(UnaryOp.NEG, x), values));
        assertValues(DType.I32, new double[] {5, 7, 0, MIN, 46341}, run(new Node.Unary(UnaryOp.ABS, x), values));
        assertValues(DType.I32, new double[] {25, 49, 0, 0, -2147479015}, run(new Node.Unary(UnaryOp.SQUARE, x), values));
        assertValues(DType.I32, new double[] {5, 0, 0, 0, 46341}, run(new Node.Unary(UnaryOp.RELU, x), values));
        assertValues(DType.I32, new double[] {1, -1, 0, -1, 1}, run(new Node.Unary(UnaryOp.SIGN, x), values));
    }

    @Test
    void addSubMulFollowIeee() {
        binary(BinaryOp.ADD, new double[] {1, INF, INF, -0.0, -0.0, NAN}, new double[] {2, -INF, 1, -0.0, 0, 1},
                new double[] {3, NAN, INF, -0.0, 0, NAN});
        binary(BinaryOp.SUB, new double[] {5, INF, 0, -0.0, 1e308}, new double[] {3, INF, 0, 0, -1e308},
                new double[] {2, NAN, 0, -0.0, INF});
        binary(BinaryOp.MUL, new double[] {2, 0, -1, 1e308, NAN}, new double[] {3, INF, 0, 10, 0},
                new double[] {6, NAN, -0.0, INF, NAN});
    }

    @Test
    void divisionOfZeroByZeroIsNan() {
        binary(BinaryOp.DIV, new double[] {1, 0, 1, -1, 1, INF, 0}, new double[] {4, 0, 0, 0, -0.0, INF, -3},
                new double[] {0.25, NAN, INF, -INF, -INF, NAN, -0.0});
    }

    @Test
    void powOfAnythingToZeroIsOne() {
        binary(BinaryOp.POW, new double[] {2, NAN, INF, 0, -8, 4, -2, 0},
                new double[] {10, 0, -0.0, -1, 1.0 / 3, 0.5, 3, 0},
                new double[] {1024, 1, 1, INF, NAN, 2, -8, 1});
    }

    @Test
    void powOfOneIsOneEvenForNanAsInC() {
        binary(BinaryOp.POW, new double[] {1, 1, -1, -1, NAN},
                new double[] {NAN, INF, INF, -INF, 1},
                new double[] {1, 1, 1, 1, NAN});
    }

    @Test
    void maximumAndMinimumPropagateNanAndOrderZeros() {
        double[] left = {NAN, 1, -0.0, 0, 2, -INF}, right = {1, NAN, 0, -0.0, 3, 5};
        binary(BinaryOp.MAXIMUM, left, right, new double[] {NAN, NAN, 0, 0, 3, 5});
        binary(BinaryOp.MINIMUM, left, right, new double[] {NAN, NAN, -0.0, -0.0, 2, -INF});
    }

    @Test
    void comparisonsGiveBoolAndNanComparesFalse() {
        double[] left = {1, 2, NAN, 0, -INF, 3}, right = {2, 2, NAN, -0.0, INF, 1};
        comparison(BinaryOp.EQ, left, right, 0, 1, 0, 1, 0, 0);
        comparison(BinaryOp.NE, left, right, 1, 0, 1, 0, 1, 1);
        comparison(BinaryOp.LT, left, right, 1, 0, 0, 0, 1, 0);
        comparison(BinaryOp.LE, left, right, 1, 1, 0, 1, 1, 0);
        comparison(BinaryOp.GT, left, right, 0, 0, 0, 0, 0, 1);
        comparison(BinaryOp.GE, left, right, 0, 1, 0, 1, 0, 1);
    }

    @Test
    void comparisonsOnIntegersAndBools() {
        var a = input(0, DType.I32, 3);
        var b = input(1, DType.I32, 3);
        assertValues(DType.BOOL, new double[] {0, 1, 0}, run(new Node.Binary(BinaryOp.LT, a, b), i32(MAX, MIN, 7), i32(MIN, MAX, 7)));
        var p = input(0, DType.BOOL, 4);
        var q = input(1, DType.BOOL, 4);
        assertValues(DType.BOOL, new double[] {1, 0, 0, 1}, run(new Node.Binary(BinaryOp.EQ, p, q), bool(0, 0, 1, 1), bool(0, 1, 0, 1)));
    }

    @Test
    void integerArithmeticWrapsLikeJavaInt() {
        var a = input(0, DType.I32, 4);
        var b = input(1, DType.I32, 4);
        Storage left = i32(MAX, MIN, 65536, -7), right = i32(1, 1, 65536, 2);
        assertValues(DType.I32, new double[] {MIN, MIN + 1, 131072, -5}, run(new Node.Binary(BinaryOp.ADD, a, b), left, right));
        assertValues(DType.I32, new double[] {MAX - 1, MAX, 0, -9}, run(new Node.Binary(BinaryOp.SUB, a, b), left, right));
        assertValues(DType.I32, new double[] {MAX, MIN, 0, -14}, run(new Node.Binary(BinaryOp.MUL, a, b), left, right));
        assertValues(DType.I32, new double[] {MAX, 1, 65536, 2}, run(new Node.Binary(BinaryOp.MAXIMUM, a, b), left, right));
        assertValues(DType.I32, new double[] {1, MIN, 65536, -7}, run(new Node.Binary(BinaryOp.MINIMUM, a, b), left, right));
    }

    @Test
    void integerPowWrapsAndTruncatesNegativeExponents() {
        var a = input(0, DType.I32, 7);
        var b = input(1, DType.I32, 7);
        assertValues(DType.I32, new double[] {1024, MIN, 0, 0, -1, 1, 1},
                run(new Node.Binary(BinaryOp.POW, a, b), i32(2, 2, 2, 3, -1, 1, 0), i32(10, 31, 32, -1, -3, -5, 0)));
    }

    @Test
    void f32ArithmeticRoundsOnceToFloat() {
        var a = input(0, DType.F32, 4);
        var b = input(1, DType.F32, 4);
        Storage left = f32(0.1f, 1, Float.MAX_VALUE, 16777216f), right = f32(0.2f, 3, Float.MAX_VALUE, 1);
        // 0.1f + 0.2f is 0.30000000447034836 in double; stored once, it is the float 0.3f.
        assertValues(DType.F32, new double[] {0.3f, 4, INF, 16777216f}, run(new Node.Binary(BinaryOp.ADD, a, b), left, right));
        assertValues(DType.F32, new double[] {0.5f, 1f / 3, 1, 16777216f}, run(new Node.Binary(BinaryOp.DIV, a, b), left, right));
    }

    private static void unary(UnaryOp op, double[] x, double[] expected, int ulps) {
        var input = input(0, DType.F64, x.length);
        assertValues(DType.F64, expected, run(new Node.Unary(op, input), f64(x)), ulps);
    }

    private static void binary(BinaryOp op, double[] left, double[] right, double[] expected) {
        var a = input(0, DType.F64, left.length);
        var b = input(1, DType.F64, right.length);
        assertValues(DType.F64, expected, run(new Node.Binary(op, a, b), f64(left), f64(right)));
    }

    private static void comparison(BinaryOp op, double[] left, double[] right, double... expected) {
        var a = input(0, DType.F64, left.length);
        var b = input(1, DType.F64, right.length);
        assertValues(DType.BOOL, expected, run(new Node.Binary(op, a, b), f64(left), f64(right)));
    }
}
