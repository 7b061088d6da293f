// SPDX-License-Identifier: Apache-2.0
package dev.smelt.models.llama;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.smelt.Generator;
import dev.smelt.ir.SmeltException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/// Decoding with a KV cache against llama2.c's forward ported to Java and against the whole-sequence
/// forward: token by token from the start (across the 64-key blocks attention skips past the
/// position), after a prefill, grouped-query and not, two sessions of one model sharing its
/// programs; generation; a full sequence refused.
class Llama2SessionTest {
    @TempDir Path directory;

    private Llama2Checkpoint checkpoint(Llama2Config config, long seed) {
        Path file = directory.resolve("model-" + seed + ".bin");
        Llama2Checkpoint.writeRandom(file, config, new Generator(seed));
        return Llama2Checkpoint.read(file);
    }

    private static int[] tokens(int count, int vocab, long seed) {
        var random = new Random(seed);
        int[] tokens = new int[count];
        for (int i = 0; i < count; i++) tokens[i] = random.nextInt(vocab);
        return tokens;
    }

    private static void assertClose(float[] expected, float[] actual, String what) {
        assertEquals(expected.length, actual.length, what);
        for (int i = 0; i < expected.length; i++)
            assertTrue(Math.abs(actual[i] - expected[i]) <= 1e-4f * (1 + Math.abs(expected[i])), "%s, logit %d: %s vs %s".formatted(what, i, actual[i], expected[i]));
    }

    @Test
    void tokenByTokenMatchesLlama2cAcrossKeyBlocks() {
        for (var config : new Llama2Config[] {new Llama2Config(32, 64, 2, 4, 4, 50, 40, true), new Llama2Config(48, 96, 2, 6, 2, 61, 150, false)}) {
            var checkpoint = checkpoint(config, config.dim());
            var model = new Llama2(checkpoint);
            var other = model.session();
            other.next(3);
            other.next(4);
            var session = model.session();
            var reference = new Llama2cReference(checkpoint);
            int[] tokens = tokens(config.seqLen(), config.vocab(), config.hiddenDim());
            for (int pos = 0; pos < tokens.length; pos++)
                assertClose(reference.forward(tokens[pos], pos), session.next(tokens[pos]), config + " position " + pos);
            assertEquals(config.seqLen(), session.length());
            assertEquals(java.util.List.of(), model.steps().decode().recompiles(), "one program for every position and session");
            other.reset();                                     // its stale rows 0 and 1 are overwritten or masked
            assertClose(reference.forward(tokens[0], 0), other.next(tokens[0]), config + " another session, reset");
            var full = assertThrows(SmeltException.class, () -> session.next(1));
            assertTrue(full.getMessage().contains("the sequence is full"), full.getMessage());
        }
    }

    @Test
    void prefillThenDecodeEqualsTheWholeSequence() {
        var config = new Llama2Config(32, 64, 2, 4, 2, 50, 48, true);
        var model = new Llama2(checkpoint(config, 7));
        int[] tokens = tokens(45, config.vocab(), 8);
        float[] all = model.forward(tokens, 0).toFloatArray();
        var session = model.session();
        int prompt = 13;
        float[] logits = session.prefill(java.util.Arrays.copyOf(tokens, prompt));
        for (int pos = prompt - 1; pos < tokens.length; pos++) {
            float[] expected = java.util.Arrays.copyOfRange(all, pos * config.vocab(), (pos + 1) * config.vocab());
            assertClose(expected, logits, "position " + pos);
            if (pos + 1 < tokens.length) logits = session.next(tokens[pos + 1]);
        }
        assertThrows(SmeltException.class, () -> session.prefill(new int[] {1}));
    }

    @Test
    void greedyGenerationFollowsTheArgmax() {
        var config = new Llama2Config(32, 64, 1, 4, 4, 40, 24, true);
        var model = new Llama2(checkpoint(config, 9));
        int[] prompt = {1, 5, 9};
        var seen = new ArrayList<Integer>();
        int[] generated = model.generate(prompt, 10, new Llama2Sampler(0, 0.9, 1), seen::add);
        assertEquals(seen, java.util.Arrays.stream(generated).boxed().toList());
        var sequence = new ArrayList<Integer>();
        for (int token : prompt) sequence.add(token);
        for (int token : generated) {
            int expected = model.next(sequence.stream().mapToInt(Integer::intValue).toArray());
            assertEquals(expected, token, "after " + sequence);
            sequence.add(token);
        }
        assertTrue(generated.length == 10 || model.next(sequence.stream().mapToInt(Integer::intValue).toArray()) == Llama2Tokenizer.BOS);
        assertArrayEquals(generated, model.generate(prompt, 10, new Llama2Sampler(0, 0.9, 2), token -> {}));
    }

    /// As run.c clamps its steps to seq_len: no more can come than the context holds.
    @Test
    void generationStopsAtTheContextWhateverTheSteps() {
        var config = new Llama2Config(16, 32, 1, 2, 2, 20, 8, true);
        var model = new Llama2(checkpoint(config, 4));
        int[] prompt = {1, 5, 9};
        int[] generated = model.generate(prompt, Integer.MAX_VALUE, new Llama2Sampler(1, 0.9, 3), token -> {});
        assertTrue(generated.length <= config.seqLen() - prompt.length + 1, "generated " + generated.length);
        assertArrayEquals(generated, model.generate(prompt, 1000, new Llama2Sampler(1, 0.9, 3), token -> {}));
    }
}
