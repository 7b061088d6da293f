// SPDX-License-Identifier: Apache-2.0
package dev.smelt.codegen;

/// Which loops [KernelEmitter] writes.
public enum Variant {
    /// Plain Java loops: bit-exact to the `KernelInterpreter`.
    SCALAR,
    /// A Vector API main loop over the inner axis, then a scalar tail. Transcendentals and sums
    /// differ from the interpreter by a few ulps (see `KernelEmitter`).
    VECTOR
}
