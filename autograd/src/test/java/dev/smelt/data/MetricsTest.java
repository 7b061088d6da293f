// SPDX-License-Identifier: Apache-2.0
package dev.smelt.data;

import static dev.smelt.data.DatasetTest.assertMessage;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.smelt.Jit;
import dev.smelt.Tensor;
import org.junit.jupiter.api.Test;

/// Accuracy and the confusion matrix against counts made by hand.
class MetricsTest {
    // Rows predict 0, 2, 1, 1 (the first of two equal maxima in the last row, as argmax).
    private static final Tensor LOGITS = Tensor.of(new float[] {3, 1, 0, 0, 1, 5, 0.5f, 2, 1, 0, 4, 4}, 4, 3);
    private static final Tensor LABELS = Tensor.of(new int[] {0, 2, 2, 1});

    @Test
    void accuracyIsTheShareOfRowsWhoseArgmaxIsTheLabel() {
        assertEquals(0.75, Metrics.accuracy(LOGITS, LABELS));
        assertEquals(0, Metrics.accuracy(Tensor.zeros(0, 3), Tensor.zeros(dev.smelt.ir.DType.I32, 0)));
    }

    @Test
    void theConfusionMatrixAddsUpBatchesAndPrintsAsATable() {
        var matrix = new ConfusionMatrix(3).add(LOGITS, LABELS).add(LOGITS.slice(0, 0, 2), LABELS.slice(0, 0, 2));
        assertEquals(6, matrix.total());
        assertEquals(2, matrix.count(0, 0));
        assertEquals(1, matrix.count(2, 1));
        assertEquals(5 / 6.0, matrix.accuracy(), 1e-15);
        assertArrayEquals(new int[] {2, 0, 0, 0, 1, 0, 0, 1, 2}, matrix.toTensor().toIntArray());
        assertEquals("""
                confusion matrix: 6 samples, accuracy 83.3% (rows: actual class, columns: predicted)
                    0 1 2
                  0 2 0 0
                  1 0 1 0
                  2 0 1 2
                """, matrix.toString());
        var wide = new ConfusionMatrix(12);
        for (int i = 0; i < 10; i++) wide.add(Tensor.of(new float[] {0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}, 1, 12), Tensor.of(new int[] {11}));
        String[] lines = wide.toString().split("\n");
        assertEquals("      0  1  2  3  4  5  6  7  8  9 10 11", lines[1]);
        assertEquals("  11  0 10  0  0  0  0  0  0  0  0  0  0", lines[13]);
    }

    @Test
    void mismatchedShapesLabelsAndTracedTensorsAreRefused() {
        assertMessage(() -> Metrics.accuracy(LOGITS, LABELS.slice(0, 0, 3)), "accuracy: expected logits [N, C] and labels [N], got [4,3] and [3]");
        assertMessage(() -> Metrics.accuracy(LOGITS, LABELS.to(dev.smelt.ir.DType.F32)), "labels must be class indices (i32), not f32");
        assertMessage(() -> Metrics.accuracy(LOGITS, Tensor.of(new int[] {0, 3, 0, 0})), "label 3 of row 1 is not a class of the 3 logits (0…2)");
        assertMessage(() -> Metrics.accuracy(null, LABELS), "the logits are null");
        assertMessage(() -> Jit.trace(x -> Tensor.scalar(Metrics.accuracy(x, LABELS)), LOGITS), "needs concrete tensors");
        assertMessage(() -> new ConfusionMatrix(2).add(LOGITS, LABELS), "the logits [4,3] have 3 classes, but the matrix has 2");
        assertMessage(() -> new ConfusionMatrix(0), "the number of classes must be positive");
        assertMessage(() -> new ConfusionMatrix(2).count(2, 0), "classes run from 0 to 1, got (2, 0)");
    }
}
