// SPDX-License-Identifier: Apache-2.0
package dev.smelt.models.gpt;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.smelt.Generator;
import dev.smelt.Jit;
import dev.smelt.Tensor;
import dev.smelt.ir.FusionMode;
import dev.smelt.ir.SmeltException;
import dev.smelt.optim.Adam;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/// The GPT model at a toy size: names as PyTorch's, compiled logits equal eager ones, a compiled
/// AdamW step fused equals the same step unfused (`TrainStep.withFusion(NONE)`), and training on
/// one repeated batch drives the loss down.
class GptTest {
    private static final Gpt.Config TOY = new Gpt.Config(37, 12, 16, 2, 2);

    private static Tensor tokens(Random random, int batch, int length) {
        int[] values = new int[batch * length];
        for (int i = 0; i < values.length; i++) values[i] = random.nextInt(TOY.vocab());
        return Tensor.of(values).reshape(batch, length);
    }

    @Test
    void parametersAreNamedAsInPyTorch() {
        var names = new Gpt(TOY, new Generator(1)).namedParameters().keySet();
        assertTrue(names.containsAll(List.of("tokens.weight", "positions.weight", "blocks.0.norm1.weight", "blocks.1.mlp.2.bias", "norm.weight", "head.weight")), names::toString);
        assertEquals(6 + 2 * 16, names.size(), names::toString); // 6 outside the blocks, 16 per block
    }

    @Test
    void compiledLogitsEqualEagerOnes() {
        var model = new Gpt(TOY, new Generator(2));
        Tensor x = tokens(new Random(3), 3, 7);
        var compiled = Jit.compile(model::forward);
        Tensor eager = model.forward(x);
        assertEquals(List.of(3, 7, TOY.vocab()), eager.shape().dims());
        for (int call = 0; call < 2; call++) assertTrue(eager.allClose(compiled.apply(x), 1e-4, 1e-5, false), "call " + call);
    }

    @Test
    void aFusedStepEqualsTheUnfusedOneAndLearns() {
        Gpt fused = new Gpt(TOY, new Generator(4)), unfused = new Gpt(TOY, new Generator(4));
        var fusedStep = Adam.adamW(fused.parameters(), 0.01, 0.01).compile((x, y) -> fused.loss(x, y));
        var unfusedStep = Adam.adamW(unfused.parameters(), 0.01, 0.01).compile((x, y) -> unfused.loss(x, y)).withFusion(FusionMode.NONE);
        var random = new Random(5);
        Tensor x = tokens(random, 4, TOY.context()), y = tokens(random, 4, TOY.context());
        double first = Double.NaN, last = Double.NaN;
        for (int step = 0; step < 30; step++) {
            last = fusedStep.apply(x, y);
            double reference = unfusedStep.apply(x, y);
            if (step == 0) first = last;
            if (step < 3) assertEquals(reference, last, 1e-4 * Math.abs(reference), "loss at step " + step);
        }
        assertTrue(last < 0.5 * first, "loss " + first + " → " + last);
        assertArrayEquals(unfused.parameters().getFirst().value().toFloatArray(), fused.parameters().getFirst().value().toFloatArray(), 2e-3f);
    }

    @Test
    void badInputIsAClearError() {
        var model = new Gpt(TOY, new Generator(6));
        var tooLong = assertThrows(SmeltException.class, () -> model.forward(tokens(new Random(7), 1, TOY.context() + 1)));
        assertTrue(tooLong.getMessage().contains("expected tokens [batch, ≤ 12]"), tooLong.getMessage());
        var badConfig = assertThrows(SmeltException.class, () -> new Gpt.Config(10, 8, 15, 2, 1));
        var nullTargets = assertThrows(SmeltException.class, () -> model.loss(tokens(new Random(7), 1, 4), null));
        var nullConfig = assertThrows(SmeltException.class, () -> new Gpt(null, new Generator(1)));
        var transposedTargets = assertThrows(SmeltException.class, () -> model.loss(tokens(new Random(7), 2, 3), tokens(new Random(8), 3, 2)));
        assertTrue(transposedTargets.getMessage().contains("expected targets of the tokens' shape [2,3], got [3,2]"), transposedTargets.getMessage());
        for (var error : List.of(tooLong, badConfig, nullTargets, nullConfig, transposedTargets))  // the caller's line, not the model's
            assertTrue(error.getMessage().contains("(at dev.smelt.models.gpt.GptTest"), error.getMessage());
    }
}
