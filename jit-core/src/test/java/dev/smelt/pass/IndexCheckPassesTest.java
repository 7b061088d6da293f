// SPDX-License-Identifier: Apache-2.0
package dev.smelt.pass;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.smelt.ir.Graph;
import dev.smelt.ir.IndexBounds;
import dev.smelt.ir.IndexOutOfRange;
import dev.smelt.ir.Parser;
import dev.smelt.ir.Printer;
import dev.smelt.ir.Storage;
import dev.smelt.ir.Verifier;
import dev.smelt.ref.Interpreter;
import java.util.List;
import org.junit.jupiter.api.Test;

/// The index check node in the IR's text, in the reference interpreter and through the passes:
/// constants known to be in range fold away, equal checks merge, and [IndexChecks] takes every
/// check out of the graph the kernels compute.
class IndexCheckPassesTest {
    static final String CHECKS = """
            graph(%0: i32[4], %1: f32[4]) {
              %2 = checkindex %0 op=gather what=index limit=4 : i32[4]
              %3 = cast %2 : f32[4]
              %4 = const 1.0 : i32[4]
              %5 = add %0 %4 : i32[4]
              %6 = checkindex %5 op=crossEntropy what=target limit=5 : i32[4]
              %7 = cast %6 : f32[4]
              %8 = mul %3 %7 : f32[4]
              %9 = add %8 %1 : f32[4]
              return %9
            }
            """;

    @Test
    void checksPrintAndParseBack() {
        Graph graph = Parser.parse(CHECKS);
        Verifier.verify(graph);
        assertEquals(CHECKS, Printer.print(graph));
        var missing = assertThrows(IllegalArgumentException.class, () -> Parser.parse(CHECKS.replace(" what=index", "")));
        assertTrue(missing.getMessage().contains("missing attribute what="), missing.getMessage());
        var i32Only = assertThrows(IllegalArgumentException.class, () -> Parser.parse(CHECKS.replace("%2 = checkindex %0", "%2 = checkindex %1")));
        assertTrue(i32Only.getMessage().contains("needs i32 indices, not f32"), i32Only.getMessage());
    }

    @Test
    void theInterpreterRejectsTheFirstIndexOutOfRange() {
        Graph graph = Parser.parse(CHECKS);
        var floats = Storage.wrap(new float[] {1, 2, 3, 4});
        var values = Interpreter.run(graph, List.of(Storage.wrap(new int[] {0, 1, 2, 3}), floats)).getFirst();
        assertEquals(List.of(1.0, 4.0, 9.0, 16.0), List.of(values.get(0), values.get(1), values.get(2), values.get(3)));
        var error = assertThrows(IndexOutOfRange.class, () -> Interpreter.run(graph, List.of(Storage.wrap(new int[] {0, 4, -1, 3}), floats)));
        assertEquals("gather", error.op());
        assertEquals("index 4 at index 1 is out of range; expected 0..3", error.getMessage());
    }

    @Test
    void checksAreTakenOutOfTheGraphTheKernelsCompute() {
        var checks = IndexChecks.of(Parser.parse(CHECKS));
        assertEquals(List.of(new IndexChecks.OnInput(0, new IndexBounds("gather", "index", 4))), checks.onInputs());
        assertEquals(List.of(new IndexBounds("crossEntropy", "target", 5)), checks.computedBounds());
        assertEquals(Printer.print(Parser.parse("""
                graph(%0: i32[4], %1: f32[4]) {
                  %2 = const 1.0 : i32[4]
                  %3 = add %0 %2 : i32[4]
                  return %3
                }""")), Printer.print(checks.computed()));
        assertEquals(Printer.print(Parser.parse("""
                graph(%0: i32[4], %1: f32[4]) {
                  %2 = const 1.0 : i32[4]
                  %3 = add %0 %2 : i32[4]
                  %4 = cast %0 : f32[4]
                  %5 = cast %3 : f32[4]
                  %6 = mul %4 %5 : f32[4]
                  %7 = add %6 %1 : f32[4]
                  return %7
                }""")), Printer.print(checks.unchecked()));
        var none = IndexChecks.of(checks.unchecked());
        assertTrue(!none.any() && none.unchecked() == checks.unchecked());
        assertNull(none.computed());
    }

    /// A function that returns its checked indices still returns a tensor of its own, not its argument.
    @Test
    void aReturnedCheckBecomesACopyOfItsInput() {
        var checks = IndexChecks.of(Parser.parse("""
                graph(%0: i32[3]) {
                  %1 = checkindex %0 op=gather what=index limit=3 : i32[3]
                  return %1
                }"""));
        assertEquals(Printer.print(Parser.parse("""
                graph(%0: i32[3]) {
                  %1 = reshape %0 : i32[3]
                  return %1
                }""")), Printer.print(checks.unchecked()));
    }

    @Test
    void constantsKnownToBeInRangeFoldAway() {
        PassCheck.assertPass(ConstantFolding::apply, """
                graph(%0: i32[2]) {
                  %1 = const 2.0 : i32[2]
                  %2 = checkindex %1 op=gather what=index limit=3 : i32[2]
                  %3 = add %0 %2 : i32[2]
                  return %3
                }""", """
                graph(%0: i32[2]) {
                  %1 = const 2.0 : i32[2]
                  %2 = add %0 %1 : i32[2]
                  return %2
                }""");
        for (String constant : new String[] {"3.0", "-1.0"})
            PassCheck.assertUnchanged(ConstantFolding::apply, """
                    graph(%0: i32[2]) {
                      %1 = const VALUE : i32[2]
                      %2 = checkindex %1 op=gather what=index limit=3 : i32[2]
                      %3 = add %0 %2 : i32[2]
                      return %3
                    }""".replace("VALUE", constant));
    }

    @Test
    void equalChecksMergeAndOthersStay() {
        var graph = Passes.apply(Parser.parse("""
                graph(%0: i32[2]) {
                  %1 = checkindex %0 op=crossEntropy what=target limit=3 : i32[2]
                  %2 = checkindex %0 op=crossEntropy what=target limit=3 : i32[2]
                  %3 = checkindex %0 op=crossEntropy what=target limit=4 : i32[2]
                  %4 = add %1 %2 : i32[2]
                  %5 = add %4 %3 : i32[2]
                  return %5
                }"""));
        assertEquals(2, graph.nodes().stream().filter(node -> node instanceof dev.smelt.ir.Node.IndexCheck).count(), graph.toString());
    }
}
