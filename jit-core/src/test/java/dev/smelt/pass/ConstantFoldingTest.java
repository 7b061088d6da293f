// SPDX-License-Identifier: Apache-2.0
package dev.smelt.pass;

import static dev.smelt.pass.PassCheck.assertPass;
import static dev.smelt.pass.PassCheck.assertUnchanged;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import dev.smelt.ir.BinaryOp;
import dev.smelt.ir.Graph;
import dev.smelt.ir.Node;
import dev.smelt.ir.Parser;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class ConstantFoldingTest {
    @Test
    void arithmeticOnConstantsRoundsToTheDtypeAsTheInterpreterDoes() {
        // 0.1 + 0.2 in double, rounded once to f32: 0.30000001192092896, not the f64 sum.
        assertPass(ConstantFolding::apply, """
                graph() {
                  %0 = const 0.1 : f32[3]
                  %1 = const 0.2 : f32[3]
                  %2 = add %0 %1 : f32[3]
                  return %2
                }""", """
                graph() {
                  %0 = const 0.30000001192092896 : f32[3]
                  return %0
                }""");
    }

    @Test
    void specialValuesFoldAsIeeeSays() {
        assertPass(ConstantFolding::apply, """
                graph() {
                  %0 = const -0.0 : f64[2]
                  %1 = const 0.0 : f64[2]
                  %2 = add %0 %1 : f64[2]
                  %3 = const Infinity : f64[2]
                  %4 = sub %3 %3 : f64[2]
                  %5 = mul %1 %3 : f64[2]
                  %6 = relu %0 : f64[2]
                  %7 = neg %1 : f64[2]
                  %8 = maximum %0 %1 : f64[2]
                  %9 = eq %4 %4 : bool[2]
                  %10 = log %0 : f64[2]
                  return %2, %4, %5, %6, %7, %8, %9, %10
                }""", """
                graph() {
                  %0 = const 0.0 : f64[2]
                  %1 = const NaN : f64[2]
                  %2 = const -0.0 : f64[2]
                  %3 = const 0.0 : bool[2]
                  %4 = const -Infinity : f64[2]
                  return %0, %1, %1, %0, %2, %0, %3, %4
                }""");
    }

    @Test
    void integerArithmeticWrapsAndCastsSaturate() {
        assertPass(ConstantFolding::apply, """
                graph() {
                  %0 = const 2147483647 : i32[]
                  %1 = const 1 : i32[]
                  %2 = add %0 %1 : i32[]
                  %3 = const 1.0E20 : f32[]
                  %4 = cast %3 : i32[]
                  %5 = const NaN : f32[]
                  %6 = cast %5 : i32[]
                  %7 = cast %5 : bool[]
                  %8 = const 0.1 : f64[]
                  %9 = cast %8 : f32[]
                  return %2, %4, %6, %7, %9
                }""", """
                graph() {
                  %0 = const -2.147483648E9 : i32[]
                  %1 = const 2.147483647E9 : i32[]
                  %2 = const 0.0 : i32[]
                  %3 = const 1.0 : bool[]
                  %4 = const 0.10000000149011612 : f32[]
                  return %0, %1, %2, %3, %4
                }""");
    }

    @Test
    void viewsOfASplatAreASplatOfTheViewsShapeWithoutMaterialising() {
        // A billion-element broadcast stays one number.
        assertPass(ConstantFolding::apply, """
                graph(%0: f32[1000,1000]) {
                  %1 = const 2.0 : f32[1]
                  %2 = reshape %1 : f32[1,1]
                  %3 = expand %2 : f32[1000,1000]
                  %4 = mul %0 %3 : f32[1000,1000]
                  %5 = permute %3 order=[1,0] : f32[1000,1000]
                  %6 = slice %5 axis=0 start=1 stop=7 step=2 : f32[3,1000]
                  return %4, %6
                }""", """
                graph(%0: f32[1000,1000]) {
                  %1 = const 2.0 : f32[1000,1000]
                  %2 = mul %0 %1 : f32[1000,1000]
                  %3 = const 2.0 : f32[3,1000]
                  return %2, %3
                }""");
    }

    @Test
    void whereWithAConstantConditionPicksItsBranchAndTheOtherDies() {
        assertPass(ConstantFolding::apply, """
                graph(%0: f32[4,4], %1: f32[4,4]) {
                  %2 = const 1.0 : f32[4,4]
                  %3 = const 2.0 : f32[4,4]
                  %4 = lt %2 %3 : bool[4,4]
                  %5 = matmul %0 %1 : f32[4,4]
                  %6 = exp %0 : f32[4,4]
                  %7 = where %4 %6 %5 : f32[4,4]
                  return %7
                }""", """
                graph(%0: f32[4,4], %1: f32[4,4]) {
                  %2 = exp %0 : f32[4,4]
                  return %2
                }""");
    }

    @Test
    void reductionsOfASplatFoldInIndexOrderFromTheIdentity() {
        // Σ of 3 × 0.1f in double = 0.30000000447034836, rounded to f32; max keeps NaN; argmax is the first.
        assertPass(ConstantFolding::apply, """
                graph() {
                  %0 = const 0.1 : f32[2,3]
                  %1 = sum %0 axes=[1] : f32[2,1]
                  %2 = const NaN : f64[5]
                  %3 = max %2 axes=[0] : f64[1]
                  %4 = argmax %0 axes=[1] : i32[2,1]
                  %5 = const 3 : i32[70000]
                  %6 = prod %5 axes=[0] : i32[1]
                  %7 = sum %5 axes=[0] : i32[1]
                  return %1, %3, %4, %6, %7
                }""", """
                graph() {
                  %0 = const 0.30000001192092896 : f32[2,1]
                  %1 = const NaN : f64[1]
                  %2 = const 0.0 : i32[2,1]
                  %3 = const POWER : i32[1]
                  %4 = const 210000.0 : i32[1]
                  return %0, %1, %2, %3, %4
                }""".replace("POWER", Double.toString(BinaryOp.POW.applyInt(3, 70000))));
    }

    @Test
    void reductionsAndMatmulsOverAnEmptyAxisAreTheIdentity() {
        assertPass(ConstantFolding::apply, """
                graph(%0: f32[3,0], %1: i32[0,2], %2: f32[0,5]) {
                  %3 = sum %0 axes=[1] : f32[3,1]
                  %4 = max %0 axes=[1] : f32[3,1]
                  %5 = min %1 axes=[0] : i32[1,2]
                  %6 = matmul %0 %2 : f32[3,5]
                  return %3, %4, %5, %6
                }""", """
                graph(%0: f32[3,0], %1: i32[0,2], %2: f32[0,5]) {
                  %3 = const 0.0 : f32[3,1]
                  %4 = const -Infinity : f32[3,1]
                  %5 = const 2.147483647E9 : i32[1,2]
                  %6 = const 0.0 : f32[3,5]
                  return %3, %4, %5, %6
                }""");
    }

    @Test
    void matmulOfSplatsIsTheDotProductInDouble() {
        assertPass(ConstantFolding::apply, """
                graph() {
                  %0 = const 0.1 : f32[2,3]
                  %1 = const 3.0 : f32[3,4]
                  %2 = matmul %0 %1 : f32[2,4]
                  return %2
                }""", """
                graph() {
                  %0 = const 0.9000000357627869 : f32[2,4]
                  return %0
                }""");
    }

    @Test
    void iotaAlongAUnitAxisIsZero() {
        assertPass(ConstantFolding::apply, """
                graph() {
                  %0 = iota axis=1 : i32[3,1]
                  %1 = iota axis=0 : f32[3,1]
                  return %0, %1
                }""", """
                graph() {
                  %0 = const 0.0 : i32[3,1]
                  %1 = iota axis=0 : f32[3,1]
                  return %0, %1
                }""");
    }

    @Test
    void dataDependentNodesStay() {
        assertUnchanged(ConstantFolding::apply, """
                graph(%0: f32[3]) {
                  %1 = const 1.0 : f32[3]
                  %2 = add %0 %1 : f32[3]
                  %3 = iota axis=0 : f32[3]
                  %4 = mul %3 %1 : f32[3]
                  %5 = concat %1 %3 axis=0 : f32[6]
                  return %2, %4, %5
                }""");
    }

    @Test
    void concatOfEqualSplatsFoldsButNotOfDifferentOnes() {
        assertPass(ConstantFolding::apply, """
                graph() {
                  %0 = const 1.0 : f32[2]
                  %1 = const 1.0 : f32[3]
                  %2 = concat %0 %1 axis=0 : f32[5]
                  %3 = const -0.0 : f32[3]
                  %4 = concat %0 %3 axis=0 : f32[5]
                  return %2, %4
                }""", """
                graph() {
                  %0 = const 1.0 : f32[5]
                  %1 = const 1.0 : f32[2]
                  %2 = const -0.0 : f32[3]
                  %3 = concat %1 %2 axis=0 : f32[5]
                  return %0, %3
                }""");
    }

    @Test
    void aLongSumOfFloatsIsLeftToTheKernelAndAHugeShapeFoldsAtOnce() {
        assertUnchanged(ConstantFolding::apply, """
                graph() {
                  %0 = const 0.1 : f32[100000]
                  %1 = sum %0 axes=[0] : f32[1]
                  return %1
                }""");
        Graph huge = assertTimeoutPreemptively(Duration.ofSeconds(5), () -> ConstantFolding.apply(Parser.parse("""
                graph() {
                  %0 = const 0.5 : f32[40000,50000]
                  %1 = exp %0 : f32[40000,50000]
                  %2 = max %1 axes=[0,1] : f32[1,1]
                  return %2
                }""")));
        assertEquals(Math.exp(0.5), ((Node.Constant) huge.outputs().getFirst()).value(), 1e-6);
    }
}
