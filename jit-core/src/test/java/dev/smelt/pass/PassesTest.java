// SPDX-License-Identifier: Apache-2.0
package dev.smelt.pass;

import static dev.smelt.pass.PassCheck.assertPass;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.smelt.ir.DType;
import dev.smelt.ir.Graph;
import dev.smelt.ir.Node;
import dev.smelt.ir.Parser;
import dev.smelt.ir.Printer;
import dev.smelt.ir.Shape;
import dev.smelt.ir.UnaryOp;
import dev.smelt.ir.Verifier;
import dev.smelt.testing.RandomGraphs;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.UnaryOperator;
import java.util.stream.LongStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/// The passes together, and each alone, on random graphs: the result verifies, keeps every output's
/// type, interprets to the same values bit for bit, and is a fixed point.
class PassesTest {
    private static final Map<String, UnaryOperator<Graph>> EACH = Map.of(
            "dead code", DeadCode::apply,
            "constant folding", ConstantFolding::apply,
            "algebraic rules", graph -> Rewriter.toFixpoint(graph, AlgebraicRules::rewrite),
            "view rules", graph -> Rewriter.toFixpoint(graph, ViewRules::rewrite),
            "common subexpressions", CommonSubexpressions::apply);
    private static final AtomicInteger CHANGED = new AtomicInteger(), TOTAL = new AtomicInteger();

    static LongStream seeds() { return LongStream.range(0, 400); }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void passesKeepEveryValueOfRandomGraphs(long seed) {
        Graph graph = RandomGraphs.generate(seed, 30);
        String context = "graph seed " + seed + ", ";
        Graph optimised = check(graph, Passes.apply(graph), context + "all passes: ");
        assertEquals(Printer.print(optimised), Printer.print(Passes.apply(optimised)), context + "a second run changes the result");
        for (var pass : EACH.entrySet()) check(graph, pass.getValue().apply(graph), context + pass.getKey() + ": ");
        TOTAL.incrementAndGet();
        if (!optimised.equals(graph)) CHANGED.incrementAndGet();
    }

    private static Graph check(Graph before, Graph after, String context) {
        Verifier.verify(after);
        assertEquals(before.inputs(), after.inputs(), context + "inputs");
        for (int o = 0; o < before.outputs().size(); o++) {
            assertEquals(before.outputs().get(o).shape(), after.outputs().get(o).shape(), context + "output " + o + " shape");
            assertEquals(before.outputs().get(o).dtype(), after.outputs().get(o).dtype(), context + "output " + o + " dtype");
        }
        PassCheck.assertSameValues(before, after, context);
        return after;
    }

    /// A property that never rewrites anything would pass vacuously.
    @AfterAll
    static void mostRandomGraphsWereSimplified() {
        System.out.printf("PassesTest: %d of %d random graphs simplified%n", CHANGED.get(), TOTAL.get());
        assertTrue(TOTAL.get() == 0 || CHANGED.get() * 2 > TOTAL.get(), CHANGED + " of " + TOTAL + " graphs changed");
    }

    @Test
    void rulesReachAFixedPointAcrossPasses() {
        // Folding makes the 1, algebra removes the multiply, views merge the reshapes, CSE the exps.
        assertPass(Passes::apply, """
                graph(%0: f32[2,3]) {
                  %1 = const 0.5 : f32[2,3]
                  %2 = const 2.0 : f32[2,3]
                  %3 = mul %1 %2 : f32[2,3]
                  %4 = mul %0 %3 : f32[2,3]
                  %5 = reshape %4 : f32[3,2]
                  %6 = reshape %5 : f32[6]
                  %7 = exp %6 : f32[6]
                  %8 = reshape %0 : f32[6]
                  %9 = exp %8 : f32[6]
                  %10 = sub %7 %9 : f32[6]
                  return %10
                }""", """
                graph(%0: f32[2,3]) {
                  %1 = reshape %0 : f32[6]
                  %2 = exp %1 : f32[6]
                  %3 = sub %2 %2 : f32[6]
                  return %3
                }""");
    }

    /// `x * 1` must not make the compiled function return its argument's own storage, nor two
    /// results share one buffer where the traced code computed two values.
    @Test
    void outputsStayDistinctFromInputsAndEachOther() {
        Graph graph = Passes.apply(Parser.parse("""
                graph(%0: f32[3], %1: f32[3]) {
                  %2 = const 1.0 : f32[3]
                  %3 = mul %0 %2 : f32[3]
                  %4 = exp %1 : f32[3]
                  %5 = mul %4 %2 : f32[3]
                  return %3, %4, %5, %1, %4
                }"""));
        var outputs = graph.outputs();
        assertTrue(outputs.get(0) instanceof Node.Reshape copy && copy.x() == graph.inputs().get(0), Printer.print(graph));
        assertTrue(outputs.get(2) instanceof Node.Reshape copy && copy.x() == outputs.get(1), Printer.print(graph));
        assertNotSame(outputs.get(1), outputs.get(2));
        assertEquals(graph.inputs().get(1), outputs.get(3));   // returned as is: the function returned it
        assertEquals(outputs.get(1), outputs.get(4));          // the same traced value twice
    }

    /// Deep graphs must not overflow the stack: every walk is iterative or one level deep.
    @Test
    void aDeepChainSimplifiesWithoutRecursion() {
        Node.Input x = new Node.Input(0, Shape.of(8), DType.F32);
        Node chain = x;
        for (int i = 0; i < 30_000; i++) chain = new Node.Unary(i % 3 == 0 ? UnaryOp.EXP : UnaryOp.NEG, chain);   // exp, -, -, exp, …
        Graph graph = Passes.apply(new Graph(List.of(x), List.of(chain)));
        Verifier.verify(graph);
        assertEquals(1 + 10_000, graph.nodes().size());
        assertTrue(graph.nodes().stream().skip(1).allMatch(n -> n instanceof Node.Unary u && u.op() == UnaryOp.EXP));
    }

    @Test
    void rulesThatUndoEachOtherAreReportedNotLoopedOn() {
        Graph graph = Parser.parse("""
                graph(%0: f32[3]) {
                  %1 = neg %0 : f32[3]
                  return %1
                }""");
        UnaryOperator<Node> flip = n -> n instanceof Node.Unary u ? new Node.Unary(u.op(), new Node.Unary(UnaryOp.NEG, new Node.Unary(UnaryOp.NEG, u.x()))) : n;
        var error = assertThrows(IllegalStateException.class, () -> Rewriter.toFixpoint(graph, flip));
        assertTrue(error.getMessage().contains("do not settle"), error.getMessage());
        UnaryOperator<Node> retype = n -> n instanceof Node.Unary u ? new Node.Cast(u.x(), DType.F64) : n;
        assertThrows(IllegalStateException.class, () -> Rewriter.toFixpoint(graph, retype));
    }
}
