// SPDX-License-Identifier: Apache-2.0
package dev.smelt.testing;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.smelt.ir.Parser;
import dev.smelt.ir.Storage;
import dev.smelt.ref.Interpreter;
import java.util.List;
import org.junit.jupiter.api.Test;

/// Cases the random programs of `stress` found where [GraphTolerance] derived a bound too small: a
/// finite one for a result that another valid evaluation order computes differently in kind (±∞ or
/// NaN), which must be unbounded, not compared, and bounds lost to overflow inside the rule.
class GraphToleranceTest {
    /// `[MAX, MAX, MAX]·[2, -3, -1]` in f32 is -2·MAX, which the interpreter (adding in double)
    /// rounds to -∞; an f32 accumulation overflows on the first product, and an FMA then keeps +∞
    /// (plain adds give NaN). Reassociation bounds assume partial sums stay finite: past the
    /// largest float they do not.
    @Test
    void f32MatmulWhosePartialSumsMayOverflowIsUnbounded() {
        assertEquals(Double.POSITIVE_INFINITY, bound("""
                graph(%0: f32[1,3], %1: f32[3,1]) {
                  %2 = matmul %0 %1 : f32[1,1]
                  return %2
                }
                """, Storage.wrap(new float[] {Float.MAX_VALUE, Float.MAX_VALUE, Float.MAX_VALUE}), Storage.wrap(new float[] {2, -3, -1})));
    }

    /// The same for a sum: `MAX + MAX - MAX - MAX` is 0 in double and ∞ or NaN in f32, by order.
    @Test
    void f32SumWhosePartialSumsMayOverflowIsUnbounded() {
        assertEquals(Double.POSITIVE_INFINITY, bound("""
                graph(%0: f32[4]) {
                  %1 = sum %0 axes=[0] : f32[1]
                  return %1
                }
                """, Storage.wrap(new float[] {Float.MAX_VALUE, Float.MAX_VALUE, -Float.MAX_VALUE, -Float.MAX_VALUE})));
    }

    /// `MAX·(-53) + 2.37·28.4 + MAX·2.4` is NaN by plain adds (-∞ + ∞) and -∞ with an FMA (which
    /// does not round `MAX·2.4` to ∞ first), so `result < 0` may be false or true: the matmul's
    /// unbounded error makes the comparison unbounded even though the reference value is NaN.
    @Test
    void comparisonOfAValueWithUnboundedErrorIsUnbounded() {
        assertEquals(Double.POSITIVE_INFINITY, bound("""
                graph(%0: f64[1,3], %1: f64[3,1]) {
                  %2 = matmul %0 %1 : f64[1,1]
                  %3 = const 0.0 : f64[1,1]
                  %4 = lt %2 %3 : bool[1,1]
                  return %4
                }
                """, Storage.wrap(new double[] {Double.MAX_VALUE, 2.37, Double.MAX_VALUE}), Storage.wrap(new double[] {-53, 28.4, 2.4})));
    }

    /// The vector `sigmoid` computes `1 / (1 + e⁻ˣ)` in f32, where `e⁻ˣ` overflows below x ≈ -88.7
    /// and the result is 0 against the reference's subnormal: [Tolerance] measured and documents
    /// that floor (`Float.MIN_NORMAL`), so the graph bound includes it.
    @Test
    void sigmoidMayGiveZeroForASubnormalResult() {
        var x = Storage.wrap(new float[] {-88.7f});
        String graph = """
                graph(%0: f32[1]) {
                  %1 = sigmoid %0 : f32[1]
                  return %1
                }
                """;
        double reference = Interpreter.run(Parser.parse(graph), List.of(x)).getFirst().get(0);
        assertEquals(null, GraphTolerance.mismatch(reference, 0, bound(graph, x)), "reference " + reference);
    }

    /// `cos(x) / c` for c near `Double.MAX_VALUE` is subnormal in f64: the bound of a quotient,
    /// `(a·ec + c·ea) / (c·(c − ec))`, formed `c·c` and overflowed to ∞, which made it 0, so an
    /// inline `f32` `cos` an ulp away from the reference failed (seed 203484).
    @Test
    void aQuotientByAHugeDivisorKeepsTheDividendsError() {
        double bound = bound("""
                graph(%0: f32[1], %1: f64[1]) {
                  %2 = cos %0 : f32[1]
                  %3 = cast %2 : f64[1]
                  %4 = div %3 %1 : f64[1]
                  return %4
                }
                """, Storage.wrap(new float[] {0.7f}), Storage.wrap(new double[] {1.5e308}));
        double cosUlp = Math.ulp((float) Math.cos(0.7)) / 1.5e308;
        org.junit.jupiter.api.Assertions.assertTrue(bound >= cosUlp, "bound " + bound + " against an ulp of cos, divided: " + cosUlp);
    }

    /// A dividend near the smallest normal `f64` over a divisor with error: the rule formed
    /// `|a|·ec`, which underflowed to 0, and held the quotient to its own rounding, so a softmax an
    /// ulp off the reference's made `x / softmax(x)` fail (seed 306283). The divisor's ulp, carried
    /// to the quotient, is the least the bound must allow.
    @Test
    void aTinyDividendKeepsTheDivisorsError() {
        double a = 5e-308, c = Math.exp(-4.8);
        double bound = bound("""
                graph(%0: f64[1], %1: f64[1]) {
                  %2 = exp %1 : f64[1]
                  %3 = div %0 %2 : f64[1]
                  return %3
                }
                """, Storage.wrap(new double[] {a}), Storage.wrap(new double[] {-4.8}));
        double divisorsUlp = a / c * (Math.ulp(c) / c);
        org.junit.jupiter.api.Assertions.assertTrue(bound >= divisorsUlp, "bound " + bound + " against an ulp of the divisor, carried: " + divisorsUlp);
    }

    /// A scatterAdd in f32 rounds once per source it adds, and the reference adds in f64: 1 + 3e-8
    /// + 3e-8 is 1 in f32 and 1.00000006 exactly. The rule held it to the sources' own errors, 0
    /// here (seed 12129: 66 sources into 33 columns, off by 1.5e-5 against a bound of 4e-6).
    @Test
    void aScatterAddBoundsTheRoundingOfEachAddition() {
        double bound = bound("""
                graph(%0: f32[1], %1: i32[3], %2: f32[3]) {
                  %3 = scatter %0 %1 %2 axis=0 add : f32[1]
                  return %3
                }
                """, Storage.wrap(new float[] {0}), Storage.wrap(new int[] {0, 0, 0}), Storage.wrap(new float[] {1, 3e-8f, 3e-8f}));
        double exact = 1 + 2 * (double) 3e-8f, rounded = (1f + 3e-8f) + 3e-8f;
        org.junit.jupiter.api.Assertions.assertTrue(2 * bound >= exact - rounded, "bound " + bound + " against the f32 sum's error " + (exact - rounded));
    }

    /// `1/x` where x's error exceeds x itself has no bound: the rule squared `|x| − e` before
    /// checking that it is positive, so a huge error gave a tiny derivative and a bound of a
    /// fraction of an ulp (seed 209610: a softmax of large integers, reciprocated).
    @Test
    void aReciprocalOfAValueWithinItsErrorOfZeroIsUnbounded() {
        assertEquals(Double.POSITIVE_INFINITY, bound("""
                graph(%0: f32[3]) {
                  %1 = const 3.0e7 : f32[3]
                  %2 = add %0 %1 : f32[3]
                  %3 = sub %2 %1 : f32[3]
                  %4 = reciprocal %3 : f32[3]
                  return %4
                }
                """, Storage.wrap(new float[] {0.5f, 1, 2})));
    }

    /// An `f32` variance of equal values near 1e30: 0 from an exact mean, but a mean summed in
    /// `f32` lanes is a few ulps off, and the deviations (~1e23) square past `Float.MAX_VALUE` to
    /// ∞ (seed 311624). The variance's error reaches past the largest float, so it is unbounded.
    @Test
    void aValueWhoseErrorReachesPastTheLargestFloatIsUnbounded() {
        float[] equal = new float[64];
        java.util.Arrays.fill(equal, 1e30f);
        assertEquals(Double.POSITIVE_INFINITY, bound("""
                graph(%0: f32[64]) {
                  %1 = sum %0 axes=[0] : f32[1]
                  %2 = const 64.0 : f32[1]
                  %3 = div %1 %2 : f32[1]
                  %4 = expand %3 : f32[64]
                  %5 = sub %0 %4 : f32[64]
                  %6 = square %5 : f32[64]
                  %7 = sum %6 axes=[0] : f32[1]
                  return %7
                }
                """, Storage.wrap(equal)));
    }

    /// A sum that is 0 with error, times a subnormal: the bound of the product underflowed to 0 and
    /// demanded the reference's +0 where a sum in another order gives -0 (seed 409131).
    @Test
    void anErrorBoundDoesNotUnderflowToExactness() {
        double bound = bound("""
                graph(%0: f32[4], %1: f64[1]) {
                  %2 = sum %0 axes=[0] : f32[1]
                  %3 = cast %2 : f64[1]
                  %4 = mul %3 %1 : f64[1]
                  return %4
                }
                """, Storage.wrap(new float[] {1e-5f, 3, -1e-5f, -3}), Storage.wrap(new double[] {Double.MIN_VALUE}));
        org.junit.jupiter.api.Assertions.assertTrue(bound >= Double.MIN_VALUE, "bound " + bound);
    }

    /// `rsqrt(exp(489))` and `1 / exp(489)` carry the exponent's error (a matmul's here, about
    /// 1e-12 relative once through `exp`), but their derivatives `x^-1.5 / 2` and `1/x²`, formed on
    /// their own, overflow or underflow for x = 2.7e212, and the bound was their rounding alone
    /// (seed 131142: a compiled result 2.8e-14 off, within what the matmul allows, failed).
    @Test
    void aHugeOperandsErrorReachesItsRsqrtAndReciprocal() {
        var a = Storage.wrap(new double[] {48.1, 33.7}); // a product of 489.1, its K·ε·Σ|a||b| ≈ 2e-13
        var b = Storage.wrap(new double[] {7.3, 4.1});
        for (String op : new String[] {"rsqrt", "reciprocal"}) {
            String graph = """
                    graph(%%0: f64[1,2], %%1: f64[2,1]) {
                      %%2 = matmul %%0 %%1 : f64[1,1]
                      %%3 = exp %%2 : f64[1,1]
                      %%4 = %s %%3 : f64[1,1]
                      return %%4
                    }
                    """.formatted(op);
            double value = Interpreter.run(Parser.parse(graph), List.of(a, b)).getFirst().get(0);
            double relative = bound(graph, a, b) / value, expected = op.equals("rsqrt") ? 0.5 * 489.1 * 2e-16 : 489.1 * 2e-16;
            assertTrue(relative > expected && relative < 100 * expected, op + ": relative bound " + relative);
        }
    }

    /// An infinite argument or constant is exact: `where(x == ∞, x, 2)` is compared at every
    /// element, ±∞ included (every element was left out, seed 1319 of the random programs).
    @Test
    void anExactInfinityIsComparedExactly() {
        double[] bounds = bounds("""
                graph(%0: f32[3]) {
                  %1 = const Infinity : f32[3]
                  %2 = eq %0 %1 : bool[3]
                  %3 = const 2.0 : f32[3]
                  %4 = where %2 %0 %3 : f32[3]
                  return %4
                }
                """, Storage.wrap(new float[] {Float.POSITIVE_INFINITY, 1, Float.NEGATIVE_INFINITY}));
        assertArrayEquals(new double[] {0, 0, 0}, bounds);
    }

    /// An argsort's row is left out only where two of its values may swap: `exp` rounds, but 1,
    /// e and e² cannot change places, while `exp(1)` and `exp(1 + ulp)` may.
    @Test
    void anArgsortRowIsUnboundedOnlyWhereItsValuesMayMeet() {
        String graph = """
                graph(%%0: f32[2,3]) {
                  %%1 = exp %%0 : f32[2,3]
                  %%2 = argsort %%1 axis=1%s : i32[2,3]
                  return %%2
                }
                """;
        var x = Storage.wrap(new float[] {0, 1, 2, 1, Math.nextUp(1f), 3});
        for (String direction : List.of("", " descending")) {
            double[] bounds = bounds(graph.formatted(direction), x);
            assertArrayEquals(new double[] {0, 0, 0}, java.util.Arrays.copyOfRange(bounds, 0, 3), direction);
            assertTrue(java.util.Arrays.stream(bounds, 3, 6).allMatch(b -> b == Double.POSITIVE_INFINITY), direction + java.util.Arrays.toString(bounds));
        }
    }

    /// An integer cast to a float is exact up to 2^24 in `f32` (and always in `f64`): a mask's 0
    /// compared with 0 is compared (it was given a subnormal's rounding, within which `== 0` may
    /// flip), while 2^24 + 1 rounds.
    @Test
    void anIntegerCastToAFloatIsExactWhereItFits() {
        var x = Storage.wrap(new int[] {0, 1, 16777217});
        assertArrayEquals(new double[] {0, 0, 0}, bounds("""
                graph(%0: i32[3]) {
                  %1 = cast %0 : f32[3]
                  %2 = const 0.0 : f32[3]
                  %3 = eq %1 %2 : bool[3]
                  return %3
                }
                """, x));
        double[] cast = bounds("""
                graph(%0: i32[3]) {
                  %1 = cast %0 : f32[3]
                  return %1
                }
                """, x);
        assertArrayEquals(new double[] {0, 0}, java.util.Arrays.copyOfRange(cast, 0, 2));
        assertTrue(cast[2] > 0, "2^24 + 1 rounds in f32");
        assertEquals(0, bound("""
                graph(%0: i32[1]) {
                  %1 = cast %0 : f64[1]
                  return %1
                }
                """, Storage.wrap(new int[] {Integer.MAX_VALUE})));
    }

    /// An op that rounds once gives the same bits from exact operands, ∞ included: `1 / 0`,
    /// `rsqrt(-0)` and a product past the largest float are compared, as is the NaN of `sqrt(-2)`
    /// and of anything computed from a NaN both sides share. An ∞ from inexact operands is not.
    @Test
    void anInfinityOrNaNFromExactOperandsIsComparedExactly() {
        var x = Storage.wrap(new float[] {0, -0f, 3e38f, -2, Float.NaN});
        for (String op : List.of("reciprocal", "rsqrt", "square", "sqrt", "exp")) {
            double[] bounds = bounds("""
                    graph(%%0: f32[5]) {
                      %%1 = %s %%0 : f32[5]
                      %%2 = const 2.0 : f32[5]
                      %%3 = mul %%1 %%2 : f32[5]
                      return %%3
                    }
                    """.formatted(op), x);
            assertTrue(java.util.Arrays.stream(bounds).allMatch(Double::isFinite), op + ": " + java.util.Arrays.toString(bounds));
        }
        assertEquals(Double.POSITIVE_INFINITY, bound("""
                graph(%0: f32[2]) {
                  %1 = sum %0 axes=[0] : f32[1]
                  %2 = const 1.0e38 : f32[1]
                  %3 = mul %1 %2 : f32[1]
                  return %3
                }
                """, Storage.wrap(new float[] {5, 0.1f})), "5.1·1e38 rounds past the largest float from a rounded sum");
    }

    /// `exp` is not correctly rounded: from exact x its ∞ is certain only where the exact result
    /// lies beyond its ulps of the largest float. exp(89) is ∞ everywhere; exp(88.72283935546875),
    /// within an ulp of `Float.MAX_VALUE`, may round either way; `log(0)` is -∞ everywhere.
    @Test
    void aTranscendentalsInfinityIsExactOnlyPastItsUlpsOfOverflow() {
        double[] bounds = bounds("""
                graph(%0: f32[2]) {
                  %1 = exp %0 : f32[2]
                  return %1
                }
                """, Storage.wrap(new float[] {89, 88.72283935546875f}));
        assertEquals(0, bounds[0]);
        assertEquals(Double.POSITIVE_INFINITY, bounds[1]);
        assertEquals(0, bound("""
                graph(%0: f32[1]) {
                  %1 = log %0 : f32[1]
                  return %1
                }
                """, Storage.wrap(new float[] {0})));
    }

    /// An ∞ both sides share, added to a value with error, stays that ∞ (a finite value with a
    /// finite bound is finite everywhere): the sum is compared, and a finite bound demands the same ∞.
    @Test
    void aSharedInfinityPlusAnInexactValueIsThatInfinity() {
        assertTrue(Double.isFinite(bound("""
                graph(%0: f32[3]) {
                  %1 = sum %0 axes=[0] : f32[1]
                  %2 = const -Infinity : f32[1]
                  %3 = add %1 %2 : f32[1]
                  return %3
                }
                """, Storage.wrap(new float[] {0.1f, 0.2f, 0.3f}))));
    }

    private static double[] bounds(String graph, Storage... inputs) {
        Storage result = Interpreter.run(GraphTolerance.bounds(Parser.parse(graph)), List.of(inputs)).getFirst();
        double[] values = new double[result.size()];
        for (int i = 0; i < values.length; i++) values[i] = result.get(i);
        return values;
    }

    private static double bound(String graph, Storage... inputs) { return bounds(graph, inputs)[0]; }
}
