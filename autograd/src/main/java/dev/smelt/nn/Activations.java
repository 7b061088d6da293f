// SPDX-License-Identifier: Apache-2.0
package dev.smelt.nn;

import dev.smelt.Tensor;

/// Parameter-free layers, as in `torch.nn`; each prints as PyTorch prints it (`ReLU()`).
public final class Activations {
    private Activations() {}

    /// `max(x, 0)`.
    public record ReLU() implements Module {
        /// `x.relu()`.
        public Tensor forward(Tensor x) { return Module.input("ReLU", x).relu(); }

        @Override
        public String toString() { return "ReLU()"; }
    }

    /// `x·Φ(x)`, the exact (erf) form, PyTorch's default.
    public record GELU() implements Module {
        /// `x.gelu()`.
        public Tensor forward(Tensor x) { return Module.input("GELU", x).gelu(); }

        @Override
        public String toString() { return "GELU(approximate='none')"; }
    }

    /// GELU with the tanh approximation, `torch.nn.GELU(approximate='tanh')` (GPT-2's).
    public record GELUTanh() implements Module {
        /// `x.geluTanh()`.
        public Tensor forward(Tensor x) { return Module.input("GELU", x).geluTanh(); }

        @Override
        public String toString() { return "GELU(approximate='tanh')"; }
    }

    /// `tanh(x)`.
    public record Tanh() implements Module {
        /// `x.tanh()`.
        public Tensor forward(Tensor x) { return Module.input("Tanh", x).tanh(); }

        @Override
        public String toString() { return "Tanh()"; }
    }

    /// `1 / (1 + e⁻ˣ)`.
    public record Sigmoid() implements Module {
        /// `x.sigmoid()`.
        public Tensor forward(Tensor x) { return Module.input("Sigmoid", x).sigmoid(); }

        @Override
        public String toString() { return "Sigmoid()"; }
    }
}
