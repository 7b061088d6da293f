// SPDX-License-Identifier: Apache-2.0
package dev.smelt.nn;

import dev.smelt.Generator;
import dev.smelt.Tensor;
import dev.smelt.ir.SmeltException;
import java.util.List;
import java.util.Map;

/// A pre-norm transformer block over `[batch, tokens, dim]`, as GPT-2's:
/// `x + attention(norm1(x))`, then `+ mlp(norm2(x))` with a [LayerNorm] before each and an MLP of
/// `dim → hidden → dim` with tanh-approximated GELU between. Written in the public ops, so a
/// compiled block fuses each norm, the GELU and the residual adds into the matmuls around them.
public final class TransformerBlock implements Module {
    private final LayerNorm norm1, norm2;
    private final MultiHeadAttention attention;
    private final Sequential mlp;

    /// A block of width `dim`, `heads` query and `kvHeads` key/value heads, an MLP of `hidden`.
    public TransformerBlock(int dim, int heads, int kvHeads, int hidden, boolean causal, Generator generator) {
        if (hidden <= 0) throw SmeltException.of("TransformerBlock", "hidden width must be positive, got %d", hidden);
        this.norm1 = new LayerNorm(dim);
        this.attention = new MultiHeadAttention(dim, heads, kvHeads, causal, generator);
        this.norm2 = new LayerNorm(dim);
        this.mlp = new Sequential(new Linear(dim, hidden, generator), new Activations.GELUTanh(), new Linear(hidden, dim, generator));
    }

    @Override
    public Tensor forward(Tensor x) {
        Tensor mixed = Module.input("TransformerBlock", x).add(attention.forward(norm1.forward(x)));
        return mixed.add(mlp.forward(norm2.forward(mixed)));
    }

    @Override
    public List<Parameter> parameters() { return List.copyOf(namedParameters().values()); }

    @Override
    public List<Module> children() { return List.of(norm1, attention, norm2, mlp); }

    /// `norm1.weight`, `attention.q.weight`, …, `mlp.2.bias`.
    @Override
    public Map<String, Parameter> namedParameters() {
        return Module.nest(List.of("norm1", "attention", "norm2", "mlp"), List.of(norm1, attention, norm2, mlp));
    }

    /// Each part on its own line, as PyTorch prints a module of named parts.
    @Override
    public String toString() {
        return "TransformerBlock(\n  (norm1): %s\n  (attention): %s\n  (norm2): %s\n  (mlp): %s\n)".formatted(norm1, attention, norm2,
                mlp.toString().replace("\n", "\n  "));
    }
}
