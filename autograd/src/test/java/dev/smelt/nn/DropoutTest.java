// SPDX-License-Identifier: Apache-2.0
package dev.smelt.nn;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.smelt.Generator;
import dev.smelt.Jit;
import dev.smelt.Tensor;
import dev.smelt.ir.SmeltException;
import dev.smelt.optim.SGD;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/// `nn.Dropout`: PyTorch's modes, eagerly and compiled, and in a training step.
class DropoutTest {
    @Test
    void trainsByDefaultAndIsTheIdentityInEvaluation() {
        var g = new Generator(4);
        var layer = new Dropout(0.5, g);
        var x = Tensor.ones(257);
        assertTrue(layer.isTraining());
        assertArrayEquals(x.dropout(0.5, new Generator(4)).toFloatArray(), layer.forward(x).toFloatArray());
        assertSame(layer, layer.eval());
        long position = g.position();
        assertSame(x, layer.forward(x));
        assertEquals(position, g.position(), "eager evaluation draws nothing");
        assertEquals("Dropout(p=0.5, inplace=False) eval", layer.toString());
        assertEquals("Dropout(p=0.5, inplace=False)", layer.train().toString());
        assertEquals("Dropout(p=1e-05, inplace=False)", new Dropout(1e-5, g).toString()); // Python's float repr, not Java's 1.0E-5
    }

    /// A function compiled in training mode follows a switch to evaluation and back, without a retrace.
    @Test
    void aCompiledFunctionFollowsTheMode() {
        var g = new Generator(8);
        var layer = new Dropout(0.25, g);
        var f = Jit.compile(layer::forward);
        var x = Tensor.rand(new Generator(1), 4, 100);
        var eager = new Generator(8);
        assertArrayEquals(x.dropout(0.25, eager).toFloatArray(), f.apply(x).toFloatArray());
        layer.eval();
        assertArrayEquals(x.toFloatArray(), f.apply(x).toFloatArray());
        layer.train();
        var trained = f.apply(x).toFloatArray();
        assertFalse(Arrays.equals(x.toFloatArray(), trained));
        assertEquals(1, f.compiledSignatures());
    }

    /// `eval()` and `train()` of a model reach the dropout layers inside it, nested too, as
    /// PyTorch's: before, only the layer's own switch did, and `model.eval()` did not exist.
    @Test
    void aModelsModeReachesItsDropoutLayers() {
        var g = new Generator(3);
        var inner = new Dropout(0.5, g);
        var outer = new Dropout(0.5, g);
        var model = new Sequential(new Linear(8, 8, g), outer, new Sequential(new Activations.ReLU(), inner));
        var f = Jit.compile(model::forward);
        var x = Tensor.rand(new Generator(1), 4, 8);
        assertSame(model, model.eval());
        assertFalse(inner.isTraining() || outer.isTraining());
        var expected = new Linear(8, 8, new Generator(3)).forward(x).relu();
        assertArrayEquals(expected.toFloatArray(), model.forward(x).toFloatArray(), 1e-6f);
        assertArrayEquals(expected.toFloatArray(), f.apply(x).toFloatArray(), 1e-6f);
        model.train();
        assertTrue(inner.isTraining() && outer.isTraining());
        assertFalse(Arrays.equals(expected.toFloatArray(), f.apply(x).toFloatArray()));
    }

    @Test
    void rejectsBadArguments() {
        for (double p : new double[] {-1, 1.01, Double.NaN}) {
            var error = assertThrows(SmeltException.class, () -> new Dropout(p, new Generator(1)));
            assertTrue(error.getMessage().contains("Dropout") && error.getMessage().contains("[0, 1]"), error.getMessage());
        }
        assertThrows(SmeltException.class, () -> new Dropout(0.5, null));
        assertThrows(SmeltException.class, () -> new Dropout(0.5, new Generator(1)).forward(null));
    }

    /// A training step with dropout draws a fresh mask per step (the loss changes on a fixed batch
    /// even with a learning rate of 0) and advances the generator as eager steps would.
    @Test
    void aTrainingStepDrawsAFreshMaskPerStep() {
        var g = new Generator(12);
        var model = new Sequential(new Linear(8, 8, new Generator(2)), new Dropout(0.5, g), new Linear(8, 1, new Generator(3)));
        var step = new SGD(model.parameters(), 0).compile((x, y) -> model.forward(x).sub(y).square().mean());
        var x = Tensor.randn(new Generator(5), 16, 8);
        var y = Tensor.zeros(16, 1);
        double first = step.apply(x, y), second = step.apply(x, y);
        assertTrue(first != second, first + " " + second);
        assertEquals(2 * 16 * 8, g.position());
    }
}
