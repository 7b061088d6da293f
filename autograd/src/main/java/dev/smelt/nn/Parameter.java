// SPDX-License-Identifier: Apache-2.0
package dev.smelt.nn;

import dev.smelt.Tensor;
import dev.smelt.ir.SmeltException;

/// A trainable tensor. Its [#value] is one dense floating-point tensor for the parameter's whole
/// life: an optimizer step writes the new values into its storage, so a traced forward that read
/// it (it becomes a graph input, not a constant) never needs retracing.
public final class Parameter {
    private final String name;
    private final Tensor value;

    /// A parameter holding a dense copy of `initial`.
    public Parameter(String name, Tensor initial) {
        if (name == null) throw SmeltException.of("Parameter", "the name is null");
        if (initial == null || !initial.dtype().isFloating())
            throw SmeltException.of("Parameter", "%s must be an f32 or f64 tensor, not %s", name, initial == null ? "null" : initial.dtype());
        if (initial.isTraced()) throw SmeltException.of("Parameter", "%s must be made from a concrete tensor, not a traced one", name);
        this.name = name;
        this.value = initial.mul(1); // a fresh dense tensor: nobody else holds its storage
    }

    /// The parameter's name in its own layer (`weight`); [Module#namedParameters] gives its dotted
    /// name in a model (`0.weight`).
    public String name() { return name; }

    /// The tensor holding its current values, the same one for its whole life.
    public Tensor value() { return value; }

    @Override
    public String toString() { return name + " " + value.dtype() + value.shape(); }
}
