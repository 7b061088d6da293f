// SPDX-License-Identifier: Apache-2.0
package dev.smelt.models.llama;

import dev.smelt.ir.SmeltException;
import java.util.Arrays;

/// Picks the next token from a position's logits as llama2.c's `sample` does: greedy (the argmax,
/// the first of equal maxima) at temperature 0; otherwise softmax of `logits / temperature`, then,
/// with `0 < topP < 1`, nucleus sampling from the smallest set of most likely tokens whose
/// probabilities add up past `topP`. Draws come from llama2.c's xorshift generator seeded with
/// `seed`, so a run with the same seed samples the same tokens as `run.c` given equal logits.
/// Where run.c's arithmetic breaks down, the softmax is its limit: when the largest logit is
/// infinite (a `+inf` logit, every logit `-inf`) or so large against the temperature that the
/// quotient overflows, the tokens at the largest logit share the mass, so a tiny temperature samples
/// greedily. A NaN logit is a [SmeltException]: the model is broken, and a token would hide it.
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
        int best = argmax(logits);
        if (temperature == 0) return best;
        double[] probabilities = softmax(logits, logits[best], temperature);
        double coin = randomFloat();
        return topP <= 0 || topP >= 1 ? fromDistribution(probabilities, coin) : fromNucleus(probabilities, topP, coin);
    }

    // The first largest logit, in the one pass that also refuses a NaN.
    private static int argmax(float[] values) {
        int best = 0;
        for (int i = 0; i < values.length; i++) {
            if (Float.isNaN(values[i])) throw SmeltException.of("Llama2Sampler.sample", "logit %d is NaN (of %d); the model produced it", i, values.length);
            if (values[i] > values[best]) best = i;
        }
        return best;
    }

    // exp(logit / temperature - max), normalised. Where max is infinite, exp(∞ - ∞) is NaN and the
    // limit stands in: the tokens at the largest logit share the mass. A logit below it by d would
    // get exp(-d / temperature) of a share, and d / temperature overflows too (d is an ulp or more).
    private static double[] softmax(float[] logits, float largest, double temperature) {
        double max = largest / temperature, sum = 0;
        boolean limit = Double.isInfinite(max);
        double[] probabilities = new double[logits.length];
        for (int i = 0; i < logits.length; i++)
            sum += probabilities[i] = limit ? (logits[i] == largest ? 1 : 0) : Math.exp(logits[i] / temperature - max);
        for (int i = 0; i < logits.length; i++) probabilities[i] /= sum;
        return probabilities;
    }

    static int fromDistribution(double[] probabilities, double coin) {
        double cumulative = 0;
        int last = 0;
        for (int i = 0; i < probabilities.length; i++) {
            if (probabilities[i] == 0) continue;
            last = i;
            if (coin < (cumulative += probabilities[i])) return i;
        }
        return last; // rounding left the sum short of the coin: the last token that can be drawn
    }

    // llama2.c's sample_topp: tokens below (1 - topP) / (n - 1) cannot be in the nucleus, so only
    // the others are sorted, by descending probability (ties by index, as a stable sort leaves them).
    // That bound can exceed the largest probability (one token, or a flat distribution under a
    // small topP), where run.c reads before its array: the most likely token always stays.
    private static int fromNucleus(double[] probabilities, double topP, double coin) {
        double cutoff = Math.min((1 - topP) / (probabilities.length - 1), Arrays.stream(probabilities).max().getAsDouble());
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
