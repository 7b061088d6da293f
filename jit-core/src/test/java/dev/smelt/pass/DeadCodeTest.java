// SPDX-License-Identifier: Apache-2.0
package dev.smelt.pass;

import static dev.smelt.pass.PassCheck.assertPass;
import static dev.smelt.pass.PassCheck.assertUnchanged;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.smelt.ir.Graph;
import dev.smelt.ir.Node;
import dev.smelt.ir.Parser;
import dev.smelt.ir.Printer;
import dev.smelt.ir.Shape;
import dev.smelt.ir.DType;
import java.util.List;
import org.junit.jupiter.api.Test;

class DeadCodeTest {
    /// The seed's `unused = x@g1`, written as text: the statement nothing returns is not part of the graph.
    @Test
    void aStatementNothingReturnsIsNotInTheGraph() {
        assertPass(DeadCode::apply, """
                graph(%x: f32[8,16], %g0: f32[16,32], %g1: f32[16,32], %linear: f32[32,4]) {
                  %h = matmul %x %g0 : f32[8,32]
                  %y = relu %h : f32[8,32]
                  %unused = matmul %x %g1 : f32[8,32]
                  %out = matmul %y %linear : f32[8,4]
                  return %out
                }""", """
                graph(%0: f32[8,16], %1: f32[16,32], %2: f32[16,32], %3: f32[32,4]) {
                  %4 = matmul %0 %1 : f32[8,32]
                  %5 = relu %4 : f32[8,32]
                  %6 = matmul %5 %3 : f32[8,4]
                  return %6
                }""");
    }

    /// A graph built by hand holds only what its outputs reach, whatever else was constructed.
    @Test
    void aNodeBuiltButNotReturnedIsDropped() {
        var x = new Node.Input(0, Shape.of(3), DType.F32);
        var used = new Node.Unary(dev.smelt.ir.UnaryOp.EXP, x);
        var unused = new Node.Unary(dev.smelt.ir.UnaryOp.SIN, used);
        Graph graph = DeadCode.apply(new Graph(List.of(x), List.of(used)));
        assertEquals(List.of(x, used), graph.nodes());
        assertEquals(1, unused.inputs().size());
    }

    @Test
    void emptyValuesBecomeEmptyConstantsAndTheirOperandsDie() {
        assertPass(DeadCode::apply, """
                graph(%0: f32[64,64], %1: f32[64,0]) {
                  %2 = matmul %0 %0 : f32[64,64]
                  %3 = slice %2 axis=0 start=5 stop=5 step=1 : f32[0,64]
                  %4 = exp %3 : f32[0,64]
                  %5 = matmul %0 %1 : f32[64,0]
                  return %4, %5
                }""", """
                graph(%0: f32[64,64], %1: f32[64,0]) {
                  %2 = const 0.0 : f32[0,64]
                  %3 = const 0.0 : f32[64,0]
                  return %2, %3
                }""");
    }

    @Test
    void concatForgetsItsEmptyParts() {
        assertPass(DeadCode::apply, """
                graph(%0: f32[2,3], %1: f32[2,0], %2: f32[2,4]) {
                  %3 = concat %0 %1 %2 axis=1 : f32[2,7]
                  %4 = concat %1 %0 axis=1 : f32[2,3]
                  return %3, %4
                }""", """
                graph(%0: f32[2,3], %1: f32[2,0], %2: f32[2,4]) {
                  %3 = concat %0 %2 axis=1 : f32[2,7]
                  return %3, %0
                }""");
    }

    @Test
    void liveCodeAndEmptyInputsStay() {
        assertUnchanged(DeadCode::apply, """
                graph(%0: f32[0,3], %1: f32[2,3]) {
                  %2 = sum %1 axes=[0] : f32[1,3]
                  %3 = const 0.0 : f32[0]
                  return %0, %2, %3
                }""");
        assertEquals(Printer.print(Parser.parse("graph(%0: f32[0]) {\n  return %0\n}")),
                Printer.print(DeadCode.apply(Parser.parse("graph(%0: f32[0]) {\n  return %0\n}"))));
    }
}
