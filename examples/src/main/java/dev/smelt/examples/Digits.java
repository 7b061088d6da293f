// SPDX-License-Identifier: Apache-2.0
package dev.smelt.examples;

import dev.smelt.Compiled;
import dev.smelt.Generator;
import dev.smelt.Jit;
import dev.smelt.SafeTensors;
import dev.smelt.Tensor;
import dev.smelt.data.Batch;
import dev.smelt.data.ConfusionMatrix;
import dev.smelt.data.Csv;
import dev.smelt.data.DataLoader;
import dev.smelt.data.Dataset;
import dev.smelt.data.Metrics;
import dev.smelt.examples.support.Chart;
import dev.smelt.nn.Activations;
import dev.smelt.nn.Linear;
import dev.smelt.nn.Sequential;
import dev.smelt.optim.Adam;
import dev.smelt.optim.TrainStep;
import java.nio.file.Path;
import java.util.ArrayList;

/// Issue 19's digits MLP, written as its PyTorch script is: the UCI handwritten digits shipped in
/// `examples/data` (or the CSV given as argument) read, scaled and split 80/20, shuffled batches of
/// 32 (the short last one run by the same compiled program), an MLP 64-128-10 trained with Adam for
/// 30 epochs while the test accuracy is tracked, the weights saved as safetensors and loaded into a
/// fresh model, which is evaluated; the loss and accuracy curves go to `target/digits.svg`.
public final class Digits {
    private Digits() {}

    public static void main(String[] args) {
        Path data = Path.of(args.length > 0 ? args[0] : "data/digits.csv.gz"), weights = Path.of("target", "digits.safetensors");
        var generator = new Generator(0);
        Dataset digits = Csv.read(data, -1, false);
        Dataset.Split split = new Dataset(digits.features().div(16), digits.labels()).trainTestSplit(0.2, generator);
        var loader = new DataLoader(split.train(), 32, generator);
        Tensor testImages = split.test().features(), testLabels = split.test().labels();

        Sequential model = mlp(generator);
        var adam = new Adam(model.parameters(), 1e-3);
        TrainStep step = adam.compile((x, labels) -> model.forward(x).crossEntropy(labels)).dynamicBatch();
        Compiled predict = Jit.compile(model::forward);
        System.out.printf("%s%n%s%n%s%n", digits, model, adam);
        var losses = new ArrayList<Double>();
        var accuracies = new ArrayList<Double>();
        for (int epoch = 1; epoch <= 30; epoch++) {
            for (Batch batch : loader) losses.add(step.apply(batch.features(), batch.labels()));
            accuracies.add(Metrics.accuracy(predict.apply(testImages), testLabels));
            if (epoch % 10 == 0) System.out.printf("epoch %d: loss %.4f, test accuracy %.1f%%%n", epoch, losses.getLast(), 100 * accuracies.getLast());
        }
        SafeTensors.save(weights, model.stateDict());

        Sequential restored = mlp(new Generator(1));
        restored.loadStateDict(SafeTensors.load(weights));
        Tensor logits = Jit.compile(restored::forward).apply(testImages);
        System.out.printf("reloaded from %s: test accuracy %.1f%%, training programs compiled: %d%n", weights,
                100 * Metrics.accuracy(logits, testLabels), step.compiledSignatures());
        System.out.print(new ConfusionMatrix(10).add(logits, testLabels));
        Path chart = new Chart("Digits, MLP 64-128-10, Adam").left("training loss", losses, loader.batches())
                .right("test accuracy", accuracies, 1).write(Path.of("target", "digits.svg"));
        System.out.println("loss and accuracy: " + chart);
    }

    static Sequential mlp(Generator generator) {
        return new Sequential(new Linear(64, 128, generator), new Activations.ReLU(), new Linear(128, 10, generator));
    }
}
