// SPDX-License-Identifier: Apache-2.0
package dev.smelt.benchmarks;

import dev.smelt.Generator;
import dev.smelt.Tensor;
import dev.smelt.nn.Activations;
import dev.smelt.nn.Linear;
import dev.smelt.nn.Sequential;
import dev.smelt.optim.Adam;
import dev.smelt.optim.TrainStep;

/// The first training steps of a fresh JVM against steady ones, run by [ColdStart]: an MLP
/// 784-512-10 (ReLU, cross-entropy) at batch 128 with Adam, as `TrainMlp` trains it. Prints
/// `compile=<ms>` (trace, backward, fusion and code generation; `compileCpu`, the calling thread's
/// CPU time for it), `firstStep=<ms>` (that and the first step), `first100=<ms>` (the first 100
/// steps), `steady100=<ms>` (the median of the last 5 of 20 blocks of 100 steps that follow, or of
/// the count given as the argument) and their ratio (target: ≤ 3).
public final class FirstSteps {
    private FirstSteps() {}

    static final int BATCH = 128, BLOCK = 100, BLOCKS = 20, BATCHES = 8;

    public static void main(String[] args) {
        var generator = new Generator(7);
        var batches = new Tensor[BATCHES][];
        for (int b = 0; b < BATCHES; b++) {
            int[] labels = new int[BATCH];
            for (int i = 0; i < BATCH; i++) labels[i] = (i * 7 + b) % 10;
            batches[b] = new Tensor[] {Tensor.randn(generator, BATCH, 784), Tensor.of(labels)};
        }
        var model = new Sequential(new Linear(784, 512, generator), new Activations.ReLU(), new Linear(512, 10, generator));
        var adam = new Adam(model.parameters(), 1e-3);
        var threads = java.lang.management.ManagementFactory.getThreadMXBean();
        long[] sched = FirstCall.schedstat();
        long threadCpu = threads.getCurrentThreadCpuTime(), start = System.nanoTime();
        TrainStep step = adam.compile((x, labels) -> model.forward(x).crossEntropy(labels));
        step.explain(batches[0][0], batches[0][1]); // compiles without taking a step
        long compiled = System.nanoTime();
        double compile = (compiled - start) / 1e6, compileCpu = (threads.getCurrentThreadCpuTime() - threadCpu) / 1e6;
        String waits = FirstCall.waits(sched, compiled - start);
        step.apply(batches[0][0], batches[0][1]);
        double firstStep = (System.nanoTime() - start) / 1e6;
        double first = steps(step, batches, 1, BLOCK - 1, start);
        int blockCount = args.length > 0 ? Integer.parseInt(args[0]) : BLOCKS; // fewer for a quick look at the start alone
        double[] blocks = new double[blockCount];
        for (int b = 0; b < blockCount; b++) blocks[b] = steps(step, batches, (b + 1) * BLOCK, BLOCK, System.nanoTime());
        java.util.Arrays.sort(blocks, Math.max(0, blockCount - 5), blockCount);
        double steady = blocks[Math.max(0, blockCount - 5) + Math.min(5, blockCount) / 2];
        System.out.printf("compile=%.1f compileCpu=%.1f %s firstStep=%.1f first100=%.1f steady100=%.1f ratio=%.2f%n", compile, compileCpu, waits, firstStep, first,
                steady, first / steady);
    }

    // Milliseconds from `start` to the end of `count` steps, the first of them step number `from`.
    private static double steps(TrainStep step, Tensor[][] batches, int from, int count, long start) {
        double loss = 0;
        for (int s = from; s < from + count; s++) loss += step.apply(batches[s % BATCHES][0], batches[s % BATCHES][1]);
        if (!(loss > 0)) throw new AssertionError("loss " + loss);
        return (System.nanoTime() - start) / 1e6;
    }
}
