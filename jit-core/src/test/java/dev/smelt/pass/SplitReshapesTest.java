// SPDX-License-Identifier: Apache-2.0
package dev.smelt.pass;

import static dev.smelt.pass.PassCheck.assertPass;
import static dev.smelt.pass.PassCheck.assertUnchanged;
import static dev.smelt.pass.PassCheck.rule;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.smelt.ir.Graph;
import dev.smelt.ir.Shape;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;

class SplitReshapesTest {
    private static final UnaryOperator<Graph> SPLITS = rule(SplitReshapes::rewrite);

    @Test
    void aBiasAddOnASplitProductRunsInTheProductsShape() {
        assertPass(SPLITS, """
                graph(%0: f32[6,4], %1: f32[4,5], %2: f32[5]) {
                  %3 = matmul %0 %1 : f32[6,5]
                  %4 = reshape %3 : f32[2,3,5]
                  %5 = reshape %2 : f32[1,1,5]
                  %6 = expand %5 : f32[2,3,5]
                  %7 = add %4 %6 : f32[2,3,5]
                  %8 = tanh %7 : f32[2,3,5]
                  %9 = const 2.0 : f32[2,3,5]
                  %10 = mul %8 %9 : f32[2,3,5]
                  return %10
                }""", """
                graph(%0: f32[6,4], %1: f32[4,5], %2: f32[5]) {
                  %3 = matmul %0 %1 : f32[6,5]
                  %4 = reshape %2 : f32[1,1,5]
                  %5 = reshape %4 : f32[1,5]
                  %6 = expand %5 : f32[6,5]
                  %7 = add %3 %6 : f32[6,5]
                  %8 = tanh %7 : f32[6,5]
                  %9 = const 2.0 : f32[6,5]
                  %10 = mul %8 %9 : f32[6,5]
                  %11 = reshape %10 : f32[2,3,5]
                  return %11
                }""");
    }

    @Test
    void aBroadcastAlongTheSplitRowsAndUnitAxesLinesUpAndWhereMovesToo() {
        assertPass(SPLITS, """
                graph(%0: f32[6,5], %1: f32[5], %2: bool[6,5]) {
                  %3 = reshape %0 : f32[1,2,3,5]
                  %4 = reshape %1 : f32[1,1,1,5]
                  %5 = expand %4 : f32[1,2,3,5]
                  %6 = reshape %2 : bool[1,2,3,5]
                  %7 = where %6 %3 %5 : f32[1,2,3,5]
                  return %7
                }""", """
                graph(%0: f32[6,5], %1: f32[5], %2: bool[6,5]) {
                  %3 = reshape %1 : f32[1,1,1,5]
                  %4 = reshape %3 : f32[1,5]
                  %5 = expand %4 : f32[6,5]
                  %6 = where %2 %0 %5 : f32[6,5]
                  %7 = reshape %6 : f32[1,2,3,5]
                  return %7
                }""");
    }

    @Test
    void mergesMixedRunsAndOtherOperandsStay() {
        // a merge is not moved; a broadcast of one of two split axes has no shape before the split;
        // an operand computed in the split shape keeps the reshape where it is
        assertUnchanged(SPLITS, """
                graph(%0: f32[2,3,5], %1: f32[6,5], %2: f32[2,1,5], %3: f32[2,3,5]) {
                  %4 = reshape %0 : f32[6,5]
                  %5 = exp %4 : f32[6,5]
                  %6 = reshape %1 : f32[2,3,5]
                  %7 = expand %2 : f32[2,3,5]
                  %8 = add %6 %7 : f32[2,3,5]
                  %9 = add %6 %3 : f32[2,3,5]
                  return %5, %8, %9
                }""");
    }

    @Test
    void splitsAreRunsOfTheLongAxesWithTheSameProduct() {
        assertTrue(SplitReshapes.splits(Shape.of(1024, 4096), Shape.of(8, 128, 4096)));
        assertTrue(SplitReshapes.splits(Shape.of(1, 4096), Shape.of(1, 1, 4096)));
        assertTrue(SplitReshapes.splits(Shape.of(6, 5), Shape.of(1, 2, 3, 1, 5)));
        assertFalse(SplitReshapes.splits(Shape.of(8, 128, 4096), Shape.of(1024, 4096)));
        assertFalse(SplitReshapes.splits(Shape.of(6, 4), Shape.of(4, 3, 2)));
    }
}
