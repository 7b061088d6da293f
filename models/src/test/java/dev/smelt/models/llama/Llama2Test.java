// SPDX-License-Identifier: Apache-2.0
package dev.smelt.models.llama;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.smelt.Generator;
import dev.smelt.ir.SmeltException;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/// The Smelt model against llama2.c's forward ported to Java ([Llama2cReference]), on random
/// checkpoints of small shapes, grouped-query and not, shared classifier and not: every position's
/// logits, and greedy decoding's choices.
class Llama2Test {
    @TempDir Path directory;

    @Test
    void everyPositionsLogitsMatchLlama2c() {
        int[][] shapes = {{32, 64, 2, 4, 4, 50, 16, 1}, {48, 96, 2, 6, 2, 61, 12, 0}};
        for (int[] s : shapes) {
            var config = new Llama2Config(s[0], s[1], s[2], s[3], s[4], s[5], s[6], s[7] == 1);
            Path file = directory.resolve("model-" + s[0] + ".bin");
            Llama2Checkpoint.writeRandom(file, config, new Generator(s[0]));
            var checkpoint = Llama2Checkpoint.read(file);
            var model = new Llama2(checkpoint);
            var reference = new Llama2cReference(checkpoint);
            int[] tokens = new int[config.seqLen() - 2];
            var generator = new java.util.Random(s[1]);
            for (int i = 0; i < tokens.length; i++) tokens[i] = generator.nextInt(config.vocab());
            float[] logits = model.forward(tokens, 0).toFloatArray();
            for (int pos = 0; pos < tokens.length; pos++) {
                float[] expected = reference.forward(tokens[pos], pos);
                for (int i = 0; i < config.vocab(); i++) {
                    float actual = logits[pos * config.vocab() + i];
                    assertTrue(Math.abs(actual - expected[i]) <= 1e-4f * (1 + Math.abs(expected[i])),
                            "%s position %d logit %d: %s vs llama2.c's %s".formatted(config, pos, i, actual, expected[i]));
                }
            }
            int argmax = 0, last = (tokens.length - 1) * config.vocab();
            for (int i = 1; i < config.vocab(); i++) if (logits[last + i] > logits[last + argmax]) argmax = i;
            assertEquals(argmax, model.next(tokens)); // greedy decoding takes the last position's argmax
        }
    }

    @Test
    void badTokensAndPositionsAreRefused() {
        var config = new Llama2Config(16, 32, 1, 2, 2, 20, 8, true);
        Path file = directory.resolve("small.bin");
        Llama2Checkpoint.writeRandom(file, config, new Generator(1));
        var model = new Llama2(Llama2Checkpoint.read(file));
        assertThrows(SmeltException.class, () -> model.forward(new int[] {1, 20}, 0));
        assertThrows(SmeltException.class, () -> model.forward(new int[] {1, 2}, 7));
        assertThrows(SmeltException.class, () -> model.forward(new int[0], 0));
    }
}
