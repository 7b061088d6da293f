// SPDX-License-Identifier: Apache-2.0
package dev.smelt.fusion;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

import dev.smelt.ir.Graph;
import dev.smelt.ir.Parser;
import dev.smelt.kernel.Decision;
import dev.smelt.kernel.KernelInterpreter;
import dev.smelt.kernel.MatMulKernel;
import dev.smelt.kernel.Schedule;
import dev.smelt.ref.Interpreter;
import dev.smelt.runtime.Executor;
import dev.smelt.testing.Programs;
import dev.smelt.testing.RandomGraphs;
import org.junit.jupiter.api.Test;

/// The planner's matmul launches: one generated matmul per product, its pointwise consumers in the
/// epilogue, transposed operands read through strides, and a product whose consumer cannot hold
/// the accumulator given a buffer of its own.
class MatMulLaunchTest {
    @Test
    void biasAndReluJoinTheMatMulAsItsEpilogue() {
        Schedule schedule = FusionPlanner.plan(Parser.parse("""
                graph(%0: f32[4,3], %1: f32[3,5], %2: f32[1,5]) {
                  %3 = matmul %0 %1 : f32[4,5]
                  %4 = expand %2 : f32[4,5]
                  %5 = add %3 %4 : f32[4,5]
                  %6 = relu %5 : f32[4,5]
                  return %6
                }
                """));
        assertEquals(1, schedule.launches().size(), schedule::toString);
        var launch = schedule.launches().getFirst();
        assertEquals("output fusion (matmul + epilogue)", launch.category());
        assertEquals("""
                matmul [4,5,3] of in0 · in1 {
                  in0: f32[12] @0[3,0,1]
                  in1: f32[15] @0[0,1,5]
                  in2: f32[5] @0[0,1,0]
                  out0 (row): f32[20] @0[5,1,0] = relu(add(r0, in2))
                }
                """, launch.kernel().toString());
    }

    @Test
    void transposedOperandsAreReadThroughTheirStrides() {
        Schedule schedule = FusionPlanner.plan(Parser.parse("""
                graph(%0: f32[3,4], %1: f32[5,3]) {
                  %2 = permute %1 order=[1,0] : f32[3,5]
                  %3 = matmul %0 %2 transpose_a : f32[4,5]
                  return %3
                }
                """));
        assertEquals(1, schedule.launches().size(), schedule::toString);
        var kernel = assertInstanceOf(MatMulKernel.class, schedule.launches().getFirst().kernel());
        assertEquals("@0[1,0,4]", kernel.inputs().get(kernel.left()).map().toString());   // a[k, m]: M stride 1
        assertEquals("@0[0,3,1]", kernel.inputs().get(kernel.right()).map().toString());  // b[n, k]: N stride 3
    }

    @Test
    void aConsumerOfAnotherDtypeGetsTheProductFromABuffer() {
        Schedule schedule = FusionPlanner.plan(Parser.parse("""
                graph(%0: f32[4,3], %1: f32[3,5]) {
                  %2 = matmul %0 %1 : f32[4,5]
                  %3 = const 0.0 : f32[4,5]
                  %4 = gt %2 %3 : bool[4,5]
                  return %4
                }
                """));
        assertInstanceOf(MatMulKernel.class, schedule.launches().getFirst().kernel(), schedule::toString);
        assertEquals(2, schedule.launches().size(), schedule::toString);
    }

    @Test
    void twoProductsOfOneLoopNestRunApartAndSayWhy() {
        Schedule schedule = FusionPlanner.plan(Parser.parse("""
                graph(%0: f32[4,3], %1: f32[3,5], %2: f32[3,5]) {
                  %3 = matmul %0 %1 : f32[4,5]
                  %4 = matmul %0 %2 : f32[4,5]
                  return %3, %4
                }
                """));
        assertEquals(2, schedule.launches().size(), schedule::toString);
        schedule.launches().forEach(launch -> assertInstanceOf(MatMulKernel.class, launch.kernel(), schedule::toString));
        var kept = schedule.decisions().stream().filter(d -> d.choice() == Decision.Choice.OWN_KERNEL).toList();
        assertEquals(1, kept.size(), schedule.decisions()::toString);
        assertEquals("%4 matmul: compute in a kernel of its own: " + FusionRules.OTHER_PRODUCT.reason(), kept.getFirst().toString());
    }

    @Test
    void aReductionSharingTheProductsLoopRunsApartFromTheMatMul() {
        Graph graph = Parser.parse("""
                graph(%0: f32[4,3], %1: f32[3,5], %2: f32[4,5,3]) {
                  %3 = matmul %0 %1 : f32[4,5]
                  %4 = sum %2 axes=[2] : f32[4,5,1]
                  %5 = reshape %4 : f32[4,5]
                  %6 = add %3 %5 : f32[4,5]
                  return %6
                }
                """);
        Schedule schedule = FusionPlanner.plan(graph);
        assertEquals(2, schedule.launches().size(), schedule::toString);
        assertInstanceOf(MatMulKernel.class, schedule.launches().getFirst().kernel(), schedule::toString);
        assertEquals("%3 matmul: materialise: " + FusionRules.ONE_PRODUCT.reason(), schedule.decisions().getFirst().toString());
        var inputs = RandomGraphs.inputs(3, graph);
        for (var input : inputs) for (int i = 0; i < input.size(); i++) input.set(i, (i * 5 % 11 - 5) * 0.25); // finite, so the sums compare
        var expected = Interpreter.run(graph, inputs).getFirst();
        var actual = Programs.of(schedule, KernelInterpreter::of, Executor.sequential()).run(inputs).getFirst();
        for (int i = 0; i < expected.size(); i++) assertEquals(expected.get(i), actual.get(i), 1e-5 * Math.max(1, Math.abs(expected.get(i))), "element " + i);
    }
}
