// SPDX-License-Identifier: Apache-2.0
package dev.smelt.pass;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.smelt.ir.BinaryOp;
import dev.smelt.ir.DType;
import dev.smelt.ir.Graph;
import dev.smelt.ir.Node;
import dev.smelt.ir.Printer;
import dev.smelt.ir.Shape;
import dev.smelt.ir.UnaryOp;
import dev.smelt.ir.Verifier;
import dev.smelt.testing.RandomGraphs;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.stream.IntStream;
import java.util.stream.LongStream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/// The rules have teeth: every output of a random graph is wrapped in a random chain of exact
/// identities (`x·1`, `x + (-0.0)`, `-(-x)`, a permutation and its inverse, a reshape and back, a
/// cast through a wider type, …), and the passes must give back exactly the graph they make of the
/// unwrapped one, computing the same values bit for bit.
class IdentitiesTest {
    static LongStream seeds() { return LongStream.range(0, 300); }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void identitiesAroundEveryOutputVanish(long seed) {
        Graph graph = RandomGraphs.generate(seed, 20);
        var random = new Random(seed);
        var wrapped = new ArrayList<Node>();
        for (Node output : graph.outputs()) {
            Node node = output;
            if (!(output instanceof Node.Input))
                for (int count = 1 + random.nextInt(4); count > 0; count--) node = wrap(node, random);
            wrapped.add(node);
        }
        Graph bait = new Graph(graph.inputs(), wrapped);
        Graph simplified = Passes.simplify(bait);
        Verifier.verify(simplified);
        assertEquals(Printer.print(Passes.simplify(graph)), Printer.print(simplified), "seed " + seed + ", wrapped:\n" + bait);
        PassCheck.assertSameValues(bait, simplified, "seed " + seed + ": ");
    }

    /// `x` inside one identity that suits its dtype and rank.
    static Node wrap(Node x, Random random) {
        DType dtype = x.dtype();
        Shape shape = x.shape();
        var choices = new ArrayList<Node>();
        choices.add(new Node.Reshape(new Node.Reshape(x, Shape.of(shape.size())), shape));            // reshape and back
        choices.add(new Node.Expand(x, shape));
        choices.add(new Node.Cast(x, dtype));
        choices.add(new Node.Where(new Node.Binary(BinaryOp.EQ, x, x), x, x));                         // where(c, x, x)
        if (dtype != DType.F64) choices.add(new Node.Cast(new Node.Cast(x, DType.F64), dtype));          // through a wider type
        if (shape.rank() >= 1) {
            int axis = random.nextInt(shape.rank());
            choices.add(new Node.Slice(x, axis, 0, shape.dim(axis), 1));
            var order = new ArrayList<>(IntStream.range(0, shape.rank()).boxed().toList());
            Collections.shuffle(order, random);
            var inverse = new Integer[order.size()];
            for (int i = 0; i < order.size(); i++) inverse[order.get(i)] = i;
            choices.add(new Node.Permute(new Node.Permute(x, order), List.of(inverse)));              // a permutation and its inverse
        }
        if (dtype != DType.BOOL) {
            choices.add(new Node.Binary(BinaryOp.MUL, x, constant(1, x)));
            choices.add(new Node.Binary(BinaryOp.MUL, constant(1, x), x));
            choices.add(new Node.Unary(UnaryOp.NEG, new Node.Unary(UnaryOp.NEG, x)));
            choices.add(new Node.Binary(BinaryOp.SUB, x, constant(0, x)));
            choices.add(new Node.Binary(BinaryOp.MAXIMUM, x, x));
            choices.add(new Node.Binary(BinaryOp.POW, x, constant(1, x)));
            choices.add(new Node.Reduce(dev.smelt.ir.ReduceOp.MAX, x, List.of()));
        }
        if (dtype.isFloating()) {
            choices.add(new Node.Binary(BinaryOp.ADD, x, constant(-0.0, x)));
            choices.add(new Node.Binary(BinaryOp.DIV, x, constant(1, x)));
            choices.add(new Node.Binary(BinaryOp.DIV, new Node.Binary(BinaryOp.MUL, x, constant(-1, x)), constant(-1, x)));
        }
        if (dtype == DType.I32) choices.add(new Node.Binary(BinaryOp.ADD, constant(0, x), x));
        return choices.get(random.nextInt(choices.size()));
    }

    private static Node constant(double value, Node like) { return new Node.Constant(value, like.shape(), like.dtype()); }
}
