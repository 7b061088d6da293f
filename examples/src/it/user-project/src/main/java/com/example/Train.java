// SPDX-License-Identifier: Apache-2.0
package com.example;

import dev.smelt.Generator;
import dev.smelt.Jit;
import dev.smelt.Tensor;
import dev.smelt.data.Batch;
import dev.smelt.data.Csv;
import dev.smelt.data.DataLoader;
import dev.smelt.data.Dataset;
import dev.smelt.data.Metrics;
import dev.smelt.nn.Activations;
import dev.smelt.nn.Linear;
import dev.smelt.nn.Sequential;
import dev.smelt.optim.Adam;
import dev.smelt.optim.TrainStep;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/// A user's program: writes a CSV of three separable classes, reads it back, trains a small MLP
/// with shuffled batches (the last one short) and prints the test accuracy; exits non-zero below 90%.
public final class Train {
    private Train() {}

    public static void main(String[] args) throws IOException {
        double accuracy = train(Files.createTempFile("points", ".csv"));
        System.out.printf("test accuracy %.1f%%%n", 100 * accuracy);
        if (accuracy < 0.9) System.exit(1);
    }

    /// Trains on 250 generated points written to `file`; returns the test accuracy.
    public static double train(Path file) throws IOException {
        var generator = new Generator(0);
        var text = new StringBuilder("x,y,class\n");
        double[] noise = Tensor.randn(generator, 500).mul(0.3).toDoubleArray();
        for (int i = 0; i < 250; i++) text.append(i % 3 * 2 + noise[2 * i]).append(',').append(i % 3 - 1 + noise[2 * i + 1]).append(',').append(i % 3).append('\n');
        Files.writeString(file, text);

        Dataset.Split split = Csv.read(file, -1, true).trainTestSplit(0.2, generator);
        var model = new Sequential(new Linear(2, 16, generator), new Activations.ReLU(), new Linear(16, 3, generator));
        TrainStep step = new Adam(model.parameters(), 0.05).compile((x, y) -> model.forward(x).crossEntropy(y)).dynamicBatch();
        for (int epoch = 0; epoch < 20; epoch++)
            for (Batch batch : new DataLoader(split.train(), 32, generator)) step.apply(batch.features(), batch.labels());
        if (step.compiledSignatures() != 1) throw new AssertionError("batches of 32 and 8 should share one program: " + step);
        return Metrics.accuracy(Jit.compile(model::forward).apply(split.test().features()), split.test().labels());
    }
}
