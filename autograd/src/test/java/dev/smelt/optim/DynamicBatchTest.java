// SPDX-License-Identifier: Apache-2.0
package dev.smelt.optim;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.smelt.Generator;
import dev.smelt.Tensor;
import dev.smelt.data.Batch;
import dev.smelt.data.DataLoader;
import dev.smelt.data.Dataset;
import dev.smelt.ir.SmeltException;
import dev.smelt.nn.Activations;
import dev.smelt.nn.Linear;
import dev.smelt.nn.Parameter;
import dev.smelt.nn.Sequential;
import java.util.List;
import org.junit.jupiter.api.Test;

/// A training step with the batch marked dynamic: an epoch of batches 32, 32, 29 runs one compiled
/// signature, and every step (the short one too) computes what an unmarked step and eager code compute.
class DynamicBatchTest {
    private static Sequential model() {
        var generator = new Generator(3);
        return new Sequential(new Linear(20, 16, generator), new Activations.ReLU(), new Linear(16, 5, generator));
    }

    private static Dataset data(int samples) {
        var generator = new Generator(8);
        int[] labels = new int[samples];
        for (int i = 0; i < samples; i++) labels[i] = (int) (Tensor.rand(generator, 1).item() * 5);
        return new Dataset(Tensor.randn(generator, samples, 20), Tensor.of(labels));
    }

    @Test
    void aShortLastBatchRunsTheSameProgramAndMatchesAnUnmarkedStep() {
        Sequential dynamicModel = model(), staticModel = model();
        var dynamicAdam = new Adam(dynamicModel.parameters(), 1e-2);
        TrainStep dynamicStep = dynamicAdam.compile((x, y) -> dynamicModel.forward(x).crossEntropy(y)).dynamicBatch();
        TrainStep staticStep = new Adam(staticModel.parameters(), 1e-2).compile((x, y) -> staticModel.forward(x).crossEntropy(y));
        var loader = new DataLoader(data(93), 32, new Generator(1));
        for (int epoch = 0; epoch < 3; epoch++) {
            for (Batch batch : loader) {
                // The loss a step returns is the loss before its update: eager code computes it from the same parameters.
                double eager = dynamicModel.forward(batch.features()).crossEntropy(batch.labels()).item();
                double dynamic = dynamicStep.apply(batch.features(), batch.labels());
                double unmarked = staticStep.apply(batch.features(), batch.labels());
                assertEquals(eager, dynamic, 1e-5 * Math.max(1, Math.abs(eager)), "epoch " + epoch + ", batch of " + batch.size());
                assertEquals(unmarked, dynamic, 1e-5 * Math.max(1, Math.abs(unmarked)), "epoch " + epoch + ", batch of " + batch.size());
            }
            assertEquals(1, dynamicStep.compiledSignatures(), "one program for 32, 32 and 29 rows");
            assertEquals(2, staticStep.compiledSignatures(), "unmarked, the 29-row batch is a second signature");
        }
        assertEquals(9, dynamicAdam.steps());
        List<Parameter> dynamicParameters = dynamicModel.parameters(), staticParameters = staticModel.parameters();
        for (int p = 0; p < dynamicParameters.size(); p++)
            assertArrayEquals(staticParameters.get(p).value().toFloatArray(), dynamicParameters.get(p).value().toFloatArray(), 1e-5f, "parameter " + p);
    }

    @Test
    void meanLossesDivideByTheActualBatchSize() {
        var weight = new Parameter("w", Tensor.zeros(3));
        var sgd = new SGD(List.of(weight), 1.0);
        TrainStep step = sgd.compile((x, y) -> x.matmul(weight.value()).mseLoss(y)).dynamic(0, 0).dynamic(1, 0);
        // With w = 0 the mean squared error of targets y is Σy²/B, and its gradient -2·Σ(y·x)/B.
        Tensor x = Tensor.ones(4, 3), y = Tensor.of(new float[] {1, 2, 3, 4});
        assertEquals(30 / 4.0, step.apply(x, y), 1e-6);
        assertArrayEquals(new float[] {5, 5, 5}, weight.value().toFloatArray(), 1e-6f, "w = 0 + 2·10/4");
        weight.value().set(0, 0);
        weight.value().set(0, 1);
        weight.value().set(0, 2);
        assertEquals(5 / 2.0, step.apply(x.slice(0, 0, 2), y.slice(0, 0, 2)), 1e-6, "(1 + 4) / 2, not / 4");
        assertArrayEquals(new float[] {3, 3, 3}, weight.value().toFloatArray(), 1e-6f, "w = 2·3/2");
        assertEquals(1, step.compiledSignatures());
        assertTrue(step.explain(x.slice(0, 0, 3), y.slice(0, 0, 3)).contains("signature [argument 0: f32[?,3]"), step.explain());
    }

    @Test
    void onlyBatchTensorsCanBeMarked() {
        var weight = new Parameter("w", Tensor.zeros(3));
        TrainStep step = new SGD(List.of(weight), 0.1).compile((x, y) -> x.matmul(weight.value()).mseLoss(y));
        var e = assertThrows(SmeltException.class, () -> step.dynamic(2, 0));
        assertTrue(e.getMessage().startsWith("train step: there is no batch tensor 2 to mark dynamic; the step takes 2 (0…1)"), e.getMessage());
        var beyondRank = step.dynamic(1, 1);
        var error = assertThrows(SmeltException.class, () -> beyondRank.apply(Tensor.ones(4, 3), Tensor.ones(4)));
        assertTrue(error.getMessage().contains("marked dynamic on axis 1, but it has rank 1"), error.getMessage());
    }
}
