// SPDX-License-Identifier: Apache-2.0
package dev.smelt.benchmarks;

import dev.smelt.Generator;
import dev.smelt.Jit;
import dev.smelt.Tensor;
import dev.smelt.nn.Activations;
import dev.smelt.nn.Linear;
import dev.smelt.nn.Sequential;
import dev.smelt.optim.Adam;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.zip.GZIPInputStream;

/// End to end, for `benchmarks/digits/run.sh` beside `digits.py` (the same run in PyTorch): 30 epochs
/// of an MLP 64-128-10 (ReLU, cross-entropy, Adam lr 1e-3, batch 32) on the first 1,437 of
/// scikit-learn's 1,797 8×8 digits after a fixed shuffle (row `(i·1103 + 7) mod 1797` comes `i`-th),
/// then the accuracy on the other 360. Pixels are scaled from 0–16 to 0–1. The last 29 training
/// images, short of a batch, are left out, as `drop_last=True` does in PyTorch. Run:
/// `java --add-modules jdk.incubator.vector -cp benchmarks/target/benchmarks.jar dev.smelt.benchmarks.Digits <digits.csv.gz>`.
public final class Digits {
    private Digits() {}

    static final int ROWS = 1797, TRAIN = 1437, PIXELS = 64, CLASSES = 10, HIDDEN = 128, BATCH = 32, EPOCHS = 30;

    public static void main(String[] args) throws IOException {
        float[][] pixels = new float[ROWS][];
        int[] labels = new int[ROWS];
        read(Path.of(args[0]), pixels, labels);
        int batches = TRAIN / BATCH;
        var x = new Tensor[batches];
        var y = new Tensor[batches];
        for (int b = 0; b < batches; b++) {
            x[b] = Tensor.of(rows(pixels, b * BATCH, BATCH), BATCH, PIXELS);
            y[b] = Tensor.of(java.util.Arrays.copyOfRange(labels, b * BATCH, (b + 1) * BATCH));
        }
        var generator = new Generator(0);
        var model = new Sequential(new Linear(PIXELS, HIDDEN, generator), new Activations.ReLU(), new Linear(HIDDEN, CLASSES, generator));
        var step = new Adam(model.parameters(), 1e-3).compile((input, target) -> model.forward(input).crossEntropy(target));
        double loss = 0;
        for (int epoch = 0; epoch < EPOCHS; epoch++) {
            loss = 0;
            for (int b = 0; b < batches; b++) loss += step.apply(x[b], y[b]);
        }
        int[] predicted = Jit.compile((Tensor input) -> model.forward(input).argmax(1))
                .apply(Tensor.of(rows(pixels, TRAIN, ROWS - TRAIN), ROWS - TRAIN, PIXELS)).toIntArray();
        int correct = 0;
        for (int i = 0; i < predicted.length; i++) if (predicted[i] == labels[TRAIN + i]) correct++;
        System.out.printf("smelt: last epoch mean loss %.4f, test accuracy %.1f%%%n", loss / batches, 100.0 * correct / predicted.length);
    }

    // Row (i·1103 + 7) mod 1797 of the file into slot i: 1103 and 1797 = 3·599 are coprime, so every row lands once.
    private static void read(Path file, float[][] pixels, int[] labels) throws IOException {
        try (var reader = new BufferedReader(new InputStreamReader(new GZIPInputStream(Files.newInputStream(file))))) {
            int[] slotOf = new int[ROWS];
            for (int i = 0; i < ROWS; i++) slotOf[(i * 1103 + 7) % ROWS] = i;
            for (int row = 0; row < ROWS; row++) {
                String[] fields = reader.readLine().split(",");
                float[] values = new float[PIXELS];
                for (int p = 0; p < PIXELS; p++) values[p] = Integer.parseInt(fields[p]) / 16f;
                pixels[slotOf[row]] = values;
                labels[slotOf[row]] = Integer.parseInt(fields[PIXELS]);
            }
        }
    }

    private static float[] rows(float[][] pixels, int from, int count) {
        float[] flat = new float[count * PIXELS];
        for (int r = 0; r < count; r++) System.arraycopy(pixels[from + r], 0, flat, r * PIXELS, PIXELS);
        return flat;
    }
}
