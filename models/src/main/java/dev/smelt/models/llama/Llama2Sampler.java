// SPDX-License-Identifier: Apache-2.0
package dev.smelt.models.llama;

import dev.smelt.ir.SmeltException;
import java.util.Arrays;

/// Picks the next token from a position's logits as llama2.c's `sample` does: greedy (the argmax,
/// the first of equal maxima) at temperature 0; otherwise softmax of `logits / temperature`, then,
/// with `0 < topP < 1`, nucleus sampling from the smallest set of most likely tokens whose
/// probabilities add up past `topP`. Draws come from llama2.c's xorshift generator seeded with
/// `seed`, so a run with the same seed samples the same tokens as `run.c` given equal logits.
/// Runs in plain Java on the host, as llama2.c does: over 32,000 logits it costs microseconds
/// beside the model's milliseconds. Not thread-safe (it advances its generator).
public final class Llama2Sampler {
    private final double temperature, topP;
    private long state;

    /// A sampler at `temperature` (0: greedy) and nucleus `topP` (1 or more, or 0 or less: off).
    public Llama2Sampler(double temperature, double topP, long seed) {
        if (!(temperature >= 0) || Double.isInfinite(temperature) || Double.isNaN(topP))
            throw SmeltException.of("Llama2Sampler", "temperature %s must be finite and ≥ 0, topP %s a number", temperature, topP);
        if (seed == 0) throw SmeltException.of("Llama2Sampler", "the seed must not be 0 (xorshift stays at 0)");
        this.temperature = temperature;
        this.topP = topP;
        this.state = seed;
    }

    /// The next token for `logits` (one position's, over the vocabulary).
    public int sample(float[] logits) {
        if (logits == null || logits.length == 0) throw SmeltException.of("Llama2Sampler.sample", "no logits");
        if (temperature == 0) return argmax(logits);
        double[] probabilities = softmax(logits, temperature);
        double coin = randomFloat();
        return topP <= 0 || topP >= 1 ? fromDistribution(probabilities, coin) : fromNucleus(probabilities, topP, coin);
    }

    static int argmax(float[] values) {
        int best = 0;
        for (int i = 1; i < values.length; i++) if (values[i] > values[best]) best = i;
        return best;
    }

    private static double[] softmax(float[] logits, double temperature) {
        double max = Double.NEGATIVE_INFINITY, sum = 0;
        for (float logit : logits) max = Math.max(max, logit / temperature);
        double[] probabilities = new double[logits.length];
        for (int i = 0; i < logits.length; i++) sum += probabilities[i] = Math.exp(logits[i] / temperature - max);
        for (int i = 0; i < logits.length; i++) probabilities[i] /= sum;
        return probabilities;
    }

    private static int fromDistribution(double[] probabilities, double coin) {
        double cumulative = 0;
        for (int i = 0; i < probabilities.length; i++) if (coin < (cumulative += probabilities[i])) return i;
        return probabilities.length - 1; // rounding left the sum short of the coin
    }

    // llama2.c's sample_topp: tokens below (1 - topP) / (n - 1) cannot be in the nucleus, so only
    // the others are sorted, by descending probability (ties by index, as a stable sort leaves them).
    private static int fromNucleus(double[] probabilities, double topP, double coin) {
        double cutoff = (1 - topP) / (probabilities.length - 1);
        Integer[] candidates = java.util.stream.IntStream.range(0, probabilities.length).filter(i -> probabilities[i] >= cutoff).boxed().toArray(Integer[]::new);
        Arrays.sort(candidates, (a, b) -> Double.compare(probabilities[b], probabilities[a]));
        int last = candidates.length - 1;
        double cumulative = 0;
        for (int i = 0; i < candidates.length; i++) {
            cumulative += probabilities[candidates[i]];
            if (cumulative > topP) {
                last = i;
                break;
            }
        }
        double r = coin * cumulative, running = 0;
        for (int i = 0; i <= last; i++) if (r < (running += probabilities[candidates[i]])) return candidates[i];
        return candidates[last];
    }

    // llama2.c's random_u32 and random_f32: xorshift*, the top 24 bits as a float in [0, 1).
    private double randomFloat() {
        state ^= state >>> 12;
        state ^= state << 25;
        state ^= state >>> 27;
        int bits = (int) ((state * 0x2545F4914F6CDD1DL) >>> 32);
        return (bits >>> 8) / 16777216.0f;
    }
}
