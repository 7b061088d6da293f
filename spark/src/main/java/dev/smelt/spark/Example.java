// SPDX-License-Identifier: Apache-2.0
package dev.smelt.spark;

import java.io.Serializable;

/// One training row on its way to its replica: its place in the data (global batch `index / G`,
/// position `index % G`), its features and its label.
record Example(long index, float[] features, double label) implements Serializable {}
