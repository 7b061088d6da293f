// SPDX-License-Identifier: Apache-2.0
package dev.smelt.models.llama;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.smelt.ir.SmeltException;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

/// The sampler against llama2.c's `sample`: greedy takes the first maximum, draws follow run.c's
/// xorshift (its first five `random_f32` values for seed 42, printed by the C code, are 0.339085,
/// 0.782256, 0.790137, 0.944043, 0.764394), temperature sharpens or flattens, top-p keeps to the nucleus.
class Llama2SamplerTest {
    @Test
    void greedyTakesTheFirstMaximum() {
        assertEquals(1, new Llama2Sampler(0, 0.9, 1).sample(new float[] {0.5f, 2, 2, -1}));
    }

    @Test
    void drawsFollowLlama2csGenerator() {
        var sampler = new Llama2Sampler(1, 1, 42); // two equally likely tokens: a coin below 0.5 picks token 0
        int[] tokens = new int[5];
        for (int i = 0; i < tokens.length; i++) tokens[i] = sampler.sample(new float[] {0, 0});
        assertArrayEquals(new int[] {0, 1, 1, 1, 1}, tokens);
    }

    @Test
    void frequenciesFollowTheTemperedSoftmax() {
        float[] logits = {0, (float) Math.log(3)}; // probabilities 1/4 and 3/4 at temperature 1
        for (double temperature : new double[] {1, 2}) {
            var sampler = new Llama2Sampler(temperature, 1, 7);
            int ones = 0, draws = 20_000;
            for (int i = 0; i < draws; i++) ones += sampler.sample(logits);
            double p = 1 / (1 + Math.exp(-Math.log(3) / temperature)); // 0.75, then 1/(1+3^-1/2) ≈ 0.634
            assertEquals(p, ones / (double) draws, 4 * Math.sqrt(p * (1 - p) / draws), "temperature " + temperature);
        }
    }

    @Test
    void topPDrawsOnlyFromTheNucleus() {
        float[] logits = {3, 2.9f, 0, -1, -2, 1}; // the two largest hold about 83% of the mass
        var sampler = new Llama2Sampler(1, 0.8, 11);
        for (int i = 0; i < 2_000; i++) {
            int token = sampler.sample(logits);
            assertTrue(token == 0 || token == 1, "token " + token + " is outside the 0.8 nucleus");
        }
    }

    /// Inputs on which run.c reads before its arrays or returns the last token whatever the draw.
    @Test
    void degenerateLogitsStillGiveAToken() {
        for (double topP : new double[] {0.9, 1, 0}) {
            String settings = "top-p " + topP;
            assertEquals(0, new Llama2Sampler(1, topP, 5).sample(new float[] {3}), settings);
            assertEquals(1, new Llama2Sampler(1, topP, 5).sample(new float[] {1, Float.POSITIVE_INFINITY, 2}), settings);
            assertEquals(1, new Llama2Sampler(1e-310, topP, 5).sample(new float[] {0.5f, 2, 1}), settings); // logits / temperature overflow: greedy
            assertEquals(0, new Llama2Sampler(1e-310, topP, 5).sample(new float[] {-0.5f, -2, -1}), settings);
            float infinity = Float.POSITIVE_INFINITY;
            assertEquals(Set.of(0, 2), drawn(new Llama2Sampler(1, topP, 5), infinity, 0, infinity), settings + ": the infinite logits share the mass");
            assertEquals(Set.of(0, 1, 2), drawn(new Llama2Sampler(1, topP, 5), -infinity, -infinity, -infinity), settings + ": nothing finite, every token alike");
        }
        assertEquals(0, new Llama2Sampler(1, 0.01, 5).sample(new float[] {0, 0})); // llama2.c's cutoff 0.99 keeps neither; the nucleus is the first
    }

    private static Set<Integer> drawn(Llama2Sampler sampler, float... logits) {
        var tokens = new HashSet<Integer>();
        for (int i = 0; i < 200; i++) tokens.add(sampler.sample(logits));
        return tokens;
    }

    /// A model that produces NaN is broken; a token drawn from it would hide that.
    @Test
    void aNaNLogitIsAnError() {
        for (double temperature : new double[] {0, 1})
            for (double topP : new double[] {0.9, 1}) {
                var e = assertThrows(SmeltException.class, () -> new Llama2Sampler(temperature, topP, 5).sample(new float[] {1, Float.NaN, 2}));
                assertTrue(e.getMessage().contains("logit 1 is NaN"), e.getMessage());
            }
    }

    /// When rounding leaves the sum of the probabilities below the draw, the draw goes to the last
    /// token that can be drawn, not to the last token.
    @Test
    void aDrawPastTheSumTakesTheLastPossibleToken() {
        assertEquals(1, Llama2Sampler.fromDistribution(new double[] {0.5, 0.4999, 0, 0}, 0.99995));
    }

    @Test
    void badSettingsAreClearErrors() {
        assertThrows(SmeltException.class, () -> new Llama2Sampler(-1, 0.9, 1));
        assertThrows(SmeltException.class, () -> new Llama2Sampler(Double.NaN, 0.9, 1));
        assertThrows(SmeltException.class, () -> new Llama2Sampler(1, 0.9, 0));
        assertThrows(SmeltException.class, () -> new Llama2Sampler(1, 0.9, 1).sample(new float[0]));
    }
}
