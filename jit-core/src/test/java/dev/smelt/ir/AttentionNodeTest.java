// SPDX-License-Identifier: Apache-2.0
package dev.smelt.ir;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

/// The attention node's text form, its typing rule, and its meaning in the other nodes.
class AttentionNodeTest {
    static final String GRAPH = """
            graph(%0: f32[2,4,5,8], %1: f32[2,2,7,8], %2: f32[2,2,7,3], %3: bool[1,1,5,7]) {
              %4 = attention %0 %1 %2 %3 part=output scale=0.25 : f32[2,4,5,3]
              %5 = attention %0 %1 %2 %3 part=logsumexp scale=0.25 : f32[2,4,5,1]
              %6 = attention %0 %1 %2 %4 %5 %4 %3 part=grad_k scale=0.25 causal : f32[2,2,7,8]
              return %4, %5, %6
            }
            """;

    @Test
    void printsAndParsesBack() {
        Graph graph = Parser.parse(GRAPH);
        assertEquals(GRAPH, Printer.print(graph));
    }

    @Test
    void shapesAreCheckedAtConstruction() {
        var q = new Node.Input(0, Shape.of(1, 3, 5, 8), DType.F32);
        var k = new Node.Input(1, Shape.of(1, 2, 7, 8), DType.F32);
        var v = new Node.Input(2, Shape.of(1, 2, 7, 4), DType.F32);
        var e = assertThrows(IllegalArgumentException.class, () -> new Node.Attention(AttentionPart.OUTPUT, List.of(q, k, v), false, 1));
        assertTrue(e.getMessage().contains("axis 1"), e.getMessage());              // 3 heads cannot share 2 kv heads
        var mask = new Node.Input(3, Shape.of(5, 7), DType.BOOL);
        var q4 = new Node.Input(0, Shape.of(1, 4, 5, 8), DType.F32);
        assertThrows(IllegalArgumentException.class, () -> new Node.Attention(AttentionPart.OUTPUT, List.of(q4, k, v, mask), false, 1)); // mask of rank 2
        assertThrows(IllegalArgumentException.class, () -> new Node.Attention(AttentionPart.OUTPUT, List.of(q4, k, v), false, Double.NaN));
    }

    @Test
    void expandsToTheOpsScaledDotProductAttentionTraces() {
        Graph graph = AttentionMath.expandAll(Parser.parse(GRAPH));
        assertTrue(graph.nodes().stream().noneMatch(n -> n instanceof Node.Attention), graph.toString());
        assertTrue(graph.nodes().stream().anyMatch(n -> n instanceof Node.MatMul m && m.transposeB()), graph.toString());
    }
}
