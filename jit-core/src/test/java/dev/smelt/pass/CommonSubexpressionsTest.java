// SPDX-License-Identifier: Apache-2.0
package dev.smelt.pass;

import static dev.smelt.pass.PassCheck.assertPass;
import static dev.smelt.pass.PassCheck.assertUnchanged;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import dev.smelt.ir.BinaryOp;
import dev.smelt.ir.DType;
import dev.smelt.ir.Graph;
import dev.smelt.ir.Node;
import dev.smelt.ir.Shape;
import dev.smelt.ir.UnaryOp;
import java.util.List;
import org.junit.jupiter.api.Test;

class CommonSubexpressionsTest {
    /// The parser and tracer hash-cons; a graph assembled from separate constructor calls does not.
    @Test
    void equalNodesBuiltTwiceMerge() {
        var x = new Node.Input(0, Shape.of(4), DType.F32);
        var first = new Node.Binary(BinaryOp.MUL, new Node.Unary(UnaryOp.EXP, x), new Node.Constant(2, Shape.of(4), DType.F32));
        var second = new Node.Binary(BinaryOp.MUL, new Node.Unary(UnaryOp.EXP, x), new Node.Constant(2, Shape.of(4), DType.F32));
        var graph = new Graph(List.of(x), List.of(new Node.Binary(BinaryOp.SUB, first, second)));
        assertEquals(8, graph.nodes().size());
        Graph merged = CommonSubexpressions.apply(graph);
        assertEquals(5, merged.nodes().size());
        var sub = (Node.Binary) merged.outputs().getFirst();
        assertSame(sub.left(), sub.right());
        PassCheck.assertSameValues(graph, merged, "");
    }

    @Test
    void commutedOperandsAndMirroredComparisonsMerge() {
        assertPass(CommonSubexpressions::apply, """
                graph(%0: f32[3], %1: f32[3]) {
                  %2 = add %0 %1 : f32[3]
                  %3 = add %1 %0 : f32[3]
                  %4 = maximum %1 %0 : f32[3]
                  %5 = maximum %0 %1 : f32[3]
                  %6 = lt %0 %1 : bool[3]
                  %7 = gt %1 %0 : bool[3]
                  %8 = ge %0 %1 : bool[3]
                  %9 = le %1 %0 : bool[3]
                  return %3, %2, %5, %4, %7, %6, %9, %8
                }""", """
                graph(%0: f32[3], %1: f32[3]) {
                  %2 = add %1 %0 : f32[3]
                  %3 = maximum %0 %1 : f32[3]
                  %4 = gt %1 %0 : bool[3]
                  %5 = le %1 %0 : bool[3]
                  return %2, %2, %3, %3, %4, %4, %5, %5
                }""");
    }

    @Test
    void operandOrderMattersForTheOthers() {
        assertUnchanged(CommonSubexpressions::apply, """
                graph(%0: f32[3], %1: f32[3]) {
                  %2 = sub %0 %1 : f32[3]
                  %3 = sub %1 %0 : f32[3]
                  %4 = div %0 %1 : f32[3]
                  %5 = div %1 %0 : f32[3]
                  %6 = pow %0 %1 : f32[3]
                  %7 = pow %1 %0 : f32[3]
                  %8 = lt %0 %1 : bool[3]
                  %9 = lt %1 %0 : bool[3]
                  return %2, %3, %4, %5, %6, %7, %8, %9
                }""");
        assertUnchanged(CommonSubexpressions::apply, """
                graph(%0: f32[3,3], %1: f32[3,3]) {
                  %2 = matmul %0 %1 : f32[3,3]
                  %3 = matmul %1 %0 : f32[3,3]
                  %4 = sum %0 axes=[0] : f32[1,3]
                  %5 = sum %0 axes=[1] : f32[3,1]
                  %6 = const 0.0 : f32[3,3]
                  %7 = const -0.0 : f32[3,3]
                  return %2, %3, %4, %5, %6, %7
                }""");
    }

    /// A rewrite that makes two nodes equal leaves them to be merged: `x * 1 + 0` and `x` feed one exp.
    @Test
    void nodesMadeEqualByARewriteMerge() {
        assertPass(Passes::apply, """
                graph(%0: f32[3]) {
                  %1 = const 1.0 : f32[3]
                  %2 = mul %0 %1 : f32[3]
                  %3 = exp %2 : f32[3]
                  %4 = exp %0 : f32[3]
                  %5 = add %3 %4 : f32[3]
                  %6 = add %4 %3 : f32[3]
                  %7 = sub %5 %6 : f32[3]
                  return %7
                }""", """
                graph(%0: f32[3]) {
                  %1 = exp %0 : f32[3]
                  %2 = add %1 %1 : f32[3]
                  %3 = sub %2 %2 : f32[3]
                  return %3
                }""");
    }
}
