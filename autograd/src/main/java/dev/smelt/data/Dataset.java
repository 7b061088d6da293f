// SPDX-License-Identifier: Apache-2.0
package dev.smelt.data;

import dev.smelt.Generator;
import dev.smelt.Tensor;
import dev.smelt.ir.SmeltException;
import java.nio.file.Path;
import java.util.stream.IntStream;

/// An in-memory data set, as a `torch.utils.data.TensorDataset` of two tensors: `features`
/// `[N, …]` and `labels` `[N, …]` (class indices `i32 [N]` for classification), sample `i` being
/// row `i` of each. Immutable; it keeps a row-major copy of both tensors for cutting batches, so it
/// holds about twice the data's memory.
public final class Dataset {
    private final Tensor features, labels;
    private final Rows featureRows, labelRows;

    /// A data set of `features` and `labels`, concrete tensors of rank ≥ 1 with the same number of rows.
    public Dataset(Tensor features, Tensor labels) {
        require("features", features);
        require("labels", labels);
        if (features.dim(0) != labels.dim(0))
            throw SmeltException.of("Dataset", "features %s and labels %s must have the same number of rows (axis 0)", features.shape(), labels.shape());
        this.features = features;
        this.labels = labels;
        this.featureRows = new Rows(features);
        this.labelRows = new Rows(labels);
    }

    private static void require(String name, Tensor tensor) {
        if (tensor == null) throw SmeltException.of("Dataset", "the %s tensor is null", name);
        if (tensor.isTraced()) throw SmeltException.of("Dataset", "the %s must be a concrete tensor, not a traced one", name);
        if (tensor.rank() == 0) throw SmeltException.of("Dataset", "the %s must have a row axis (rank ≥ 1), got a 0-d tensor", name);
    }

    /// Reads a CSV file; see [Csv#read(Path, int, boolean)].
    public static Dataset readCsv(Path file, int labelColumn, boolean header) { return Csv.read(file, labelColumn, header); }

    /// All the samples' features, `[N, …]`.
    public Tensor features() { return features; }

    /// All the samples' labels, `[N, …]`.
    public Tensor labels() { return labels; }

    /// The number of samples `N`.
    public int size() { return features.dim(0); }

    /// The samples at `indices`, in that order (repeats allowed), as a new data set. Negative
    /// indices count from the end.
    public Dataset rows(int... indices) {
        if (indices == null) throw SmeltException.of("Dataset.rows", "the indices are null");
        int[] resolved = new int[indices.length];
        for (int i = 0; i < indices.length; i++) {
            int index = indices[i] < 0 ? indices[i] + size() : indices[i];
            if (index < 0 || index >= size())
                throw SmeltException.of("Dataset.rows", "index %d is out of range for %d samples", indices[i], size());
            resolved[i] = index;
        }
        return new Dataset(featureRows.gather(resolved, 0, resolved.length), labelRows.gather(resolved, 0, resolved.length));
    }

    /// Samples `from…to-1` as a new data set.
    public Dataset slice(int from, int to) {
        if (from < 0 || to < from || to > size())
            throw SmeltException.of("Dataset.slice", "rows %d…%d are not within the %d samples; expected 0 ≤ from ≤ to ≤ %d", from, to, size(), size());
        return rows(IntStream.range(from, to).toArray());
    }

    /// A batch of the samples `order[from…to-1]`.
    Batch batch(int[] order, int from, int to) { return new Batch(featureRows.gather(order, from, to), labelRows.gather(order, from, to)); }

    /// A random split into a training and a test set, as scikit-learn's `train_test_split`: the
    /// test set gets `⌈testFraction·N⌉` samples (`0 < testFraction < 1`), both keep the shuffled order.
    public Split trainTestSplit(double testFraction, Generator generator) {
        if (!(testFraction > 0 && testFraction < 1))
            throw SmeltException.of("trainTestSplit", "the test fraction must be between 0 and 1 (exclusive), got %s", testFraction);
        return trainTestSplit((int) Math.ceil(testFraction * size()), generator);
    }

    /// A random split with `testCount` samples in the test set and the rest in the training set.
    public Split trainTestSplit(int testCount, Generator generator) {
        if (generator == null) throw SmeltException.of("trainTestSplit", "the generator is null; the split shuffles with it");
        if (testCount < 0 || testCount > size())
            throw SmeltException.of("trainTestSplit", "the test set must have 0…%d samples, got %d", size(), testCount);
        int[] order = generator.permutation(size());
        int train = size() - testCount;
        return new Split(new Dataset(featureRows.gather(order, 0, train), labelRows.gather(order, 0, train)),
                new Dataset(featureRows.gather(order, train, size()), labelRows.gather(order, train, size())));
    }

    /// The two parts of [#trainTestSplit].
    public record Split(Dataset train, Dataset test) {}

    /// `Dataset(N=1797, features=f32[1797,64], labels=i32[1797])`.
    @Override
    public String toString() {
        return "Dataset(N=%d, features=%s%s, labels=%s%s)".formatted(size(), features.dtype(), features.shape(), labels.dtype(), labels.shape());
    }
}
