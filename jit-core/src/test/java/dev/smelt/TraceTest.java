// SPDX-License-Identifier: Apache-2.0
package dev.smelt;

import static dev.smelt.TensorAssertions.F32_COMPOSITE;
import static dev.smelt.TensorAssertions.assertClose;
import static dev.smelt.TensorAssertions.assertTensor;
import static dev.smelt.TensorAssertions.shape;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.smelt.ir.DType;
import dev.smelt.ir.Shape;
import dev.smelt.ir.SmeltException;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/// `Jit.trace` records the graph printed by [dev.smelt.ir.Printer]; concrete tensors the function
/// reads become inputs after the arguments; `Traced.interpret` agrees with eager execution.
class TraceTest {
    @Test
    void traceRecordsOneNodePerOperation() {
        var traced = Jit.trace((x, y) -> x.mul(y).add(1), Tensor.zeros(2, 3), Tensor.zeros(2, 3));
        assertEquals("""
                graph(%0: f32[2,3], %1: f32[2,3]) {
                  %2 = mul %0 %1 : f32[2,3]
                  %3 = const 1.0 : f32[2,3]
                  %4 = add %2 %3 : f32[2,3]
                  return %4
                }
                """, traced.toString());
        assertEquals(2, traced.arguments());
        assertTrue(traced.captures().isEmpty());
    }

    @Test
    void broadcastingPromotionAndKeepDimsAreExplicitNodes() {
        assertEquals("""
                graph(%0: i32[2,3]) {
                  %1 = sum %0 axes=[1] : i32[2,1]
                  %2 = cast %1 : f32[2,1]
                  %3 = const 3.0 : f32[2,1]
                  %4 = div %2 %3 : f32[2,1]
                  return %4
                }
                """, Jit.trace(x -> x.sum(1, true).div(3), Tensor.zeros(DType.I32, 2, 3)).toString());
        assertEquals("""
                graph(%0: f32[2,3]) {
                  %1 = permute %0 order=[1,0] : f32[3,2]
                  %2 = slice %1 axis=0 start=1 stop=3 step=1 : f32[2,2]
                  %3 = reshape %2 : f32[4]
                  return %3
                }
                """, Jit.trace(x -> x.t().slice(0, 1, 3).reshape(-1), Tensor.zeros(2, 3)).toString());
    }

    @Test
    void capturedTensorsBecomeInputsAfterTheArguments() {
        var weight = Tensor.of(new float[] {1, 2, 3});
        var traced = Jit.trace(x -> x.mul(weight).sum(), Tensor.zeros(2, 3));
        assertEquals("""
                graph(%0: f32[2,3], %1: f32[3]) {
                  %2 = reshape %1 : f32[1,3]
                  %3 = expand %2 : f32[2,3]
                  %4 = mul %0 %3 : f32[2,3]
                  %5 = sum %4 axes=[0,1] : f32[1,1]
                  %6 = reshape %5 : f32[]
                  return %6
                }
                """, traced.toString());
        assertEquals(1, traced.arguments());
        assertEquals(1, traced.captures().size());
        assertSame(weight, traced.captures().getFirst());
    }

    @Test
    void eachCapturedTensorIsOneInputInOrderOfFirstUse() {
        var w = Tensor.of(new float[] {1, 2, 3});
        var v = Tensor.of(new float[] {4, 5, 6});
        var traced = Jit.trace(x -> x.add(w).mul(v).sub(w), Tensor.zeros(3));
        assertEquals(3, traced.graph().inputs().size());
        assertEquals(List.of(w, v), traced.captures());
        assertTensor(traced.interpret(Tensor.ones(3)).getFirst(), DType.F32, shape(3), 7, 13, 21);
    }

    @Test
    void interpretMatchesEagerExecution() {
        Jit.Function2 layer = (x, w) -> x.matmul(w).add(0.5).relu().softmax(-1).mul(x.sum(1, true));
        var x = Tensor.randn(new Generator(1), 4, 3);
        var w = Tensor.randn(new Generator(2), 3, 5);
        var traced = Jit.trace(layer, Tensor.zeros(4, 3), Tensor.zeros(3, 5));
        var result = traced.interpret(x, w);
        assertEquals(1, result.size());
        // Eager runs generated kernels, which round matmul products the interpreter keeps exact.
        assertArrayEquals(layer.apply(x, w).toFloatArray(), result.getFirst().toFloatArray(), 1e-5f);
        assertFalse(result.getFirst().isTraced());
    }

    @Test
    void interpretReadsCapturesAfreshWithoutRetracing() {
        var weight = Tensor.of(new float[] {1, 2, 3, 4}, 2, 2);
        var traced = Jit.trace(x -> x.matmul(weight.t()), Tensor.zeros(1, 2));
        var x = Tensor.of(new float[] {1, 1}, 1, 2);
        assertTensor(traced.interpret(x).getFirst(), DType.F32, shape(1, 2), 3, 7);
        // No in-place ops exist yet, so update the storage directly, as an optimiser step will.
        weight.value().storage().set(0, 10);
        assertTensor(traced.interpret(x).getFirst(), DType.F32, shape(1, 2), 12, 7);
        assertSame(weight, traced.captures().getFirst());
    }

    @Test
    void exampleValuesAreNotRead() {
        var traced = Jit.trace(x -> x.mul(2), Tensor.full(99, 2));
        assertTensor(traced.interpret(Tensor.of(new float[] {1, 2})).getFirst(), DType.F32, shape(2), 2, 4);
        assertTensor(traced.interpret(Tensor.of(new float[] {1, 2}).expand(2)).getFirst(), DType.F32, shape(2), 2, 4);
        assertTensor(traced.interpret(Tensor.of(new float[] {5, 0, 6}).slice(0, 0, 3, 2)).getFirst(), DType.F32, shape(2), 10, 12);
    }

    @Test
    void equalSubexpressionsAreRecordedOnce() {
        assertEquals("""
                graph(%0: f32[3]) {
                  %1 = exp %0 : f32[3]
                  %2 = add %1 %1 : f32[3]
                  return %2
                }
                """, Jit.trace(x -> x.exp().add(x.exp()), Tensor.zeros(3)).toString());
    }

    @Test
    void factoriesInsideATraceAreConstantsAndEagerOpsOnCapturesAreRecorded() {
        var weight = Tensor.of(new float[] {1, 2, 3});
        assertEquals("""
                graph(%0: f32[3], %1: f32[3]) {
                  %2 = const 2.0 : f32[3]
                  %3 = mul %1 %2 : f32[3]
                  %4 = add %0 %3 : f32[3]
                  return %4
                }
                """, Jit.trace(x -> x.add(weight.mul(2)), Tensor.zeros(3)).toString());
        var traced = Jit.trace(x -> x.add(Tensor.ones(3)).mul(Tensor.arange(3)), Tensor.zeros(3));
        assertTrue(traced.captures().isEmpty());
        assertTrue(traced.toString().contains("%1 = const 1.0 : f32[3]\n"));
        assertTrue(traced.toString().contains("iota axis=0 : i32[3]"));
        assertTensor(traced.interpret(Tensor.of(new float[] {1, 1, 1})).getFirst(), DType.F32, shape(3), 0, 2, 4);
    }

    @Test
    void returningAnArgumentOrACaptureIsAnInput() {
        var weight = Tensor.of(new float[] {1, 2, 3});
        assertEquals("graph(%0: f32[3]) {\n  return %0\n}\n", Jit.trace(x -> x, Tensor.zeros(3)).toString());
        var captured = Jit.trace(x -> weight, Tensor.zeros(3));
        assertEquals("graph(%0: f32[3], %1: f32[3]) {\n  return %1\n}\n", captured.toString());
        assertTensor(captured.interpret(Tensor.zeros(3)).getFirst(), DType.F32, shape(3), 1, 2, 3);
    }

    @Test
    void tracesOfSeveralArgumentsAndResults() {
        var three = Jit.trace((a, b, c) -> a.add(b).mul(c), Tensor.zeros(2), Tensor.zeros(2), Tensor.zeros(2));
        assertTensor(three.interpret(Tensor.ones(2), Tensor.ones(2), Tensor.full(3, 2)).getFirst(), DType.F32, shape(2), 6, 6);
        var four = Jit.trace((a, b, c, d) -> Tensor.where(a, b, c.add(d)),
                Tensor.zeros(DType.BOOL, 2), Tensor.zeros(2), Tensor.zeros(DType.I32, 2), Tensor.zeros(DType.I32, 2));
        var mask = Tensor.of(new boolean[] {true, false});
        var picked = four.interpret(mask, Tensor.full(0.5, 2), Tensor.of(new int[] {1, 2}), Tensor.of(new int[] {3, 4}));
        assertTensor(picked.getFirst(), DType.F32, shape(2), 0.5, 6);
        var many = Jit.trace(arguments -> List.of(arguments.get(0).add(arguments.get(1)), arguments.get(0).sub(arguments.get(1))),
                List.of(Tensor.zeros(2), Tensor.zeros(2)));
        var results = many.interpret(Tensor.of(new float[] {5, 6}), Tensor.of(new float[] {1, 2}));
        assertTensor(results.get(0), DType.F32, shape(2), 6, 8);
        assertTensor(results.get(1), DType.F32, shape(2), 4, 4);
        assertTrue(many.toString().contains("return %2, %3"));
    }

    @Test
    void tracedTensorsAreSymbolic() {
        var seen = new ArrayList<Tensor>();
        Jit.trace(x -> {
            seen.add(x);
            return x.sum(0);
        }, Tensor.zeros(2, 3));
        var x = seen.getFirst();
        assertTrue(x.isTraced());
        assertEquals(Shape.of(2, 3), x.shape());
        assertEquals(3, x.dim(-1));
        assertEquals("tensor(<traced>, shape=[2,3], dtype=f32)", x.toString());
    }

    @Test
    void concreteTensorsKeepTheirValuesInsideATrace() {
        var weight = Tensor.of(new float[] {1, 2});
        var checks = new ArrayList<Object>();
        Jit.trace(x -> {
            checks.add(weight.allClose(Tensor.of(new float[] {1, 2, 1, 2}, 2, 2)));
            checks.add(weight.get(1));
            checks.add(weight.toString());
            return x.add(weight);
        }, Tensor.zeros(2));
        assertEquals(List.of(true, 2.0, "tensor([1., 2.], shape=[2], dtype=f32)"), checks);
    }

    @Test
    void tracedCrossEntropyChecksItsTargetsWhenInterpreted() {
        var traced = Jit.trace((logits, targets) -> logits.crossEntropy(targets), Tensor.zeros(2, 3), Tensor.zeros(DType.I32, 2));
        var error = assertThrows(SmeltException.class, () -> traced.interpret(Tensor.zeros(2, 3), Tensor.of(new int[] {0, 5})));
        assertTrue(error.getMessage().startsWith("crossEntropy: target 5 at index 1 is out of range; expected 0..2"), error.getMessage());
        var fine = traced.interpret(Tensor.zeros(2, 3), Tensor.of(new int[] {0, 2})).getFirst();
        assertClose(fine, DType.F32, shape(), F32_COMPOSITE, Math.log(3));
    }
}
