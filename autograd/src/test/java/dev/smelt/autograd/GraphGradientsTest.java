// SPDX-License-Identifier: Apache-2.0
package dev.smelt.autograd;

import static dev.smelt.autograd.VjpRulesTest.values;
import static dev.smelt.autograd.VjpRulesTest.weighted;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.smelt.Jit;
import dev.smelt.Tensor;
import dev.smelt.Traced;
import dev.smelt.ir.DType;
import dev.smelt.ir.Graph;
import dev.smelt.ir.Node;
import dev.smelt.ir.ReduceOp;
import dev.smelt.ir.Shape;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/// Gradients of views, matmuls (every transpose flag, broadcast batches), composites and random
/// graphs with fan-out, against central differences and the interpreter.
class GraphGradientsTest {

    @ParameterizedTest
    @ValueSource(ints = {0, 1, 2, 3})
    void matmulWithEveryTransposeFlagIsAMatmulWithFlags(int flags) {
        boolean ta = (flags & 1) != 0, tb = (flags & 2) != 0;
        var random = new Random(flags);
        int batch = 2, m = 3, k = 5, n = 4;
        Shape sa = ta ? Shape.of(batch, k, m) : Shape.of(batch, m, k), sb = tb ? Shape.of(batch, n, k) : Shape.of(batch, k, n);
        var a = new Node.Input(0, sa, DType.F64);
        var b = new Node.Input(1, sb, DType.F64);
        var w = new Node.Input(2, Shape.of(batch, m, n), DType.F64);
        Node c = new Node.MatMul(a, b, ta, tb);
        Node loss = new Node.Reduce(ReduceOp.SUM, new Node.Binary(dev.smelt.ir.BinaryOp.MUL, c, w), List.of(0, 1, 2));
        var traced = new Traced(new Graph(List.of(a, b, w), List.of(loss)), 3, List.of());
        var args = List.of(values(random, false, sa.toArray()), values(random, false, sb.toArray()), values(random, false, batch, m, n));
        GradientCheck.check("matmul transposeA=" + ta + " transposeB=" + tb, traced, args, 0, 1);
        Graph joint = Autograd.withGradients(traced, new int[] {0, 1}, false).graph();
        assertEquals(2, joint.nodes().stream().filter(x -> x instanceof Node.MatMul).count(), joint.toString()); // dA and dB; the loss is linear in C
        assertFalse(joint.nodes().stream().anyMatch(x -> x instanceof Node.Permute), "a transpose was materialised:\n" + joint);
    }

    @Test
    void linearLayerBackwardReadsTheWeightTransposedThroughFlags() {
        var random = new Random(3);
        Tensor x = values(random, false, 4, 3), weight = values(random, false, 2, 3);
        Jit.FunctionN f = args -> List.of(args.get(0).matmul(args.get(1).t()).relu().sum());
        GradientCheck.check("x·Wᵀ", f, List.of(x, weight), 0, 1);
        var grad = Autograd.grad(f, 2, 0, 1);
        grad.applyAll(x, weight);
        String explained = grad.explain();
        assertTrue(explained.contains("transpose_a") || explained.contains("transpose_b"), explained);
    }

    @Test
    void matmulBroadcastsBatchesAndVectors() {
        var random = new Random(4);
        Tensor a = values(random, false, 2, 1, 3, 4), b = values(random, false, 5, 4, 2), w = values(random, false, 2, 5, 3, 2);
        GradientCheck.check("[2,1,3,4]·[5,4,2]", args -> List.of(weighted(args.get(0).matmul(args.get(1)), args.get(2))), List.of(a, b, w), 0, 1);
        Tensor v = values(random, false, 4), m = values(random, false, 4, 3), u = values(random, false, 3);
        GradientCheck.check("vector·matrix", args -> List.of(weighted(args.get(0).matmul(args.get(1)), args.get(2))), List.of(v, m, u), 0, 1);
        GradientCheck.check("matrix·vector", args -> List.of(args.get(1).t().matmul(args.get(0)).sum()), List.of(v, m), 0, 1);
    }

    @Test
    void viewsPassGradientsBack() {
        var random = new Random(5);
        Tensor x = values(random, false, 3, 4, 5), w = values(random, false, 1);
        List<Jit.FunctionN> views = List.of(
                args -> List.of(weighted(args.get(0).reshape(5, 12).exp().sum(0), args.get(1).expand(12))),
                args -> List.of(weighted(args.get(0).permute(2, 0, 1).slice(0, 1, 4).sin(), args.get(1))),
                args -> List.of(weighted(args.get(0).transpose(0, 2).tanh(), args.get(1))),
                args -> List.of(weighted(args.get(0).slice(1, 0, 4, 2).square(), args.get(1))),
                args -> List.of(weighted(args.get(0).slice(2, 1, 5, 3).exp(), args.get(1))),
                args -> List.of(weighted(args.get(0).slice(0, 2, 3).squeeze(0).unsqueeze(1).sigmoid(), args.get(1))),
                args -> List.of(weighted(args.get(0).slice(2, 4, 5, 2).flatten(), args.get(1))),
                args -> List.of(weighted(args.get(0).sum(1, true).expand(3, 4, 5).mul(args.get(0)), args.get(1))),
                args -> List.of(weighted(Tensor.concat(1, args.get(0).exp(), args.get(0).slice(1, 1, 3), args.get(0).neg()), args.get(1))));
        for (int v = 0; v < views.size(); v++) {
            GradientCheck.check("view case " + v, views.get(v), List.of(x, w), 0, 1);
            GradientCheck.checkF32("view case " + v, views.get(v), List.of(x, w), 0, 1);
        }
    }

    @Test
    void compositesDifferentiateThroughTheirPrimitives() {
        var random = new Random(6);
        Tensor x = values(random, false, 4, 7), w = values(random, false, 4, 7);
        Tensor gamma = values(random, false, 7), beta = values(random, false, 7);
        Tensor labels = Tensor.of(new int[] {0, 6, 3, 3});
        Tensor probabilities = values(random, true, 4, 7).softmax(-1);
        GradientCheck.check("softmax", args -> List.of(weighted(args.get(0).softmax(-1), args.get(1))), List.of(x, w), 0);
        GradientCheck.check("logSoftmax", args -> List.of(weighted(args.get(0).logSoftmax(0), args.get(1))), List.of(x, w), 0);
        GradientCheck.check("layerNorm", args -> List.of(weighted(args.get(0).layerNorm(new int[] {7}, args.get(2), args.get(3), 1e-5), args.get(1))),
                List.of(x, w, gamma, beta), 0, 2, 3);
        GradientCheck.check("crossEntropy with indices", args -> List.of(args.get(0).crossEntropy(args.get(1))), List.of(x, labels), 0);
        GradientCheck.check("crossEntropy with probabilities", args -> List.of(args.get(0).crossEntropy(args.get(1))), List.of(x, probabilities), 0, 1);
        GradientCheck.check("mseLoss", args -> List.of(args.get(0).mseLoss(args.get(1))), List.of(x, w), 0, 1);
        GradientCheck.checkF32("crossEntropy with indices", args -> List.of(args.get(0).crossEntropy(args.get(1))), List.of(x, labels), 0);
        GradientCheck.checkF32("layerNorm", args -> List.of(weighted(args.get(0).layerNorm(new int[] {7}, args.get(2), args.get(3), 1e-5), args.get(1))),
                List.of(x, w, gamma, beta), 0, 2, 3);
    }

    /// Random programs over two arguments: each step applies a random op to earlier values (so values
    /// fan out to several users), with broadcasting, views and reductions mixed in.
    @ParameterizedTest
    @ValueSource(ints = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11})
    void randomCompositeGraphs(int seed) {
        var random = new Random(1000 + seed);
        int rows = new int[] {1, 2, 3, 5}[random.nextInt(4)], columns = new int[] {1, 3, 4, 7}[random.nextInt(4)];
        Tensor x = values(random, false, rows, columns), y = values(random, false, columns);
        long programSeed = random.nextLong();
        StringBuilder description = new StringBuilder();
        Jit.FunctionN f = args -> List.of(randomProgram(new Random(programSeed), args.get(0), args.get(1), description));
        GradientCheck.check("random graph " + seed, f, List.of(x, y), 0, 1);
        GradientCheck.checkF32("random graph " + seed + ": " + description, f, List.of(x, y), 0, 1);
    }

    private static Tensor randomProgram(Random random, Tensor x, Tensor y, StringBuilder description) {
        var values = new ArrayList<>(List.of(x, y.unsqueeze(0).expand(x.dim(0), x.dim(1))));
        description.setLength(0);
        for (int step = 0; step < 8; step++) {
            Tensor a = values.get(random.nextInt(values.size())), b = values.get(random.nextInt(values.size()));
            int op = random.nextInt(11);
            description.append(op).append(' ');
            values.add(switch (op) {
                case 0 -> a.add(b);
                case 1 -> a.mul(b);
                case 2 -> a.tanh();
                case 3 -> a.sub(y);                              // broadcast [C] against [R, C]
                case 4 -> a.sum(1, true).mul(b);                 // reduce, then broadcast back
                case 5 -> a.t().sigmoid().t();                   // views around a pointwise op
                case 6 -> a.mul(a).add(1).sqrt();                // fan-out into one op
                case 7 -> a.max(0, true).add(b);
                case 8 -> a.matmul(b.t()).sum(1, true).expand(a.dim(0), a.dim(1)).div(a.dim(1));
                case 9 -> a.softmax(-1);
                default -> a.sin().mul(b.exp().add(1).log());
            });
        }
        Tensor result = values.getLast();
        for (int i = values.size() - 2; i >= values.size() - 4; i--) result = result.add(values.get(i).mul(0.5));
        return result.sum();
    }

    @Test
    void inputsNotReachedGetZeroGradients() {
        var grads = Autograd.grad((a, b) -> a.exp().sum(), 0, 1).applyAll(Tensor.ones(2, 3), Tensor.ones(4));
        assertEquals(Shape.of(4), grads.get(1).shape());
        org.junit.jupiter.api.Assertions.assertArrayEquals(new float[4], grads.get(1).toFloatArray());
    }
}
