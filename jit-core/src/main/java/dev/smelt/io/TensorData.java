// SPDX-License-Identifier: Apache-2.0
package dev.smelt.io;

import dev.smelt.ir.Shape;
import dev.smelt.ir.Storage;

/// A tensor as the file formats see it: `shape.size()` elements of `storage`, dense and row-major.
public record TensorData(Shape shape, Storage storage) {
    public TensorData {
        if (storage.size() != shape.size())
            throw new IllegalArgumentException("%d elements cannot fill shape %s".formatted(storage.size(), shape));
    }
}
