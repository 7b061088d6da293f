// SPDX-License-Identifier: Apache-2.0
package dev.smelt.autograd;

import static dev.smelt.autograd.VjpRulesTest.values;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.smelt.Jit;
import dev.smelt.Tensor;
import dev.smelt.ir.BinaryOp;
import dev.smelt.ir.DType;
import dev.smelt.ir.Node;
import dev.smelt.ir.ReduceOp;
import dev.smelt.ir.Shape;
import dev.smelt.ir.SmeltException;
import dev.smelt.ir.UnaryOp;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/// valueAndGrad's forward and backward programs, the save-or-recompute decisions, the API's
/// errors, and that every node kind has a vjp rule.
class ValueAndGradTest {
    private static final Jit.FunctionN MLP = args -> List.of(args.get(0).matmul(args.get(1)).relu().matmul(args.get(2)).exp().sum());

    @Test
    void forwardAndBackwardProgramsAgreeWithTheJointGradient() {
        var random = new Random(1);
        Tensor x = values(random, false, 5, 3), w = values(random, false, 3, 4), v = values(random, false, 4);
        var split = Autograd.valueAndGrad(MLP, 3, 1, 0).apply(x, w, v);
        var joint = Autograd.grad(MLP, 3, 1, 0).applyAll(x, w, v);
        var value = Jit.compile(MLP, 3).apply(x, w, v);
        GradientCheck.agree("value", value, split.value(), 1e-12);
        GradientCheck.agree("d/dw", joint.get(0), split.gradients().get(0), 1e-12);
        GradientCheck.agree("d/dx", joint.get(1), split.gradients().get(1), 1e-12);
    }

    /// A dynamic batch: each size traces the gradient again (its column sums over the batch keep a
    /// kernel per size) but none is a recompile, and every size matches the interpreted gradients.
    @Test
    void gradientsWithADynamicBatchMatchTheInterpreterWithoutRecompiling() {
        var random = new Random(2);
        Tensor w = values(random, false, 3, 4), v = values(random, false, 4);
        var grad = Autograd.grad(MLP, 3, 1, 0).dynamic(0, 0);
        for (int batch : new int[] {1, 7, 64, 129}) {
            Tensor x = values(random, false, batch, 3);
            var expected = Autograd.withGradients(Jit.trace(MLP, List.of(x, w, v)), new int[] {1, 0}, false).interpret(x, w, v);
            var actual = grad.applyAll(x, w, v);
            GradientCheck.agree("d/dw at batch " + batch, expected.get(0), actual.get(0), 1e-9);
            GradientCheck.agree("d/dx at batch " + batch, expected.get(1), actual.get(1), 1e-9);
        }
        assertEquals(List.of(), grad.recompiles());
    }

    /// A gradient that is an argument (`∂Σ(w·x)/∂w` is x) or shares its node with another
    /// (`∂Σ(w + x)` is ones for both) is still a tensor of its own: reusing the batch's buffer or
    /// writing into one gradient changes nothing else, as in PyTorch.
    @Test
    void aGradientNeverSharesStorageWithAnArgumentOrAnotherGradient() {
        Tensor w = Tensor.of(new float[] {1, 2}), x = Tensor.of(new float[] {3, 4});
        var dw = Autograd.grad((a, b) -> a.mul(b).sum(), 0);
        Tensor first = dw.apply(w, x);
        x.copyFrom(new float[] {10, 20});
        Tensor second = dw.apply(w, x);
        second.set(-1, 0);
        assertEquals(List.of(3.0, 4.0, 10.0, 20.0), List.of(first.get(0), first.get(1), x.get(0), x.get(1)));
        var both = Autograd.grad((a, b) -> a.add(b).sum(), 0, 1).applyAll(w, x);
        both.get(0).set(7, 0);
        assertEquals(1.0, both.get(1).get(0));
        var split = Autograd.valueAndGrad((a, b) -> a.mul(b).sum(), 0).apply(w, x);
        split.gradients().getFirst().set(5, 1);
        assertEquals(20.0, x.get(1));
        // valueAndGrad's backward takes the cotangent as an input: ∂(a + b) is that input itself
        var sum = Autograd.valueAndGrad((a, b) -> a.add(b), 0, 1);
        var once = sum.apply(Tensor.scalar(1), Tensor.scalar(2));
        once.gradients().get(0).set(101);
        assertEquals(List.of(101.0, 1.0), List.of(once.gradients().get(0).get(), once.gradients().get(1).get()));
        var next = sum.apply(Tensor.scalar(3), Tensor.scalar(4));
        assertEquals(List.of(7.0, 1.0, 1.0), List.of(next.value().get(), next.gradients().get(0).get(), next.gradients().get(1).get()));
    }

    @Test
    void cheapValuesAreRecomputedAndExpensiveOnesSaved() {
        var random = new Random(2);
        var vg = Autograd.valueAndGrad(MLP, 3, 0, 1, 2);
        vg.apply(values(random, false, 5, 3), values(random, false, 3, 4), values(random, false, 4));
        String explained = vg.explain();
        assertTrue(explained.contains("save exp("), explained);          // d eˣ reads eˣ: saved
        assertTrue(explained.contains("recompute relu("), explained);    // read by d(relu·v): cheap, recomputed from the saved matmul
        assertTrue(explained.contains("save matmul("), explained);
        assertTrue(explained.contains("forward program:") && explained.contains("backward program:"), explained);
        assertEquals(1, vg.compiledSignatures());
    }

    @Test
    void theCostRuleSavesTranscendentalsMatmulsAndReductions() {
        var x = new Node.Input(0, Shape.of(2, 2), DType.F32);
        assertTrue(SaveOrRecompute.choose(new Node.Unary(UnaryOp.TANH, x)).save());
        assertTrue(SaveOrRecompute.choose(new Node.MatMul(x, x, false, true)).save());
        assertTrue(SaveOrRecompute.choose(new Node.Reduce(ReduceOp.SUM, x, List.of(1))).save());
        assertTrue(!SaveOrRecompute.choose(new Node.Binary(BinaryOp.ADD, x, x)).save());
        assertTrue(!SaveOrRecompute.choose(new Node.Permute(x, List.of(1, 0))).save());
    }

    @Test
    void everyNodeKindHasARule() {
        var x = new Node.Input(0, Shape.of(2, 3), DType.F32);
        var flag = new Node.Binary(BinaryOp.GT, x, x);
        List<Node> samples = List.of(x, new Node.Constant(1, Shape.of(2), DType.F32), new Node.Iota(0, Shape.of(2), DType.F32),
                new Node.Unary(UnaryOp.EXP, x), new Node.Binary(BinaryOp.MUL, x, x), new Node.Where(flag, x, x),
                new Node.Cast(x, DType.F64), new Node.Reduce(ReduceOp.MAX, x, List.of(1)), new Node.MatMul(x, x, false, true),
                new Node.Reshape(x, Shape.of(3, 2)), new Node.Permute(x, List.of(1, 0)), new Node.Expand(new Node.Reshape(x, Shape.of(1, 2, 3)), Shape.of(4, 2, 3)),
                new Node.Slice(x, 1, 0, 3, 2), new Node.Concat(List.of(x, x), 0),
                new Node.Random(dev.smelt.ir.Distribution.UNIFORM, new Node.Constant(7, Shape.of(2), DType.I32), Shape.of(2, 3), DType.F32),
                new Node.IndexCheck(new Node.Cast(x, DType.I32), new dev.smelt.ir.IndexBounds("gather", "index", 3)),
                new Node.Gather(x, 1, new Node.Constant(2, Shape.of(2, 3), DType.I32)),
                new Node.Scatter(x, 0, new Node.Constant(1, Shape.of(1, 3), DType.I32), new Node.Constant(5, Shape.of(1, 3), DType.F32), true),
                new Node.SliceUpdate(x, 1, new Node.Constant(1, Shape.SCALAR, DType.I32), new Node.Constant(5, Shape.of(2, 2), DType.F32)),
                new Node.ArgSort(x, 1, true),
                new Node.Attention(dev.smelt.ir.AttentionPart.OUTPUT, List.of(x, x, x, new Node.Constant(0, Shape.of(2, 2), DType.F32)), false, 0.5));
        var kinds = new ArrayList<Class<?>>();
        for (Node y : samples) {
            kinds.add(y.getClass());
            var nodes = new Nodes(new dev.smelt.ir.Graph(List.of(x), List.of(y)));
            var grads = Vjp.of(y, nodes.constant(1, y), nodes);
            assertEquals(y.inputs().size(), grads.size(), "one gradient per operand of " + y);
        }
        assertEquals(List.of(Node.class.getPermittedSubclasses()).stream().sorted(java.util.Comparator.comparing(Class::getName)).toList(),
                kinds.stream().sorted(java.util.Comparator.comparing(Class::getName)).toList());
    }

    @Test
    void badCallsAreRefusedWithTheReason() {
        var notScalar = assertThrows(SmeltException.class, () -> Autograd.grad((Tensor t) -> t.exp()).apply(Tensor.ones(3)));
        assertTrue(notScalar.getMessage().contains("scalar"), notScalar.getMessage());
        var integer = assertThrows(SmeltException.class, () -> Autograd.grad((a, b) -> a.sum(), 1).applyAll(Tensor.ones(2), Tensor.arange(2)));
        assertTrue(integer.getMessage().contains("argument 1 is i32"), integer.getMessage());
        var range = assertThrows(SmeltException.class, () -> Autograd.grad((a, b) -> a.sum(), 2));
        assertTrue(range.getMessage().contains("argnums"), range.getMessage());
        assertThrows(SmeltException.class, () -> Autograd.grad((a, b) -> a.sum(), 0, 0));
        assertThrows(SmeltException.class, () -> Autograd.valueAndGrad((Tensor t) -> t.sum()).apply(Tensor.ones(2), Tensor.ones(2)));
    }

    @Test
    void scalarsSizeOneAndEmptyTensors() {
        assertEquals(List.of(1.0), java.util.Arrays.stream(Autograd.grad((Tensor t) -> t.sum()).apply(Tensor.scalar(3)).toDoubleArray()).boxed().toList());
        assertEquals(Shape.SCALAR, Autograd.grad((Tensor t) -> t).apply(Tensor.scalar(3)).shape());
        assertEquals(6.0, Autograd.grad((Tensor t) -> t.square()).apply(Tensor.of(new float[] {3})).item());
        var empty = Autograd.grad((Tensor t) -> t.exp().sum()).apply(Tensor.zeros(0, 3));
        assertEquals(Shape.of(0, 3), empty.shape());
        var vg = Autograd.valueAndGrad((Tensor t) -> t).apply(Tensor.scalar(2));
        assertEquals(2.0, vg.value().item());
        assertEquals(1.0, vg.gradients().getFirst().item());
    }

    @Test
    void gradientsOfConcreteTensorsReadInsideAreNotTaken() {
        Tensor scale = Tensor.of(new float[] {2, 3});
        var grad = Autograd.grad((Tensor t) -> t.mul(scale).sum());
        assertEquals(List.of(2.0, 3.0), java.util.Arrays.stream(grad.apply(Tensor.ones(2)).toDoubleArray()).boxed().toList());
    }
}
