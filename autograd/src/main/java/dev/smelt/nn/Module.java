// SPDX-License-Identifier: Apache-2.0
package dev.smelt.nn;

import dev.smelt.SmeltException;
import dev.smelt.Tensor;
import java.util.List;

/// A layer or a model: a tensor function with the parameters it reads. `forward` is ordinary
/// tensor code, so it runs eagerly, traced under [dev.smelt.Jit#compile], or inside a training step.
public interface Module {
    /// The layer applied to `x`: eager on concrete tensors, recorded inside a trace.
    Tensor forward(Tensor x);

    /// The trainable parameters, in a fixed order.
    default List<Parameter> parameters() { return List.of(); }

    /// `x`, checked to be a tensor: what a layer's `forward` calls first, so that a null input is
    /// a [SmeltException] naming the layer rather than a NullPointerException inside it.
    static Tensor input(String layer, Tensor x) {
        if (x == null) throw SmeltException.of(layer, "the input is null");
        return x;
    }
}
