// SPDX-License-Identifier: Apache-2.0
package dev.smelt.testing;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.smelt.ir.BinaryOp;
import dev.smelt.ir.DType;
import dev.smelt.ir.Graph;
import dev.smelt.ir.Node;
import dev.smelt.ir.Printer;
import dev.smelt.ir.ReduceOp;
import dev.smelt.ir.Storage;
import dev.smelt.ir.UnaryOp;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/// The generator is deterministic and, over a few hundred seeds, covers the whole IR.
class RandomGraphsTest {
    @Test
    void sameSeedGivesSameGraphAndData() {
        for (long seed = 0; seed < 20; seed++) {
            Graph graph = RandomGraphs.generate(seed, 30);
            assertEquals(Printer.print(graph), Printer.print(RandomGraphs.generate(seed, 30)));
            var first = RandomGraphs.inputs(seed, graph);
            var second = RandomGraphs.inputs(seed, graph);
            for (int slot = 0; slot < first.size(); slot++)
                assertArrayEquals(values(first.get(slot)), values(second.get(slot)), "seed " + seed + ", input " + slot);
        }
    }

    @Test
    void everyNodeKindOperatorAndTransposeFlagOccurs() {
        Set<String> seen = new HashSet<>();
        for (long seed = 0; seed < 300; seed++) {
            Graph graph = RandomGraphs.generate(seed, 40);
            for (Node node : graph.nodes()) {
                seen.add(node.getClass().getSimpleName());
                if (node instanceof Node.MatMul m) seen.add("matmul " + m.transposeA() + " " + m.transposeB());
            }
            Printer.print(graph).lines().filter(line -> line.contains(" = ")).forEach(line -> seen.add(line.strip().split(" ")[2]));
        }
        var expected = new TreeSet<String>();
        Arrays.stream(Node.class.getPermittedSubclasses()).map(Class::getSimpleName).forEach(expected::add);
        Stream.of(UnaryOp.values(), BinaryOp.values(), ReduceOp.values()).flatMap(Arrays::stream).map(Object::toString).forEach(expected::add);
        for (String flags : List.of("false false", "false true", "true false", "true true")) expected.add("matmul " + flags);
        expected.remove("IndexCheck"); // random data is out of range; IndexChecksTest and IndexCheckPassesTest make their own
        expected.remove("Attention");  // made from its pattern at trace time; FusedAttentionTest and AttentionNodeTest make their own
        expected.removeAll(seen);
        assertEquals(Set.of(), expected, "never generated");
    }

    @Test
    void floatInputsMixInSpecialValues() {
        Set<Double> seen = new HashSet<>();
        for (long seed = 0; seed < 300; seed++) {
            Graph graph = RandomGraphs.generate(seed, 0);
            for (Storage storage : RandomGraphs.inputs(seed, graph))
                if (storage.dtype() == DType.F32) for (double value : values(storage)) seen.add(value);
        }
        for (double special : new double[] {Double.NaN, 0.0, -0.0, Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY, Float.MIN_VALUE, Float.MAX_VALUE})
            assertTrue(seen.contains(special), "no " + special + " among the f32 inputs");
        assertTrue(seen.stream().anyMatch(v -> v != 0 && Math.abs(v) < Float.MIN_NORMAL && v != Float.MIN_VALUE), "no other subnormal");
    }

    private static double[] values(Storage storage) {
        double[] values = new double[storage.size()];
        for (int index = 0; index < values.length; index++) values[index] = storage.get(index);
        return values;
    }
}
