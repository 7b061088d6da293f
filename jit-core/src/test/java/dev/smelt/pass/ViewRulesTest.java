// SPDX-License-Identifier: Apache-2.0
package dev.smelt.pass;

import static dev.smelt.pass.PassCheck.assertPass;
import static dev.smelt.pass.PassCheck.assertUnchanged;
import static dev.smelt.pass.PassCheck.rule;

import dev.smelt.ir.Graph;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;

class ViewRulesTest {
    private static final UnaryOperator<Graph> VIEWS = rule(ViewRules::rewrite);

    @Test
    void identityViewsDisappear() {
        assertPass(VIEWS, """
                graph(%0: f32[2,3]) {
                  %1 = reshape %0 : f32[2,3]
                  %2 = permute %1 order=[0,1] : f32[2,3]
                  %3 = expand %2 : f32[2,3]
                  %4 = slice %3 axis=1 start=0 stop=3 step=1 : f32[2,3]
                  %5 = slice %4 axis=0 start=0 stop=2 step=5 : f32[1,3]
                  %6 = exp %5 : f32[1,3]
                  return %6
                }""", """
                graph(%0: f32[2,3]) {
                  %1 = slice %0 axis=0 start=0 stop=1 step=1 : f32[1,3]
                  %2 = exp %1 : f32[1,3]
                  return %2
                }""");
    }

    @Test
    void doubleTransposeIsTheIdentityAndPermutationsCompose() {
        assertPass(VIEWS, """
                graph(%0: f32[2,3,4]) {
                  %1 = permute %0 order=[0,2,1] : f32[2,4,3]
                  %2 = permute %1 order=[0,2,1] : f32[2,3,4]
                  %3 = permute %0 order=[1,2,0] : f32[3,4,2]
                  %4 = permute %3 order=[2,0,1] : f32[2,3,4]
                  %5 = permute %3 order=[1,0,2] : f32[4,3,2]
                  return %2, %4, %5
                }""", """
                graph(%0: f32[2,3,4]) {
                  %1 = permute %0 order=[2,1,0] : f32[4,3,2]
                  return %0, %0, %1
                }""");
    }

    @Test
    void reshapesMergeAndAPermuteOfUnitAxesIsAReshape() {
        assertPass(VIEWS, """
                graph(%0: f32[6,4]) {
                  %1 = reshape %0 : f32[2,3,4]
                  %2 = reshape %1 : f32[24]
                  %3 = reshape %0 : f32[1,6,1,4]
                  %4 = permute %3 order=[1,2,3,0] : f32[6,1,4,1]
                  return %2, %4
                }""", """
                graph(%0: f32[6,4]) {
                  %1 = reshape %0 : f32[24]
                  %2 = reshape %0 : f32[6,1,4,1]
                  return %1, %2
                }""");
    }

    @Test
    void slicesOfSlicesMergeAndEqualSelectionsBecomeOneNode() {
        // Elements 1, 3, 5, 7, 9 of 12, then every second of those: 1, 5, 9 = 1:10:4.
        assertPass(VIEWS, """
                graph(%0: f32[12,2]) {
                  %1 = slice %0 axis=0 start=1 stop=11 step=2 : f32[5,2]
                  %2 = slice %1 axis=0 start=0 stop=5 step=2 : f32[3,2]
                  %3 = slice %0 axis=0 start=1 stop=12 step=4 : f32[3,2]
                  %4 = add %2 %3 : f32[3,2]
                  return %4
                }""", """
                graph(%0: f32[12,2]) {
                  %1 = slice %0 axis=0 start=1 stop=10 step=4 : f32[3,2]
                  %2 = add %1 %1 : f32[3,2]
                  return %2
                }""");
    }

    /// Composing `3:5:3` with an empty `1:1` starts at 6, past the end: every empty selection is `0:0:1`.
    @Test
    void anEmptySliceOfASliceIsTheCanonicalEmptySlice() {
        assertPass(VIEWS, """
                graph(%0: f32[7,5]) {
                  %1 = slice %0 axis=1 start=3 stop=5 step=3 : f32[7,1]
                  %2 = slice %1 axis=1 start=1 stop=1 step=1 : f32[7,0]
                  %3 = slice %0 axis=1 start=4 stop=4 step=2 : f32[7,0]
                  return %2, %3
                }""", """
                graph(%0: f32[7,5]) {
                  %1 = slice %0 axis=1 start=0 stop=0 step=1 : f32[7,0]
                  return %1, %1
                }""");
    }

    @Test
    void chainsSettleAsExpandOfPermuteOfSlicesInAxisOrder() {
        assertPass(VIEWS, """
                graph(%0: f32[1,5,6]) {
                  %1 = expand %0 : f32[4,5,6]
                  %2 = permute %1 order=[2,0,1] : f32[6,4,5]
                  %3 = slice %2 axis=0 start=1 stop=5 step=1 : f32[4,4,5]
                  %4 = slice %3 axis=1 start=0 stop=2 step=1 : f32[4,2,5]
                  %5 = slice %4 axis=2 start=2 stop=5 step=2 : f32[4,2,2]
                  return %5
                }""", """
                graph(%0: f32[1,5,6]) {
                  %1 = slice %0 axis=1 start=2 stop=5 step=2 : f32[1,2,6]
                  %2 = slice %1 axis=2 start=1 stop=5 step=1 : f32[1,2,4]
                  %3 = reshape %2 : f32[2,4]
                  %4 = permute %3 order=[1,0] : f32[4,2]
                  %5 = reshape %4 : f32[4,1,2]
                  %6 = expand %5 : f32[4,2,2]
                  return %6
                }""");
    }

    /// Where a view puts its unit axes is free, so two chains that differ only there are one node.
    @Test
    void permutationsMoveOnlyLongAxesSoUnitAxisPlacementDoesNotMatter() {
        assertPass(VIEWS, """
                graph(%0: f32[3,8]) {
                  %1 = reshape %0 : f32[1,3,8]
                  %2 = permute %1 order=[2,1,0] : f32[8,3,1]
                  %3 = reshape %0 : f32[3,1,8]
                  %4 = permute %3 order=[2,0,1] : f32[8,3,1]
                  %5 = sub %2 %4 : f32[8,3,1]
                  return %5
                }""", """
                graph(%0: f32[3,8]) {
                  %1 = permute %0 order=[1,0] : f32[8,3]
                  %2 = reshape %1 : f32[8,3,1]
                  %3 = sub %2 %2 : f32[8,3,1]
                  return %3
                }""");
    }

    @Test
    void slicesSinkThroughReshapesThatOnlyMoveUnitAxes() {
        assertPass(VIEWS, """
                graph(%0: f32[4,6]) {
                  %1 = reshape %0 : f32[4,1,6]
                  %2 = slice %1 axis=2 start=1 stop=6 step=2 : f32[4,1,3]
                  %3 = reshape %0 : f32[2,2,6]
                  %4 = slice %3 axis=2 start=1 stop=6 step=2 : f32[2,2,3]
                  return %2, %4
                }""", """
                graph(%0: f32[4,6]) {
                  %1 = slice %0 axis=1 start=1 stop=6 step=2 : f32[4,3]
                  %2 = reshape %1 : f32[4,1,3]
                  %3 = reshape %0 : f32[2,2,6]
                  %4 = slice %3 axis=2 start=1 stop=6 step=2 : f32[2,2,3]
                  return %2, %4
                }""");
    }

    /// A batch of one keeps its unit axis out of the permutation, and the matmul still sees the transpose.
    @Test
    void aTransposeAroundUnitBatchAxesStillBecomesAFlag() {
        assertPass(VIEWS, """
                graph(%0: f32[1,5,3], %1: f32[1,5,4]) {
                  %2 = permute %0 order=[0,2,1] : f32[1,3,5]
                  %3 = matmul %2 %1 : f32[1,3,4]
                  return %3
                }""", """
                graph(%0: f32[1,5,3], %1: f32[1,5,4]) {
                  %2 = matmul %0 %1 transpose_a : f32[1,3,4]
                  return %2
                }""");
    }

    @Test
    void expandsComposeAndTransposedMatmulOperandsBecomeFlags() {
        assertPass(VIEWS, """
                graph(%0: f32[1,1,3], %1: f32[2,3,5], %2: f32[2,4,3]) {
                  %3 = expand %0 : f32[1,4,3]
                  %4 = expand %3 : f32[2,4,3]
                  %5 = permute %1 order=[0,2,1] : f32[2,5,3]
                  %6 = matmul %4 %5 transpose_b : f32[2,4,5]
                  %7 = permute %2 order=[0,2,1] : f32[2,3,4]
                  %8 = matmul %7 %1 transpose_a : f32[2,4,5]
                  return %6, %8
                }""", """
                graph(%0: f32[1,1,3], %1: f32[2,3,5], %2: f32[2,4,3]) {
                  %3 = expand %0 : f32[2,4,3]
                  %4 = matmul %3 %1 : f32[2,4,5]
                  %5 = matmul %2 %1 : f32[2,4,5]
                  return %4, %5
                }""");
    }

    @Test
    void viewsThatChangeTheIndexMapStay() {
        assertUnchanged(VIEWS, """
                graph(%0: f32[2,3], %1: f32[1,3]) {
                  %2 = permute %0 order=[1,0] : f32[3,2]
                  %3 = reshape %2 : f32[6]
                  %4 = expand %1 : f32[5,3]
                  %5 = slice %0 axis=1 start=1 stop=3 step=1 : f32[2,2]
                  %6 = reshape %0 : f32[3,2]
                  %7 = permute %6 order=[1,0] : f32[2,3]
                  return %3, %4, %5, %7
                }""");
    }
}
