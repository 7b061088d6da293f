// SPDX-License-Identifier: Apache-2.0
package dev.smelt.nn;

import dev.smelt.Generator;
import dev.smelt.Tensor;
import dev.smelt.ir.SmeltException;
import java.util.List;

/// `y = x·Wᵀ + b` with `W: [out, in]` and `b: [out]`, as `torch.nn.Linear`, initialised uniformly in
/// `±1/√in` as PyTorch does. `Wᵀ` is a view: the compiled matmul reads `W` through a transpose flag.
public final class Linear implements Module {
    private final Parameter weight, bias;

    /// A layer from `in` to `out` features (both positive), `f32`, drawn from `generator`.
    public Linear(int in, int out, Generator generator) {
        if (in <= 0 || out <= 0) throw SmeltException.of("Linear", "sizes must be positive, got in=%d out=%d", in, out);
        if (generator == null) throw SmeltException.of("Linear", "the generator is null");
        double bound = 1 / Math.sqrt(in);
        weight = new Parameter("weight", Tensor.rand(generator, out, in).mul(2 * bound).sub(bound));
        bias = new Parameter("bias", Tensor.rand(generator, out).mul(2 * bound).sub(bound));
    }

    /// The weight `[out, in]`.
    public Parameter weight() { return weight; }

    /// The bias `[out]`.
    public Parameter bias() { return bias; }

    @Override
    public Tensor forward(Tensor x) { return Module.input("Linear", x).matmul(weight.value().t()).add(bias.value()); }

    @Override
    public List<Parameter> parameters() { return List.of(weight, bias); }

    /// `Linear(in_features=64, out_features=128, bias=True)`, as PyTorch prints it.
    @Override
    public String toString() {
        return "Linear(in_features=%d, out_features=%d, bias=True)".formatted(weight.value().dim(1), weight.value().dim(0));
    }
}
