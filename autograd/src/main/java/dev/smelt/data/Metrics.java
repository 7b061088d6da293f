// SPDX-License-Identifier: Apache-2.0
package dev.smelt.data;

import dev.smelt.Tensor;
import dev.smelt.ir.SmeltException;

/// Classification metrics over concrete tensors, computed in Java after a forward pass.
public final class Metrics {
    private Metrics() {}

    /// The fraction of rows whose largest logit is at the label: logits `[N, C]` (any dtype),
    /// labels `i32 [N]` in `0…C-1`; ties go to the first largest, as `argmax`. 0 for no rows.
    public static double accuracy(Tensor logits, Tensor labels) {
        int[] predicted = predictions("accuracy", logits, labels), actual = labels.toIntArray();
        int correct = 0;
        for (int i = 0; i < actual.length; i++) if (predicted[i] == actual[i]) correct++;
        return actual.length == 0 ? 0 : (double) correct / actual.length;
    }

    /// Each row's predicted class, after checking logits `[N, C]` against labels `i32 [N]` in `0…C-1`.
    static int[] predictions(String op, Tensor logits, Tensor labels) {
        if (logits == null || labels == null) throw SmeltException.of(op, "the %s are null", logits == null ? "logits" : "labels");
        if (logits.isTraced() || labels.isTraced())
            throw SmeltException.of(op, "needs concrete tensors; inside a compiled function compare logits.argmax(1) with the labels instead");
        if (logits.rank() != 2 || labels.rank() != 1 || labels.dim(0) != logits.dim(0))
            throw SmeltException.of(op, "expected logits [N, C] and labels [N], got %s and %s", logits.shape(), labels.shape());
        if (labels.dtype().isFloating())
            throw SmeltException.of(op, "labels must be class indices (i32), not %s; convert them with .to(DType.I32)", labels.dtype());
        int classes = logits.dim(1);
        int[] actual = labels.toIntArray();
        for (int i = 0; i < actual.length; i++)
            if (actual[i] < 0 || actual[i] >= classes) throw SmeltException.of(op, "label %d of row %d is not a class of the %d logits (0…%d)", actual[i], i, classes, classes - 1);
        if (classes == 0 && actual.length > 0) throw SmeltException.of(op, "the logits %s have no classes", logits.shape());
        return actual.length == 0 ? new int[0] : logits.argmax(1).toIntArray();
    }
}
