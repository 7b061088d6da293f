// SPDX-License-Identifier: Apache-2.0
package dev.smelt.examples;

import dev.smelt.Generator;
import dev.smelt.Jit;
import dev.smelt.Tensor;
import dev.smelt.examples.support.Chart;
import dev.smelt.ir.DType;
import dev.smelt.nn.Activations;
import dev.smelt.nn.Linear;
import dev.smelt.nn.Sequential;
import dev.smelt.optim.Adam;
import java.nio.file.Path;
import java.util.ArrayList;

/// Trains an MLP (784-512-10, ReLU, cross-entropy, Adam) on generated data: ten classes, each a
/// random 784-pixel prototype, every sample its class's prototype faded into Gaussian noise. Each
/// training step (forward, backward and the Adam update of all four parameters) is one compiled
/// program. It reaches about 96% test accuracy in five epochs (10% is chance), showing a progress
/// bar per epoch, and writes the loss per step as an SVG curve (`target/loss-curve.svg`). Run:
/// `mvn -q -pl examples -am package exec:exec -DskipTests -Dexample=TrainMlp`.
public final class TrainMlp {
    private TrainMlp() {}

    static final int FEATURES = 784, CLASSES = 10, BATCH = 128, TRAIN = 2048, TEST = 1024, EPOCHS = 5;

    public static void main(String[] args) { train(EPOCHS, Path.of("target", "loss-curve.svg")); }

    /// Trains for `epochs` (the learning rate drops in the last) and writes the loss curve to `curve`.
    static void train(int epochs, Path curve) {
        var generator = new Generator(42);
        Tensor prototypes = Tensor.randn(generator, CLASSES, FEATURES);
        Tensor[] train = samples(generator, prototypes, TRAIN), test = samples(generator, prototypes, TEST);

        var model = new Sequential(new Linear(FEATURES, 512, generator), new Activations.ReLU(), new Linear(512, CLASSES, generator));
        var adam = new Adam(model.parameters(), 1e-3);
        var step = adam.compile((x, labels) -> model.forward(x).crossEntropy(labels));
        var predict = Jit.compile((Tensor x) -> model.forward(x).argmax(1));

        Tensor[][] batches = new Tensor[TRAIN / BATCH][];
        for (int b = 0; b < batches.length; b++)
            batches[b] = new Tensor[] {train[0].slice(0, b * BATCH, (b + 1) * BATCH).contiguous(), train[1].slice(0, b * BATCH, (b + 1) * BATCH).contiguous()};
        System.out.printf("MLP %d-512-%d, %d training samples, batch %d, Adam lr 1e-3; test accuracy before training: %.1f%%%n",
                FEATURES, CLASSES, TRAIN, BATCH, accuracy(predict, test));
        var losses = new ArrayList<Double>();
        for (int epoch = 1; epoch <= epochs; epoch++) {
            if (epoch == epochs && epochs > 1) adam.learningRate(3e-4); // a runtime scalar: no recompile
            double total = 0;
            long start = System.nanoTime();
            for (int b = 0; b < batches.length; b++) {
                double loss = step.apply(batches[b][0], batches[b][1]);
                losses.add(loss);
                total += loss;
                progress(epoch, b + 1, batches.length, loss);
            }
            double msPerStep = (System.nanoTime() - start) / 1e6 / batches.length;
            System.out.printf("\repoch %d: mean loss %.4f, test accuracy %.1f%%, %.2f ms per training step%s%n",
                    epoch, total / batches.length, accuracy(predict, test), msPerStep, " ".repeat(12));
        }
        System.out.printf("compiled training programs: %d (one per batch shape)%n", step.compiledSignatures());
        System.out.println("loss curve: " + new Chart("MLP %d-512-%d, Adam".formatted(FEATURES, CLASSES)).left("training loss", losses, batches.length).write(curve));
    }

    // epoch 2 [##########..........] 8/16  loss 0.4213
    private static void progress(int epoch, int done, int total, double loss) {
        int filled = 20 * done / total;
        System.out.printf("\repoch %d [%s%s] %d/%d  loss %.4f", epoch, "#".repeat(filled), ".".repeat(20 - filled), done, total, loss);
        System.out.flush();
    }

    /// `count` samples: features `0.15·prototype[class] + N(0, 1)` and their `i32` class labels.
    static Tensor[] samples(Generator generator, Tensor prototypes, int count) {
        int[] labels = new int[count];
        for (int i = 0; i < count; i++) labels[i] = (int) (Tensor.rand(generator, 1).item() * CLASSES);
        Tensor y = Tensor.of(labels);
        Tensor oneHot = y.reshape(count, 1).eq(Tensor.arange(CLASSES).reshape(1, CLASSES)).to(DType.F32);
        Tensor x = oneHot.matmul(prototypes).mul(0.15).add(Tensor.randn(generator, count, FEATURES));
        return new Tensor[] {x, y};
    }

    static double accuracy(dev.smelt.Compiled predict, Tensor[] data) {
        int[] predicted = predict.apply(data[0]).toIntArray(), labels = data[1].toIntArray();
        int correct = 0;
        for (int i = 0; i < labels.length; i++) if (predicted[i] == labels[i]) correct++;
        return 100.0 * correct / labels.length;
    }
}
