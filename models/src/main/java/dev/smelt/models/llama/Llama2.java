// SPDX-License-Identifier: Apache-2.0
package dev.smelt.models.llama;

import dev.smelt.Compiled;
import dev.smelt.Jit;
import dev.smelt.SmeltException;
import dev.smelt.Tensor;
import java.util.ArrayList;

/// The Llama 2 model of a llama2.c checkpoint, written with the public [Tensor] API: per block
/// RMSNorm, q/k/v projections, rotary embeddings (llama2.c's interleaved pairs), causal
/// grouped-query attention, the output projection and a residual, then RMSNorm, the SwiGLU
/// feed-forward `w2(silu(w1·x) ⊙ w3·x)` and a residual; a final RMSNorm and the classifier.
///
/// [#forward] runs a whole sequence at once, compiled (one program per sequence length, its
/// kernels shared): a prefill. Decoding token by token with a KV cache updated in place, the
/// position dynamic, is the next step (it needs the indexing ops' in-place slice update).
public final class Llama2 {
    private static final double EPS = 1e-5, THETA = 10000;

    private final Llama2Checkpoint weights;
    private final Compiled compiled;

    /// The model of `weights`.
    public Llama2(Llama2Checkpoint weights) {
        if (weights == null) throw SmeltException.of("Llama2", "the checkpoint is null");
        this.weights = weights;
        this.compiled = Jit.compile((Tensor x, Tensor cos, Tensor sin) -> blocks(x, cos, sin));
    }

    /// The configuration the checkpoint declares.
    public Llama2Config config() { return weights.config(); }

    /// Logits `[T, vocab]` for `tokens` at positions `start, start + 1, …`, each attending to the
    /// tokens before it in `tokens` (the sequence starts at `tokens[0]`; `start` only shifts the
    /// rotary angles).
    public Tensor forward(int[] tokens, int start) {
        var config = weights.config();
        if (tokens == null || tokens.length == 0) throw SmeltException.of("Llama2.forward", "no tokens");
        if (start < 0 || start + tokens.length > config.seqLen())
            throw SmeltException.of("Llama2.forward", "positions %d..%d are outside the model's %d", start, start + tokens.length - 1, config.seqLen());
        var rows = new ArrayList<Tensor>(tokens.length);
        for (int i = 0; i < tokens.length; i++) {
            if (tokens[i] < 0 || tokens[i] >= config.vocab())
                throw SmeltException.of("Llama2.forward", "token %d at index %d is out of range; expected 0..%d", tokens[i], i, config.vocab() - 1);
            rows.add(weights.tokenEmbedding().slice(0, tokens[i], tokens[i] + 1)); // a view: the lookup copies one row per token
        }
        Tensor angles = angles(start, tokens.length, config.headSize());
        return compiled.apply(Tensor.concat(rows, 0), angles.cos(), angles.sin());
    }

    /// How the latest [#forward] was compiled ([Compiled#explain]): kernels, fusion decisions, and
    /// which bf16 or int8 weights were read packed.
    public String explain() { return compiled.explain(); }

    /// The next token after `tokens` by greedy decoding: the argmax of the last position's logits.
    public int next(int[] tokens) {
        Tensor logits = forward(tokens, 0);
        return (int) logits.slice(0, tokens.length - 1, tokens.length).argmax().item();
    }

    // pos · θ^(−2j/headSize) for pair j, as [T, 1, headSize/2] (one angle per pair, every head).
    private static Tensor angles(int start, int tokens, int headSize) {
        float[] angles = new float[tokens * headSize / 2];
        for (int t = 0; t < tokens; t++)
            for (int j = 0; j < headSize / 2; j++) angles[t * headSize / 2 + j] = (float) ((start + t) / Math.pow(THETA, 2.0 * j / headSize));
        return Tensor.of(angles, tokens, 1, headSize / 2);
    }

    private Tensor blocks(Tensor x, Tensor cos, Tensor sin) {
        var config = weights.config();
        int dim = config.dim(), tokens = x.dim(0), headSize = config.headSize();
        for (Llama2Checkpoint.Layer layer : weights.layers()) {
            Tensor h = x.rmsNorm(new int[] {dim}, layer.rmsAttention(), EPS);
            Tensor q = h.matmul(layer.wq().t()).reshape(tokens, config.heads(), headSize).rope(cos, sin, true);
            Tensor k = h.matmul(layer.wk().t()).reshape(tokens, config.kvHeads(), headSize).rope(cos, sin, true);
            Tensor v = h.matmul(layer.wv().t()).reshape(tokens, config.kvHeads(), headSize);
            Tensor attended = Tensor.scaledDotProductAttention(q.permute(1, 0, 2), k.permute(1, 0, 2), v.permute(1, 0, 2), true);
            x = x.add(attended.permute(1, 0, 2).reshape(tokens, dim).matmul(layer.wo().t()));
            h = x.rmsNorm(new int[] {dim}, layer.rmsFeedForward(), EPS);
            Tensor gate = h.matmul(layer.w1().t()).silu(), up = h.matmul(layer.w3().t());
            x = x.add(gate.mul(up).matmul(layer.w2().t()));
        }
        return x.rmsNorm(new int[] {dim}, weights.rmsFinal(), EPS).matmul(weights.classifier().t());
    }
}
