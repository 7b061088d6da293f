// SPDX-License-Identifier: Apache-2.0
package dev.smelt.ir;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.smelt.testing.RandomGraphs;
import java.time.Duration;
import java.util.List;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

/// Printer and Parser are inverses on printed text. Parse errors are in `ParserErrorTest`.
class PrinterParserTest {
    /// Parses `text`, checks that it prints back unchanged, and returns the graph.
    private static Graph roundTrip(String text) {
        Graph graph = Parser.parse(text);
        assertEquals(text, Printer.print(graph));
        Verifier.verify(graph);
        return graph;
    }

    @Test
    void broadcastAddAndSum() {
        roundTrip("""
                graph(%0: f32[2,3], %1: f32[3]) {
                  %2 = reshape %1 : f32[1,3]
                  %3 = expand %2 : f32[2,3]
                  %4 = add %0 %3 : f32[2,3]
                  %5 = sum %4 axes=[1] : f32[2,1]
                  return %4, %5
                }
                """);
    }

    /// Random nodes name their distribution and key; equal lines are one node (the same draws).
    @Test
    void randomNodes() {
        Graph graph = roundTrip("""
                graph(%0: i32[2], %1: f32[3,5]) {
                  %2 = rand %0 : f32[3,5]
                  %3 = add %1 %2 : f32[3,5]
                  %4 = randn %0 : f64[7]
                  return %3, %4
                }
                """);
        assertEquals(Distribution.NORMAL, ((Node.Random) graph.outputs().get(1)).distribution());
        assertSame(graph.inputs().getFirst(), ((Node.Random) graph.outputs().get(1)).key());
    }

    @Test
    void specialConstants() {
        Graph graph = roundTrip("""
                graph() {
                  %0 = const NaN : f32[]
                  %1 = const -0.0 : f32[]
                  %2 = add %0 %1 : f32[]
                  %3 = const -Infinity : f64[2]
                  %4 = const 1.0E-5 : f64[2]
                  %5 = maximum %3 %4 : f64[2]
                  %6 = const 3.0 : i32[]
                  %7 = const Infinity : f64[]
                  return %2, %5, %6, %7
                }
                """);
        var sum = (Node.Binary) graph.outputs().getFirst();
        assertTrue(Double.isNaN(((Node.Constant) sum.left()).value()));
        assertEquals(Double.doubleToLongBits(-0.0), Double.doubleToLongBits(((Node.Constant) sum.right()).value()));
    }

    @Test
    void iotaComparisonWhereAndCast() {
        roundTrip("""
                graph(%0: f32[4]) {
                  %1 = iota axis=0 : f32[4]
                  %2 = lt %0 %1 : bool[4]
                  %3 = const 0.0 : f32[4]
                  %4 = where %2 %0 %3 : f32[4]
                  %5 = cast %4 : i32[4]
                  %6 = argmax %5 axes=[0] : i32[1]
                  return %6
                }
                """);
    }

    @Test
    void matmulTransposeFlags() {
        Graph graph = roundTrip("""
                graph(%0: f32[2,3,4], %1: f32[2,5,4]) {
                  %2 = matmul %0 %1 transpose_b : f32[2,3,5]
                  %3 = matmul %0 %0 transpose_a : f32[2,4,4]
                  %4 = matmul %1 %2 transpose_a transpose_b : f32[2,4,3]
                  %5 = matmul %0 %3 : f32[2,3,4]
                  return %2, %3, %4, %5
                }
                """);
        var flags = graph.outputs().stream().map(n -> (Node.MatMul) n).map(m -> m.transposeA() + "/" + m.transposeB()).toList();
        assertEquals("[false/true, true/false, true/true, false/false]", flags.toString());
    }

    @Test
    void viewsOfIntegers() {
        roundTrip("""
                graph(%0: i32[2,3]) {
                  %1 = permute %0 order=[1,0] : i32[3,2]
                  %2 = slice %1 axis=0 start=1 stop=3 step=2 : i32[1,2]
                  %3 = concat %2 %1 %2 axis=0 : i32[5,2]
                  %4 = prod %3 axes=[] : i32[5,2]
                  return %4
                }
                """);
    }

    @Test
    void sharedNodesUnusedInputAndReturnedInput() {
        Graph graph = roundTrip("""
                graph(%0: f32[3], %1: i32[2]) {
                  %2 = exp %0 : f32[3]
                  %3 = mul %2 %2 : f32[3]
                  %4 = add %3 %2 : f32[3]
                  return %4, %3, %0
                }
                """);
        var add = (Node.Binary) graph.outputs().getFirst();
        var mul = (Node.Binary) add.left();
        assertSame(mul, graph.outputs().get(1));
        assertSame(mul.left(), mul.right());
        assertSame(mul.left(), add.right());
        assertSame(graph.inputs().getFirst(), graph.outputs().get(2));
    }

    @Test
    void equalLinesBecomeOneNodeAndNamesAreRenumbered() {
        Graph graph = Parser.parse("""
                graph(%x: f32[3]) {
                  %a = exp %x : f32[3]

                  %b = exp %x : f32[3]
                  %c = add %a %b : f32[3]
                  return %c
                }
                """);
        assertEquals("""
                graph(%0: f32[3]) {
                  %1 = exp %0 : f32[3]
                  %2 = add %1 %1 : f32[3]
                  return %2
                }
                """, Printer.print(graph));
    }

    @ParameterizedTest
    @EnumSource(UnaryOp.class)
    void everyUnaryOp(UnaryOp op) {
        roundTrip("graph(%0: f64[2]) {\n  %1 = " + op + " %0 : f64[2]\n  return %1\n}\n");
    }

    @ParameterizedTest
    @EnumSource(BinaryOp.class)
    void everyBinaryOp(BinaryOp op) {
        String result = op.isComparison() ? "bool" : "f32";
        roundTrip("graph(%0: f32[2], %1: f32[2]) {\n  %2 = " + op + " %0 %1 : " + result + "[2]\n  return %2\n}\n");
    }

    @ParameterizedTest
    @EnumSource(ReduceOp.class)
    void everyReduceOp(ReduceOp op) {
        String result = op.isArg() ? "i32[2,1,4]" : "f32[2,1,4]";
        roundTrip("graph(%0: f32[2,3,4]) {\n  %1 = " + op + " %0 axes=[1] : " + result + "\n  return %1\n}\n");
    }

    static LongStream seeds() { return LongStream.range(0, 500); }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void randomGraphsRoundTrip(long seed) {
        Graph graph = RandomGraphs.generate(seed, (int) (seed % 60));
        String text = Printer.print(graph);
        Graph parsed = Parser.parse(text);
        assertEquals(text, Printer.print(parsed), () -> "seed " + seed + " printed differently after parsing:\n" + text);
        assertEquals(graph, parsed, () -> "seed " + seed + ":\n" + text);
        assertDoesNotThrow(() -> Verifier.verify(parsed), () -> "seed " + seed + " fails verification:\n" + text);
    }

    /// `x = x * x` alternating with `x = x + input`, 20,000 nodes deep: every stage is iterative and
    /// hashes shallowly, so this takes milliseconds rather than overflowing the stack or running forever.
    @Test
    void deepChainsPrintParseAndHashQuickly() {
        assertTimeoutPreemptively(Duration.ofSeconds(20), () -> {
            var input = new Node.Input(0, Shape.of(2), DType.F32);
            Node x = input;
            for (int step = 0; step < 20_000; step++)
                x = new Node.Binary(step % 2 == 0 ? BinaryOp.MUL : BinaryOp.ADD, x, step % 2 == 0 ? x : input);
            var graph = new Graph(List.of(input), List.of(x));
            String text = Printer.print(graph);
            Graph parsed = Parser.parse(text);
            assertEquals(text, Printer.print(parsed));
            assertEquals(graph.hashCode(), parsed.hashCode());
            assertEquals(graph, parsed);
            assertInstanceOf(Node.Binary.class, parsed.outputs().getFirst()).hashCode();
            Verifier.verify(parsed);
            assertEquals(20_003, text.lines().count());
        });
    }
}
