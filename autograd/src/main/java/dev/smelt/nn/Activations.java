// SPDX-License-Identifier: Apache-2.0
package dev.smelt.nn;

import dev.smelt.Tensor;

/// Parameter-free layers, as in `torch.nn`.
public final class Activations {
    private Activations() {}

    /// `max(x, 0)`.
    public record ReLU() implements Module {
        public Tensor forward(Tensor x) { return Module.input("ReLU", x).relu(); }
    }

    /// `x·Φ(x)`, the exact (erf) form, PyTorch's default.
    public record GELU() implements Module {
        public Tensor forward(Tensor x) { return Module.input("GELU", x).gelu(); }
    }

    public record Tanh() implements Module {
        public Tensor forward(Tensor x) { return Module.input("Tanh", x).tanh(); }
    }

    public record Sigmoid() implements Module {
        public Tensor forward(Tensor x) { return Module.input("Sigmoid", x).sigmoid(); }
    }
}
