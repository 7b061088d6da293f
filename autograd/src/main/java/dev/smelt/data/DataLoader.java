// SPDX-License-Identifier: Apache-2.0
package dev.smelt.data;

import dev.smelt.Generator;
import dev.smelt.ir.SmeltException;
import java.util.Iterator;
import java.util.NoSuchElementException;
import java.util.stream.IntStream;

/// Batches of a [Dataset], as `torch.utils.data.DataLoader`: each `for (Batch batch : loader)` is
/// one epoch. With a generator the samples are reshuffled at the start of every epoch
/// ([Generator#permutation], so a seed reproduces every epoch's order); without one they come in
/// order. The last batch is short when the batch size does not divide the data set, unless
/// [#dropLast] drops it. A training step marked [dev.smelt.optim.TrainStep#dynamic] runs the short
/// batch with the same compiled program. Immutable; the generator is advanced by each epoch.
public final class DataLoader implements Iterable<Batch> {
    private final Dataset dataset;
    private final int batchSize;
    private final Generator shuffle;
    private final boolean dropLast;

    /// Batches of `batchSize` samples in the data set's order.
    public DataLoader(Dataset dataset, int batchSize) { this(dataset, batchSize, null, false); }

    /// Batches of `batchSize` samples, reshuffled with `shuffle` at every epoch (`shuffle=True`).
    public DataLoader(Dataset dataset, int batchSize, Generator shuffle) {
        this(dataset, batchSize, shuffle, false);
        if (shuffle == null) throw SmeltException.of("DataLoader", "the generator is null; use DataLoader(dataset, batchSize) for batches in order");
    }

    private DataLoader(Dataset dataset, int batchSize, Generator shuffle, boolean dropLast) {
        if (dataset == null) throw SmeltException.of("DataLoader", "the data set is null");
        if (batchSize <= 0) throw SmeltException.of("DataLoader", "the batch size must be positive, got %d", batchSize);
        this.dataset = dataset;
        this.batchSize = batchSize;
        this.shuffle = shuffle;
        this.dropLast = dropLast;
    }

    /// This loader, but leaving out the last batch of each epoch when it is short (`drop_last=True`).
    public DataLoader dropLast() { return new DataLoader(dataset, batchSize, shuffle, true); }

    /// The data set it cuts batches from.
    public Dataset dataset() { return dataset; }

    /// Samples per batch (all but a short last one).
    public int batchSize() { return batchSize; }

    /// Batches per epoch (`len(loader)`).
    public int batches() {
        int full = dataset.size() / batchSize;
        return dropLast || dataset.size() % batchSize == 0 ? full : full + 1;
    }

    /// One epoch's batches; a shuffling loader draws this epoch's order now.
    @Override
    public Iterator<Batch> iterator() {
        int[] order = shuffle == null ? IntStream.range(0, dataset.size()).toArray() : shuffle.permutation(dataset.size());
        int batches = batches();
        return new Iterator<>() {
            private int next;

            @Override
            public boolean hasNext() { return next < batches; }

            @Override
            public Batch next() {
                if (!hasNext()) throw new NoSuchElementException("the epoch's " + batches + " batches are used up");
                int from = next++ * batchSize;
                return dataset.batch(order, from, Math.min(from + batchSize, order.length));
            }
        };
    }

    /// `DataLoader(batch_size=32, shuffle=True, drop_last=False, batches=45, Dataset(…))`.
    @Override
    public String toString() {
        return "DataLoader(batch_size=%d, shuffle=%s, drop_last=%s, batches=%d, %s)"
                .formatted(batchSize, shuffle != null ? "True" : "False", dropLast ? "True" : "False", batches(), dataset);
    }
}
