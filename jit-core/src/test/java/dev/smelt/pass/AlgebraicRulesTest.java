// SPDX-License-Identifier: Apache-2.0
package dev.smelt.pass;

import static dev.smelt.pass.PassCheck.assertPass;
import static dev.smelt.pass.PassCheck.assertUnchanged;
import static dev.smelt.pass.PassCheck.rule;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.smelt.ir.Graph;
import dev.smelt.ir.Parser;
import dev.smelt.ir.Storage;
import dev.smelt.ref.Interpreter;
import java.util.List;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;

class AlgebraicRulesTest {
    private static final UnaryOperator<Graph> ALGEBRA = rule(AlgebraicRules::rewrite);

    @Test
    void multiplicativeAndAdditiveIdentities() {
        assertPass(ALGEBRA, """
                graph(%0: f32[2,3]) {
                  %1 = const 1.0 : f32[2,3]
                  %2 = mul %0 %1 : f32[2,3]
                  %3 = mul %1 %2 : f32[2,3]
                  %4 = const -0.0 : f32[2,3]
                  %5 = add %3 %4 : f32[2,3]
                  %6 = add %4 %5 : f32[2,3]
                  %7 = const 0.0 : f32[2,3]
                  %8 = sub %6 %7 : f32[2,3]
                  %9 = div %8 %1 : f32[2,3]
                  %10 = exp %9 : f32[2,3]
                  return %10
                }""", """
                graph(%0: f32[2,3]) {
                  %1 = exp %0 : f32[2,3]
                  return %1
                }""");
    }

    /// Autograd has run before the passes, so a stop-gradient is the identity it computes.
    @Test
    void stopGradientsAreTheIdentity() {
        assertPass(ALGEBRA, """
                graph(%0: f32[2,3]) {
                  %1 = stop_gradient %0 : f32[2,3]
                  %2 = exp %1 : f32[2,3]
                  return %2
                }""", """
                graph(%0: f32[2,3]) {
                  %1 = exp %0 : f32[2,3]
                  return %1
                }""");
    }

    /// `-0.0 + 0.0 = +0.0`, so `x + 0.0` is not `x`; likewise `0.0 - x` is not `-x` at `x = +0.0`.
    @Test
    void plusPositiveZeroAndZeroMinusXStayForFloats() {
        String text = """
                graph(%0: f32[2]) {
                  %1 = const 0.0 : f32[2]
                  %2 = add %0 %1 : f32[2]
                  %3 = sub %1 %0 : f32[2]
                  %4 = const -0.0 : f32[2]
                  %5 = sub %0 %4 : f32[2]
                  return %2, %3, %5
                }""";
        assertUnchanged(ALGEBRA, text);
        var results = Interpreter.run(Parser.parse(text), List.of(Storage.wrap(new float[] {-0.0f, 0.0f})));
        int positiveZero = Float.floatToIntBits(0.0f);
        assertEquals(positiveZero, Float.floatToIntBits(results.get(0).floats()[0]), "-0 + 0 = +0, not x = -0");
        assertEquals(positiveZero, Float.floatToIntBits(results.get(1).floats()[1]), "0 - (+0) = +0, not -x = -0");
        assertEquals(positiveZero, Float.floatToIntBits(results.get(2).floats()[0]), "-0 - (-0) = +0, not x = -0");
    }

    @Test
    void timesZeroAndSelfDifferenceFoldOnlyForIntegers() {
        assertUnchanged(ALGEBRA, """
                graph(%0: f64[3]) {
                  %1 = const 0.0 : f64[3]
                  %2 = mul %0 %1 : f64[3]
                  %3 = sub %0 %0 : f64[3]
                  %4 = eq %0 %0 : bool[3]
                  %5 = lt %0 %0 : bool[3]
                  return %2, %3, %4, %5
                }""");
        assertPass(ALGEBRA, """
                graph(%0: i32[3]) {
                  %1 = const 0 : i32[3]
                  %2 = mul %0 %1 : i32[3]
                  %3 = sub %0 %0 : i32[3]
                  %4 = eq %0 %0 : bool[3]
                  %5 = lt %0 %0 : bool[3]
                  %6 = add %1 %0 : i32[3]
                  %7 = sub %1 %0 : i32[3]
                  return %2, %3, %4, %5, %6, %7
                }""", """
                graph(%0: i32[3]) {
                  %1 = const 0.0 : i32[3]
                  %2 = const 1.0 : bool[3]
                  %3 = const 0.0 : bool[3]
                  %4 = neg %0 : i32[3]
                  return %1, %1, %2, %3, %0, %4
                }""");
    }

    @Test
    void signFlipsBecomeNegationAndDoubleNegationCancels() {
        assertPass(ALGEBRA, """
                graph(%0: f32[4]) {
                  %1 = const -1.0 : f32[4]
                  %2 = mul %0 %1 : f32[4]
                  %3 = div %2 %1 : f32[4]
                  %4 = const -0.0 : f32[4]
                  %5 = sub %4 %0 : f32[4]
                  %6 = neg %5 : f32[4]
                  %7 = abs %5 : f32[4]
                  %8 = abs %7 : f32[4]
                  return %3, %6, %8
                }""", """
                graph(%0: f32[4]) {
                  %1 = abs %0 : f32[4]
                  return %0, %0, %1
                }""");
    }

    /// The broadcast is an explicit `expand`, so `x * 1` keeps the broadcast shape.
    @Test
    void timesOneKeepsABroadcastShape() {
        assertPass(ALGEBRA, """
                graph(%0: f32[1,3]) {
                  %1 = expand %0 : f32[4,3]
                  %2 = const 1.0 : f32[4,3]
                  %3 = mul %1 %2 : f32[4,3]
                  return %3
                }""", """
                graph(%0: f32[1,3]) {
                  %1 = expand %0 : f32[4,3]
                  return %1
                }""");
    }

    @Test
    void powerIdentitiesFollowCsPow() {
        assertPass(ALGEBRA, """
                graph(%0: f32[3], %1: f32[3]) {
                  %2 = const 1.0 : f32[3]
                  %3 = pow %0 %2 : f32[3]
                  %4 = const -0.0 : f32[3]
                  %5 = pow %1 %4 : f32[3]
                  %6 = pow %2 %1 : f32[3]
                  return %3, %5, %6
                }""", """
                graph(%0: f32[3], %1: f32[3]) {
                  %2 = const 1.0 : f32[3]
                  return %0, %2, %2
                }""");
        assertUnchanged(ALGEBRA, """
                graph(%0: f32[3]) {
                  %1 = const 2.0 : f32[3]
                  %2 = pow %0 %1 : f32[3]
                  return %2
                }""");
    }

    @Test
    void whereOfOneValueAndExtremaOfItself() {
        assertPass(ALGEBRA, """
                graph(%0: f32[3], %1: f32[3]) {
                  %2 = lt %0 %1 : bool[3]
                  %3 = where %2 %1 %1 : f32[3]
                  %4 = maximum %3 %3 : f32[3]
                  %5 = minimum %4 %4 : f32[3]
                  return %5
                }""", """
                graph(%0: f32[3], %1: f32[3]) {
                  return %1
                }""");
    }

    @Test
    void castsToTheSameTypeOrThroughAWiderOneCollapseAsDoesAConcatOfOne() {
        assertPass(ALGEBRA, """
                graph(%0: f32[3], %1: i32[3], %2: bool[3]) {
                  %3 = cast %0 : f32[3]
                  %4 = cast %3 : f64[3]
                  %5 = cast %4 : f32[3]
                  %6 = cast %1 : f64[3]
                  %7 = cast %6 : f32[3]
                  %8 = cast %2 : f32[3]
                  %9 = cast %8 : bool[3]
                  %10 = concat %9 axis=0 : bool[3]
                  return %5, %7, %10
                }""", """
                graph(%0: f32[3], %1: i32[3], %2: bool[3]) {
                  %3 = cast %1 : f32[3]
                  return %0, %3, %2
                }""");
        // Narrowing first loses values: f64 → f32 → f64 rounds, i32 → f32 → i32 rounds above 2^24.
        assertUnchanged(ALGEBRA, """
                graph(%0: f64[3], %1: i32[3]) {
                  %2 = cast %0 : f32[3]
                  %3 = cast %2 : f64[3]
                  %4 = cast %1 : f32[3]
                  %5 = cast %4 : i32[3]
                  %6 = cast %0 : i32[3]
                  %7 = cast %6 : f64[3]
                  return %3, %5, %7
                }""");
    }

    @Test
    void reductionsOfOneElementAreTheElementExceptAFloatSum() {
        assertPass(ALGEBRA, """
                graph(%0: f32[2,1,3], %1: i32[2,1]) {
                  %2 = max %0 axes=[1] : f32[2,1,3]
                  %3 = prod %2 axes=[] : f32[2,1,3]
                  %4 = argmin %0 axes=[1] : i32[2,1,3]
                  %5 = sum %1 axes=[1] : i32[2,1]
                  %6 = sum %0 axes=[1] : f32[2,1,3]
                  return %3, %4, %5, %6
                }""", """
                graph(%0: f32[2,1,3], %1: i32[2,1]) {
                  %2 = const 0.0 : i32[2,1,3]
                  %3 = sum %0 axes=[1] : f32[2,1,3]
                  return %0, %2, %1, %3
                }""");
    }

    @Test
    void nestedExtremaMergeButFloatSumsDoNot() {
        assertPass(ALGEBRA, """
                graph(%0: f32[2,3,4], %1: i32[2,3]) {
                  %2 = max %0 axes=[2] : f32[2,3,1]
                  %3 = max %2 axes=[0] : f32[1,3,1]
                  %4 = sum %1 axes=[0] : i32[1,3]
                  %5 = sum %4 axes=[1] : i32[1,1]
                  %6 = sum %0 axes=[2] : f32[2,3,1]
                  %7 = sum %6 axes=[0] : f32[1,3,1]
                  %8 = min %0 axes=[2] : f32[2,3,1]
                  %9 = max %8 axes=[0] : f32[1,3,1]
                  return %3, %5, %7, %9
                }""", """
                graph(%0: f32[2,3,4], %1: i32[2,3]) {
                  %2 = max %0 axes=[0,2] : f32[1,3,1]
                  %3 = sum %1 axes=[0,1] : i32[1,1]
                  %4 = sum %0 axes=[2] : f32[2,3,1]
                  %5 = sum %4 axes=[0] : f32[1,3,1]
                  %6 = min %0 axes=[2] : f32[2,3,1]
                  %7 = max %6 axes=[0] : f32[1,3,1]
                  return %2, %3, %5, %7
                }""");
    }

    @Test
    void idempotentUnariesCollapse() {
        assertPass(ALGEBRA, """
                graph(%0: f32[3], %1: i32[3]) {
                  %2 = relu %0 : f32[3]
                  %3 = relu %2 : f32[3]
                  %4 = sign %1 : i32[3]
                  %5 = sign %4 : i32[3]
                  %6 = neg %1 : i32[3]
                  %7 = neg %6 : i32[3]
                  return %3, %5, %7
                }""", """
                graph(%0: f32[3], %1: i32[3]) {
                  %2 = relu %0 : f32[3]
                  %3 = sign %1 : i32[3]
                  return %2, %3, %1
                }""");
        assertUnchanged(ALGEBRA, """
                graph(%0: f32[3]) {
                  %1 = exp %0 : f32[3]
                  %2 = exp %1 : f32[3]
                  %3 = neg %0 : f32[3]
                  %4 = relu %3 : f32[3]
                  return %2, %4
                }""");
    }
}
