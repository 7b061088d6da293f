// SPDX-License-Identifier: Apache-2.0
package dev.smelt.nn;

import java.util.List;

/// Modules applied in order; their parameters in the same order.
public record Sequential(List<Module> layers) implements Module {
    public Sequential {
        layers = List.copyOf(layers);
    }

    public Sequential(Module... layers) { this(List.of(layers)); }

    @Override
    public dev.smelt.Tensor forward(dev.smelt.Tensor x) {
        for (Module layer : layers) x = layer.forward(x);
        return x;
    }

    @Override
    public List<Parameter> parameters() { return layers.stream().flatMap(layer -> layer.parameters().stream()).toList(); }
}
