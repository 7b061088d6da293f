// SPDX-License-Identifier: Apache-2.0
package dev.smelt.nn;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.smelt.Generator;
import dev.smelt.optim.Adam;
import dev.smelt.optim.SGD;
import java.util.List;
import org.junit.jupiter.api.Test;

/// Modules, optimizers and training steps print as PyTorch prints them.
class PrintingTest {
    @Test
    void sequentialNumbersItsLayersAndIndentsNestedOnes() {
        var generator = new Generator(0);
        var inner = new Sequential(new Linear(128, 64, generator), new Activations.Tanh());
        var model = new Sequential(new Linear(64, 128, generator), new Activations.ReLU(), inner, new LayerNorm(64), new Activations.GELU(),
                new Activations.Sigmoid());
        assertEquals("""
                Sequential(
                  (0): Linear(in_features=64, out_features=128, bias=True)
                  (1): ReLU()
                  (2): Sequential(
                    (0): Linear(in_features=128, out_features=64, bias=True)
                    (1): Tanh()
                  )
                  (3): LayerNorm((64,), eps=1e-05, elementwise_affine=True)
                  (4): GELU(approximate='none')
                  (5): Sigmoid()
                )""", model.toString());
        assertEquals("Sequential()", new Sequential().toString());
    }

    @Test
    void optimizersAndStepsPrintTheirCurrentHyperParameters() {
        var parameters = new Linear(2, 3, new Generator(0)).parameters();
        assertEquals("Adam (lr=0.001, betas=(0.9, 0.999), eps=1e-08, weight_decay=0)", new Adam(parameters, 1e-3).toString());
        assertEquals("AdamW (lr=0.001, betas=(0.9, 0.999), eps=1e-08, weight_decay=0.01)", Adam.adamW(parameters, 1e-3, 0.01).toString());
        var sgd = new SGD(parameters, 0.1, 0.9, 0, 5e-4, true);
        assertEquals("SGD (lr=0.1, momentum=0.9, dampening=0, weight_decay=0.0005, nesterov=True)", sgd.toString());
        sgd.learningRate(1);
        assertEquals("SGD (lr=1.0, momentum=0.9, dampening=0, weight_decay=0.0005, nesterov=True)", sgd.toString());
        var step = new SGD(parameters, 0.5).compile((x, y) -> x.sub(y).square().sum());
        assertEquals("TrainStep(SGD (lr=0.5, momentum=0, dampening=0, weight_decay=0, nesterov=False), batch_tensors=2, compiled_signatures=0)", step.toString());
    }

    @Test
    void numbersPrintAsPythonsRepr() {
        var cases = List.of(1e-5, 1e-8, 0.001, 1e-4, 0.5, 2.0, 100.0, 1e15, 1e16, 123456.789, -2.5e-7, 0.1 + 0.2, 0.0, -0.0, Double.NaN,
                Double.NEGATIVE_INFINITY, 1.5e300);
        var expected = List.of("1e-05", "1e-08", "0.001", "0.0001", "0.5", "2.0", "100.0", "1000000000000000.0", "1e+16", "123456.789", "-2.5e-07",
                "0.30000000000000004", "0.0", "-0.0", "nan", "-inf", "1.5e+300");
        assertEquals(expected, cases.stream().map(Repr::of).toList());
        assertEquals("0", Repr.orZero(0));
        assertEquals("True", Repr.of(true));
    }
}
