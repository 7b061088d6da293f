// SPDX-License-Identifier: Apache-2.0
package dev.smelt.nn;

import dev.smelt.Generator;
import dev.smelt.Tensor;
import dev.smelt.ir.SmeltException;
import java.util.List;
import java.util.Map;

/// Self-attention over `[batch, tokens, dim]`, batch first: the input projected to queries, keys
/// and values (`q`, `k`, `v`: [Linear]s), split into heads, attended with
/// [Tensor#scaledDotProductAttention] (causal or not), the heads joined and projected by `o`. With
/// fewer key/value heads than query heads (a divisor), the kv heads are shared (grouped-query
/// attention, as Llama 2 70B and Mistral); `kvHeads == heads` is ordinary multi-head attention.
public final class MultiHeadAttention implements Module {
    private final int dim, heads, kvHeads;
    private final boolean causal;
    private final Linear q, k, v, o;

    /// `heads` query heads and `kvHeads` key/value heads over width `dim` (a multiple of `heads`),
    /// weights drawn from `generator` as [Linear]'s.
    public MultiHeadAttention(int dim, int heads, int kvHeads, boolean causal, Generator generator) {
        if (dim <= 0 || heads <= 0 || kvHeads <= 0 || dim % heads != 0 || heads % kvHeads != 0)
            throw SmeltException.of("MultiHeadAttention", "dim %d, heads %d and kvHeads %d: expected positive sizes, dim a multiple of heads and heads of kvHeads",
                    dim, heads, kvHeads);
        this.dim = dim;
        this.heads = heads;
        this.kvHeads = kvHeads;
        this.causal = causal;
        int kvDim = dim / heads * kvHeads;
        this.q = new Linear(dim, dim, generator);
        this.k = new Linear(dim, kvDim, generator);
        this.v = new Linear(dim, kvDim, generator);
        this.o = new Linear(dim, dim, generator);
    }

    /// Multi-head attention: as many key/value heads as query heads.
    public MultiHeadAttention(int dim, int heads, boolean causal, Generator generator) { this(dim, heads, heads, causal, generator); }

    @Override
    public Tensor forward(Tensor x) {
        Module.input("MultiHeadAttention", x);
        if (x.rank() != 3 || x.dim(2) != dim)
            throw SmeltException.of("MultiHeadAttention", "expected an input [batch, tokens, %d], got %s", dim, x.shape());
        int batch = x.dim(0), tokens = x.dim(1), headSize = dim / heads;
        Tensor queries = split(q.forward(x), batch, tokens, heads, headSize);
        Tensor keys = split(k.forward(x), batch, tokens, kvHeads, headSize), values = split(v.forward(x), batch, tokens, kvHeads, headSize);
        Tensor attended = Tensor.scaledDotProductAttention(queries, keys, values, causal); // [batch, heads, tokens, headSize]
        return o.forward(attended.permute(0, 2, 1, 3).reshape(batch, tokens, dim));
    }

    // [batch, tokens, n·size] → [batch, n, tokens, size]
    private static Tensor split(Tensor projected, int batch, int tokens, int n, int size) {
        return projected.reshape(batch, tokens, n, size).permute(0, 2, 1, 3);
    }

    @Override
    public List<Parameter> parameters() { return List.copyOf(namedParameters().values()); }

    @Override
    public List<Module> children() { return List.of(q, k, v, o); }

    /// `q.weight`, `q.bias`, `k.weight`, … `o.bias`.
    @Override
    public Map<String, Parameter> namedParameters() { return Module.nest(List.of("q", "k", "v", "o"), List.of(q, k, v, o)); }

    /// `MultiHeadAttention(dim=64, heads=8, kv_heads=2, causal=True)`.
    @Override
    public String toString() {
        return "MultiHeadAttention(dim=%d, heads=%d, kv_heads=%d, causal=%s)".formatted(dim, heads, kvHeads, Repr.of(causal));
    }
}
