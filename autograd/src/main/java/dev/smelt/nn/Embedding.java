// SPDX-License-Identifier: Apache-2.0
package dev.smelt.nn;

import dev.smelt.Generator;
import dev.smelt.Tensor;
import dev.smelt.ir.DType;
import dev.smelt.ir.SmeltException;
import java.util.List;

/// A lookup table of `count` vectors of width `dim`, as `torch.nn.Embedding`: `forward` takes
/// `i32` indices of any shape and returns their rows, `[..., dim]`; an index outside `[0, count)`
/// throws, eagerly and from compiled code, before any kernel runs. The weight starts standard
/// normal, as PyTorch's. A row gather, `weight.indexSelect(0, indices)`: the lookup reads one row per
/// index, and its gradient adds each row's cotangent into the row it read (a scatter add), with no
/// one-hot matrix and no `[N, count]` product.
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
        if (indices.dtype() != DType.I32) throw SmeltException.of("Embedding", "indices must be i32, not %s", indices.dtype());
        int[] shape = java.util.Arrays.copyOf(indices.shape().dims().stream().mapToInt(Integer::intValue).toArray(), indices.rank() + 1);
        shape[indices.rank()] = dim;
        return weight.value().indexSelect(0, indices.flatten()).reshape(shape);
    }

    @Override
    public List<Parameter> parameters() { return List.of(weight); }

    /// `Embedding(32000, 288)`.
    @Override
    public String toString() { return "Embedding(%d, %d)".formatted(count, dim); }
}
