// SPDX-License-Identifier: Apache-2.0
package dev.smelt.benchmarks;

import dev.smelt.Generator;
import dev.smelt.Tensor;
import dev.smelt.models.gpt.Gpt;
import dev.smelt.optim.Adam;
import java.util.Random;

/// The first training step of a fresh JVM, run by [ColdStart]: [GptStepBench]'s model (a GPT-2-style
/// model of 4 blocks of width 256, 128 tokens, batch 8) and its AdamW step. `firstStep` is the first
/// call, compile included (tracing, autograd, planning the 2,326-node graph, generating its kernels)
/// and its run, mostly in code the JIT has not compiled yet; `secondStep` the next call, which
/// compiles nothing. `setup` builds the model and its random weights.
public final class FirstGptStep {
    private FirstGptStep() {}

    public static void main(String[] args) {
        long start = System.nanoTime();
        var model = new Gpt(new Gpt.Config(4096, 128, 256, 4, 4), new Generator(1));
        var optimizer = Adam.adamW(model.parameters(), 3e-4, 0.01);
        var step = optimizer.compile((a, b) -> model.loss(a, b));
        var random = new Random(2);
        int[] tokens = new int[8 * 128], targets = new int[8 * 128];
        for (int i = 0; i < tokens.length; i++) {
            tokens[i] = random.nextInt(4096);
            targets[i] = random.nextInt(4096);
        }
        Tensor x = Tensor.of(tokens).reshape(8, 128), y = Tensor.of(targets).reshape(8, 128);
        long ready = System.nanoTime();
        double first = step.apply(x, y);
        long firstDone = System.nanoTime();
        double second = step.apply(x, y);
        long secondDone = System.nanoTime();
        if (!Double.isFinite(first) || !Double.isFinite(second)) throw new AssertionError("loss " + first + ", then " + second);
        System.out.printf("setup=%.1f firstStep=%.1f secondStep=%.1f%n", (ready - start) / 1e6, (firstDone - ready) / 1e6, (secondDone - firstDone) / 1e6);
    }
}
