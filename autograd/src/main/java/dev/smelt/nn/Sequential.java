// SPDX-License-Identifier: Apache-2.0
package dev.smelt.nn;

import dev.smelt.ir.SmeltException;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;

/// Modules applied in order; their parameters in the same order.
public record Sequential(List<Module> layers) implements Module {
    /// Refuses a null list or a null layer; copies the list.
    public Sequential {
        if (layers == null) throw SmeltException.of("Sequential", "the list of layers is null");
        for (int i = 0; i < layers.size(); i++)
            if (layers.get(i) == null) throw SmeltException.of("Sequential", "layer %d is null", i);
        layers = List.copyOf(layers);
    }

    /// `layers` in order, as `torch.nn.Sequential(*layers)`.
    public Sequential(Module... layers) { this(layers == null ? null : Arrays.asList(layers)); }

    @Override
    public dev.smelt.Tensor forward(dev.smelt.Tensor x) {
        for (Module layer : layers) x = layer.forward(x);
        return x;
    }

    @Override
    public List<Module> children() { return layers; }

    @Override
    public List<Parameter> parameters() { return List.copyOf(namedParameters().values()); }

    /// Each layer's parameters prefixed by its index: `0.weight`, `0.bias`, `2.weight`, ….
    @Override
    public Map<String, Parameter> namedParameters() {
        return Module.nest(IntStream.range(0, layers.size()).mapToObj(String::valueOf).toList(), layers);
    }

    /// One line per layer, numbered, a nested layer's lines indented, as PyTorch prints it:
    /// ```
    /// Sequential(
    ///   (0): Linear(in_features=64, out_features=128, bias=True)
    ///   (1): ReLU()
    /// )
    /// ```
    @Override
    public String toString() {
        if (layers.isEmpty()) return "Sequential()";
        var text = new StringBuilder("Sequential(\n");
        for (int i = 0; i < layers.size(); i++)
            text.append("  (").append(i).append("): ").append(String.valueOf(layers.get(i)).replace("\n", "\n  ")).append('\n');
        return text.append(')').toString();
    }
}
