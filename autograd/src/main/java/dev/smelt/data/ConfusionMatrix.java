// SPDX-License-Identifier: Apache-2.0
package dev.smelt.data;

import dev.smelt.Tensor;
import dev.smelt.ir.SmeltException;

/// Counts of (actual class, predicted class) pairs, accumulated over batches with [#add]: row
/// `actual`, column `predicted`, as scikit-learn's `confusion_matrix`. Not thread-safe.
public final class ConfusionMatrix {
    private final int[][] counts;

    /// An empty matrix over `classes` classes.
    public ConfusionMatrix(int classes) {
        if (classes <= 0) throw SmeltException.of("ConfusionMatrix", "the number of classes must be positive, got %d", classes);
        counts = new int[classes][classes];
    }

    /// Counts one batch: logits `[N, C]` (their argmax is the prediction) against labels `i32 [N]`.
    public ConfusionMatrix add(Tensor logits, Tensor labels) {
        if (logits != null && logits.rank() == 2 && logits.dim(1) != classes())
            throw SmeltException.of("ConfusionMatrix.add", "the logits %s have %d classes, but the matrix has %d", logits.shape(), logits.dim(1), classes());
        int[] predicted = Metrics.predictions("ConfusionMatrix.add", logits, labels), actual = labels.toIntArray();
        for (int i = 0; i < actual.length; i++) counts[actual[i]][predicted[i]]++;
        return this;
    }

    /// The number of classes `C`.
    public int classes() { return counts.length; }

    /// How many samples of class `actual` were predicted as `predicted`.
    public int count(int actual, int predicted) {
        if (actual < 0 || actual >= classes() || predicted < 0 || predicted >= classes())
            throw SmeltException.of("ConfusionMatrix.count", "classes run from 0 to %d, got (%d, %d)", classes() - 1, actual, predicted);
        return counts[actual][predicted];
    }

    /// The samples counted so far.
    public int total() {
        int total = 0;
        for (int[] row : counts) for (int count : row) total += count;
        return total;
    }

    /// The fraction on the diagonal; 0 before any sample.
    public double accuracy() {
        int correct = 0;
        for (int c = 0; c < classes(); c++) correct += counts[c][c];
        return total() == 0 ? 0 : (double) correct / total();
    }

    /// The counts as an `i32 [C, C]` tensor, rows actual, columns predicted.
    public Tensor toTensor() {
        int[] flat = new int[classes() * classes()];
        for (int a = 0; a < classes(); a++) System.arraycopy(counts[a], 0, flat, a * classes(), classes());
        return Tensor.of(flat, classes(), classes());
    }

    /// A table, rows actual and columns predicted, under a line with the totals:
    /// ```
    /// confusion matrix: 10 samples, accuracy 70.0% (rows: actual class, columns: predicted)
    ///      0  1  2
    ///   0  3  0  1
    ///   1  0  2  0
    ///   2  1  1  2
    /// ```
    @Override
    public String toString() {
        int width = String.valueOf(Math.max(classes() - 1, 0)).length();
        for (int[] row : counts) for (int count : row) width = Math.max(width, String.valueOf(count).length());
        var text = new StringBuilder(String.format(java.util.Locale.ROOT,
                "confusion matrix: %d samples, accuracy %.1f%% (rows: actual class, columns: predicted)\n", total(), 100 * accuracy()));
        String cell = " %" + width + "d", label = "  %" + width + "d";
        text.append(" ".repeat(2 + width));
        for (int p = 0; p < classes(); p++) text.append(cell.formatted(p));
        for (int a = 0; a < classes(); a++) {
            text.append('\n').append(label.formatted(a));
            for (int p = 0; p < classes(); p++) text.append(cell.formatted(counts[a][p]));
        }
        return text.append('\n').toString();
    }
}
