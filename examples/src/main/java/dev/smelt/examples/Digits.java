// SPDX-License-Identifier: Apache-2.0
package dev.smelt.examples;

import dev.smelt.Generator;
import dev.smelt.Jit;
import dev.smelt.Tensor;
import dev.smelt.data.Batch;
import dev.smelt.data.ConfusionMatrix;
import dev.smelt.data.Csv;
import dev.smelt.data.DataLoader;
import dev.smelt.data.Dataset;
import dev.smelt.data.Metrics;
import dev.smelt.ir.DType;
import dev.smelt.nn.Activations;
import dev.smelt.nn.Linear;
import dev.smelt.nn.Sequential;
import dev.smelt.optim.Adam;
import dev.smelt.optim.TrainStep;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.zip.GZIPOutputStream;

/// Issue 19's digits MLP written with the data layer, as the PyTorch script is: scikit-learn's 8×8
/// digits read from CSV, split 80/20, shuffled batches of 32 (the last one short, run by the same
/// compiled program), an MLP 64-128-10 trained with Adam for 30 epochs, then accuracy and a
/// confusion matrix on the test set. Reads `digits.csv.gz` where scikit-learn installs it, or the
/// path given as argument; without it, makes digits-like data (noisy class prototypes) and says so.
public final class Digits {
    private Digits() {}

    static final Path SCIKIT_LEARN = Path.of("/usr/lib/python3/dist-packages/sklearn/datasets/data/digits.csv.gz");

    public static void main(String[] args) {
        Path file = args.length > 0 ? Path.of(args[0]) : SCIKIT_LEARN;
        if (!Files.exists(file)) file = generated(file, Path.of("target", "generated-digits.csv.gz"));
        var generator = new Generator(0);
        Dataset digits = Csv.read(file, -1, false);
        Dataset.Split split = new Dataset(digits.features().div(16), digits.labels()).trainTestSplit(0.2, generator);
        var loader = new DataLoader(split.train(), 32, generator);

        var model = new Sequential(new Linear(64, 128, generator), new Activations.ReLU(), new Linear(128, 10, generator));
        var adam = new Adam(model.parameters(), 1e-3);
        TrainStep step = adam.compile((x, labels) -> model.forward(x).crossEntropy(labels)).dynamicBatch();
        System.out.printf("%s: %s%ntrain %d, test %d, %s%n%s%n%s%n", file, digits, split.train().size(), split.test().size(), loader, model, adam);
        for (int epoch = 1; epoch <= 30; epoch++) {
            double total = 0;
            for (Batch batch : loader) total += step.apply(batch.features(), batch.labels()) * batch.size();
            if (epoch % 10 == 0) System.out.printf("epoch %d: mean loss %.4f%n", epoch, total / split.train().size());
        }
        Tensor logits = Jit.compile(model::forward).apply(split.test().features());
        System.out.printf("test accuracy %.1f%%, compiled training programs: %d%n", 100 * Metrics.accuracy(logits, split.test().labels()), step.compiledSignatures());
        System.out.print(new ConfusionMatrix(10).add(logits, split.test().labels()));
    }

    /// In place of the `missing` file, 1,797 rows of 64 pixels in 0…16 and a label: each class a
    /// random prototype plus noise.
    static Path generated(Path missing, Path file) {
        System.out.println(missing + " is absent (apt-get install python3-sklearn brings scikit-learn's); training on generated digits instead");
        var generator = new Generator(1);
        double[] prototypes = Tensor.rand(generator, DType.F64, 10, 64).mul(16).toDoubleArray();
        var text = new StringBuilder();
        for (int row = 0; row < 1797; row++) {
            int label = row % 10;
            double[] noise = Tensor.randn(generator, DType.F64, 64).mul(4).toDoubleArray();
            for (int p = 0; p < 64; p++) text.append(Math.clamp(Math.round(prototypes[label * 64 + p] + noise[p]), 0, 16)).append(',');
            text.append(label).append('\n');
        }
        try (var out = new GZIPOutputStream(Files.newOutputStream(Files.createDirectories(file.toAbsolutePath().getParent()).resolve(file.getFileName())))) {
            out.write(text.toString().getBytes(java.nio.charset.StandardCharsets.US_ASCII));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return file;
    }
}
