// SPDX-License-Identifier: Apache-2.0
package dev.smelt.ir;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.smelt.testing.RandomGraphs;
import java.util.List;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/// The verifier accepts well-formed graphs and names the node that breaks a graph-level rule.
class VerifierTest {
    private static final Node.Input X = new Node.Input(0, Shape.of(2, 3), DType.F32);

    private static void assertRejected(String message, Graph graph) {
        assertEquals(message, assertThrows(IllegalArgumentException.class, () -> Verifier.verify(graph)).getMessage());
    }

    static LongStream seeds() { return LongStream.range(0, 200); }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void acceptsRandomGraphs(long seed) {
        Verifier.verify(RandomGraphs.generate(seed, 40));
    }

    @Test
    void acceptsUnusedInputsAndReturnedInputs() {
        var unused = new Node.Input(1, Shape.of(4), DType.I32);
        Verifier.verify(new Graph(List.of(X, unused), List.of(X, new Node.Unary(UnaryOp.EXP, X))));
    }

    @Test
    void rejectsAnEqualCopyOfADeclaredInput() {
        var copy = new Node.Input(0, Shape.of(2, 3), DType.F32);
        assertRejected("used input is an equal copy of the declared one, not the same node: %0: f32[2,3]",
                new Graph(List.of(X), List.of(new Node.Unary(UnaryOp.NEG, copy))));
    }

    @Test
    void rejectsAnInputWhoseTypeDiffersFromTheDeclaration() {
        var other = new Node.Input(0, Shape.of(3), DType.F32);
        assertRejected("used input differs from the declared %0: f32[2,3]: %0: f32[3]",
                new Graph(List.of(X), List.of(new Node.Binary(BinaryOp.ADD, other, other))));
    }

    @Test
    void rejectsAnUndeclaredSlotEvenWhenReturnedDirectly() {
        var extra = new Node.Input(1, Shape.of(2), DType.BOOL);
        var graph = new Graph(List.of(X), List.of(X, extra));
        assertRejected("input slot 1 is used but the graph declares 1 inputs: %1: bool[2]", graph);
        assertEquals("input %1 is returned but not declared", assertThrows(IllegalArgumentException.class, graph::nodes).getMessage());
    }

    @Test
    void rejectsAnArgReductionOverAnEmptyAxisOnlyWhenItHasResults() {
        var empty = new Node.Input(0, Shape.of(2, 0), DType.F32);
        var argmax = new Node.Reduce(ReduceOp.ARGMAX, empty, List.of(1));
        assertRejected("argmax over an empty axis has no index to return: %1 = argmax %0 axes=[1] : i32[2,1]",
                new Graph(List.of(empty), List.of(argmax)));
        Verifier.verify(new Graph(List.of(empty), List.of(new Node.Reduce(ReduceOp.ARGMAX, empty, List.of(0)))));
        Verifier.verify(new Graph(List.of(empty), List.of(new Node.Reduce(ReduceOp.MAX, empty, List.of(1)))));
    }

    @Test
    void acceptsParsedText() {
        Verifier.verify(Parser.parse("""
                graph(%0: f32[2,3]) {
                  %1 = permute %0 order=[1,0] : f32[3,2]
                  %2 = matmul %0 %1 : f32[2,2]
                  return %2, %1
                }
                """));
    }
}
