// SPDX-License-Identifier: Apache-2.0
package dev.smelt.nn;

import dev.smelt.Generator;
import dev.smelt.SmeltException;
import dev.smelt.Tensor;
import dev.smelt.ir.DType;
import java.util.List;

/// A lookup table of `count` vectors of width `dim`, as `torch.nn.Embedding`: `forward` takes
/// `i32` indices of any shape and returns their rows, `[..., dim]`; an index outside `[0, count)`
/// throws, eagerly and from compiled code, before any kernel runs. The weight starts standard
/// normal, as PyTorch's. Computed as a one-hot product, `oneHot(indices) · weight`, so the gradient
/// adds each row's cotangent into the rows it read; that costs `count` multiply-adds per index and
/// row element where a gather would read one row (a gather is planned with the indexing ops).
public final class Embedding implements Module {
    private final int count, dim;
    private final Parameter weight;

    /// `count` rows of width `dim`, drawn from `generator`.
    public Embedding(int count, int dim, Generator generator) {
        if (count <= 0 || dim <= 0) throw SmeltException.of("Embedding", "count %d and dim %d must be positive", count, dim);
        if (generator == null) throw SmeltException.of("Embedding", "the generator is null");
        this.count = count;
        this.dim = dim;
        this.weight = new Parameter("weight", Tensor.randn(generator, count, dim));
    }

    /// The table, `[count, dim]`.
    public Parameter weight() { return weight; }

    @Override
    public Tensor forward(Tensor indices) {
        Module.input("Embedding", indices);
        return indices.oneHot(count).to(DType.F32).matmul(weight.value());
    }

    @Override
    public List<Parameter> parameters() { return List.of(weight); }

    /// `Embedding(32000, 288)`.
    @Override
    public String toString() { return "Embedding(%d, %d)".formatted(count, dim); }
}
