// SPDX-License-Identifier: Apache-2.0
package dev.smelt.pass;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

import dev.smelt.ir.Graph;
import dev.smelt.ir.Parser;
import dev.smelt.ir.Printer;
import dev.smelt.ir.Storage;
import dev.smelt.ir.Verifier;
import dev.smelt.ref.Interpreter;
import dev.smelt.testing.RandomGraphs;
import java.util.List;
import java.util.function.UnaryOperator;

/// Assertions for pass tests, which state graphs as text: the pass's printed result must equal the
/// expected text, verify, and interpret to the input graph's values bit for bit on random data with
/// special values (NaN, ±0, ±∞, subnormals).
final class PassCheck {
    private PassCheck() {}

    /// `pass(parse(input))` prints as `expected` (normalised by a parse) and computes the same values.
    static Graph assertPass(UnaryOperator<Graph> pass, String input, String expected) {
        Graph before = Parser.parse(input);
        Graph after = pass.apply(before);
        Verifier.verify(after);
        assertEquals(Printer.print(Parser.parse(expected)), Printer.print(after));
        assertSameValues(before, after, "");
        return after;
    }

    /// The pass leaves `input` as it prints.
    static void assertUnchanged(UnaryOperator<Graph> pass, String input) {
        Graph before = Parser.parse(input);
        assertEquals(Printer.print(before), Printer.print(pass.apply(before)));
    }

    /// A graph rewritten by `rule` under the [Rewriter].
    static UnaryOperator<Graph> rule(UnaryOperator<dev.smelt.ir.Node> rule) { return graph -> Rewriter.toFixpoint(graph, rule); }

    /// `before` and `after` compute bit-identical outputs on a few random data sets. NaNs compare
    /// equal to each other whatever their payload; -0.0 and +0.0 differ.
    static void assertSameValues(Graph before, Graph after, String context) {
        for (long seed = 0; seed < 8; seed++) {
            List<Storage> inputs = RandomGraphs.inputs(seed, before);
            var expected = Interpreter.run(before, inputs);
            var actual = Interpreter.run(after, inputs);
            for (int o = 0; o < expected.size(); o++) {
                Storage e = expected.get(o), a = actual.get(o);
                assertEquals(e.dtype(), a.dtype(), context + "output " + o + " dtype");
                assertEquals(e.size(), a.size(), context + "output " + o + " size");
                for (int i = 0; i < e.size(); i++)
                    if (Double.doubleToLongBits(e.get(i)) != Double.doubleToLongBits(a.get(i)))
                        fail("%sdata seed %d, output %d, element %d: before %s, after %s%nbefore:%n%safter:%n%s".formatted(
                                context, seed, o, i, e.get(i), a.get(i), before, after));
            }
        }
    }
}
