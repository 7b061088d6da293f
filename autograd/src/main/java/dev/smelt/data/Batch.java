// SPDX-License-Identifier: Apache-2.0
package dev.smelt.data;

import dev.smelt.Tensor;

/// One batch of a [DataLoader]: dense tensors `features [B, …]` and `labels [B, …]`, `B` the batch size
/// (smaller for the last batch of an epoch unless it is dropped).
public record Batch(Tensor features, Tensor labels) {
    /// The number of samples `B`.
    public int size() { return features.dim(0); }
}
