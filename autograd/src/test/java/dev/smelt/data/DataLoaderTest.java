// SPDX-License-Identifier: Apache-2.0
package dev.smelt.data;

import static dev.smelt.data.DatasetTest.assertMessage;
import static dev.smelt.data.DatasetTest.numbered;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.smelt.Generator;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/// Loaders: batch sizes with and without the short last batch, the order in and out of shuffling,
/// every sample once per epoch, a new order each epoch, the same orders from the same seed.
class DataLoaderTest {
    /// Each batch's labels, for one epoch.
    private static List<int[]> epoch(DataLoader loader) {
        var labels = new ArrayList<int[]>();
        for (Batch batch : loader) {
            assertEquals(batch.size(), batch.labels().dim(0));
            double[] features = batch.features().toDoubleArray();
            int[] y = batch.labels().toIntArray();
            for (int i = 0; i < y.length; i++) assertEquals(10.0 * y[i], features[3 * i + 1], "features stay with their label");
            labels.add(y);
        }
        return labels;
    }

    @Test
    void batchesInOrderEndWithTheShortBatchUnlessDropped() {
        for (int n : new int[] {1, 31, 32, 33, 100}) {
            var loader = new DataLoader(numbered(n), 32);
            List<int[]> batches = epoch(loader);
            assertEquals((n + 31) / 32, loader.batches());
            assertEquals(loader.batches(), batches.size());
            assertArrayEquals(IntStream.range(0, n).toArray(), batches.stream().flatMapToInt(Arrays::stream).toArray(), "n = " + n);
            assertEquals(n % 32 == 0 ? 32 : n % 32, batches.getLast().length);
            List<int[]> dropped = epoch(loader.dropLast());
            assertEquals(n / 32, dropped.size(), "n = " + n);
            assertEquals(n / 32, loader.dropLast().batches());
            dropped.forEach(batch -> assertEquals(32, batch.length));
        }
    }

    @Test
    void shufflingGivesEverySampleOncePerEpochInANewOrderReproducibly() {
        var loader = new DataLoader(numbered(45), 8, new Generator(9));
        var again = new DataLoader(numbered(45), 8, new Generator(9));
        int[] first = epoch(loader).stream().flatMapToInt(Arrays::stream).toArray();
        int[] second = epoch(loader).stream().flatMapToInt(Arrays::stream).toArray();
        assertArrayEquals(IntStream.range(0, 45).toArray(), Arrays.stream(first).sorted().toArray());
        assertArrayEquals(IntStream.range(0, 45).toArray(), Arrays.stream(second).sorted().toArray());
        assertFalse(Arrays.equals(first, second), "each epoch draws a new order");
        assertFalse(Arrays.equals(first, IntStream.range(0, 45).toArray()), "shuffled");
        assertArrayEquals(first, epoch(again).stream().flatMapToInt(Arrays::stream).toArray(), "the same seed, the same epochs");
        assertArrayEquals(second, epoch(again).stream().flatMapToInt(Arrays::stream).toArray());
        assertEquals(5, epoch(loader).getLast().length, "45 = 5·8 + 5");
    }

    @Test
    void anExhaustedEpochAndBadArgumentsAreRefused() {
        var iterator = new DataLoader(numbered(3), 2).iterator();
        iterator.next();
        iterator.next();
        assertThrows(NoSuchElementException.class, iterator::next);
        assertMessage(() -> new DataLoader(numbered(3), 0), "DataLoader: the batch size must be positive, got 0");
        assertMessage(() -> new DataLoader(null, 2), "the data set is null");
        assertMessage(() -> new DataLoader(numbered(3), 2, null), "the generator is null");
        assertEquals("DataLoader(batch_size=2, shuffle=True, drop_last=True, batches=1, Dataset(N=3, features=f64[3,3], labels=i32[3]))",
                new DataLoader(numbered(3), 2, new Generator(1)).dropLast().toString());
    }
}
