// SPDX-License-Identifier: Apache-2.0
package dev.smelt.data;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.smelt.Generator;
import dev.smelt.Jit;
import dev.smelt.Tensor;
import dev.smelt.ir.DType;
import dev.smelt.ir.SmeltException;
import java.util.Arrays;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/// Data sets: rows by index, slices, and train/test splits that are reproducible, disjoint and complete.
class DatasetTest {
    /// Sample `i` has features `[i, 10i, 100i]` (f64) and label `i` (i32), so every row shows where it came from.
    static Dataset numbered(int n) {
        double[] features = new double[3 * n];
        for (int i = 0; i < n; i++) for (int j = 0; j < 3; j++) features[3 * i + j] = i * Math.pow(10, j);
        return new Dataset(Tensor.of(features, n, 3), Tensor.arange(n));
    }

    @Test
    void rowsAndSlicesCopyTheChosenSamples() {
        Dataset data = numbered(10);
        Dataset picked = data.rows(7, 0, -1, 7);
        assertArrayEquals(new int[] {7, 0, 9, 7}, picked.labels().toIntArray());
        assertArrayEquals(new double[] {7, 70, 700, 0, 0, 0, 9, 90, 900, 7, 70, 700}, picked.features().toDoubleArray());
        assertEquals(DType.F64, picked.features().dtype());
        assertArrayEquals(new int[] {3, 4}, data.slice(3, 5).labels().toIntArray());
        assertEquals(0, data.slice(4, 4).size());
        assertEquals("Dataset(N=10, features=f64[10,3], labels=i32[10])", data.toString());
    }

    @Test
    void labelsMayHaveAnyRankAndDtype() {
        var data = new Dataset(Tensor.zeros(4, 2, 2), Tensor.of(new boolean[] {true, false, true, true}));
        assertArrayEquals(new boolean[] {true, true}, data.rows(2, 3).labels().toBooleanArray());
        assertArrayEquals(new int[] {2, 2, 2}, data.rows(0, 1).features().shape().toArray());
    }

    @Test
    void trainTestSplitIsReproducibleDisjointAndComplete() {
        Dataset data = numbered(101);
        Dataset.Split split = data.trainTestSplit(0.2, new Generator(5));
        assertEquals(21, split.test().size(), "⌈0.2 · 101⌉, as scikit-learn");
        assertEquals(80, split.train().size());
        int[] all = IntStream.concat(Arrays.stream(split.train().labels().toIntArray()), Arrays.stream(split.test().labels().toIntArray())).sorted().toArray();
        assertArrayEquals(IntStream.range(0, 101).toArray(), all);
        assertArrayEquals(split.test().labels().toIntArray(), data.trainTestSplit(0.2, new Generator(5)).test().labels().toIntArray());
        double[] features = split.train().features().toDoubleArray();
        int[] labels = split.train().labels().toIntArray();
        for (int i = 0; i < labels.length; i++) assertEquals(100.0 * labels[i], features[3 * i + 2], "features stay with their label");
        Dataset.Split counted = data.trainTestSplit(30, new Generator(5));
        assertEquals(30, counted.test().size());
        assertEquals(71, counted.train().size());
    }

    @Test
    void badInputIsRefused() {
        Dataset data = numbered(5);
        assertMessage(() -> new Dataset(Tensor.zeros(3, 2), Tensor.zeros(4)), "Dataset: features [3,2] and labels [4] must have the same number of rows");
        assertMessage(() -> new Dataset(Tensor.zeros(3, 2), null), "the labels tensor is null");
        assertMessage(() -> new Dataset(Tensor.scalar(1), Tensor.zeros(1)), "rank ≥ 1");
        assertMessage(() -> Jit.trace(x -> { new Dataset(x, x); return x; }, Tensor.zeros(2)), "must be a concrete tensor");
        assertMessage(() -> data.rows(5), "Dataset.rows: index 5 is out of range for 5 samples");
        assertMessage(() -> data.slice(2, 6), "rows 2…6 are not within the 5 samples");
        assertMessage(() -> data.trainTestSplit(1.0, new Generator(0)), "between 0 and 1");
        assertMessage(() -> data.trainTestSplit(6, new Generator(0)), "the test set must have 0…5 samples, got 6");
        assertMessage(() -> data.trainTestSplit(0.5, null), "the generator is null");
    }

    static void assertMessage(Runnable call, String expected) {
        var e = assertThrows(SmeltException.class, call::run);
        assertTrue(e.getMessage().contains(expected), e.getMessage());
    }
}
