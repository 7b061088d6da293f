// SPDX-License-Identifier: Apache-2.0
package dev.smelt.models.llama;

import dev.smelt.Compiled;
import dev.smelt.Jit;
import dev.smelt.Tensor;
import dev.smelt.ir.SmeltException;

/// The Llama 2 model of a llama2.c checkpoint, written with the public [Tensor] API: per block
/// RMSNorm, q/k/v projections, rotary embeddings (llama2.c's interleaved pairs), causal
/// grouped-query attention, the output projection and a residual, then RMSNorm, the SwiGLU
/// feed-forward `w2(silu(w1·x) ⊙ w3·x)` and a residual; a final RMSNorm and the classifier.
///
/// [#forward] runs a whole sequence at once, compiled (one program per sequence length, its
/// kernels shared). [#session] decodes token by token with a KV cache ([Llama2Session]), and
/// [#generate] samples text that way.
public final class Llama2 {
    private static final double EPS = 1e-5, THETA = 10000;

    private final Llama2Checkpoint weights;
    private final Compiled compiled;
    private volatile Llama2Session.Programs steps;

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
        Tensor angles = angles(start, tokens.length, config.headSize());
        return compiled.apply(embed("Llama2.forward", tokens), angles.cos(), angles.sin());
    }

    // Compiled at the first session's first call: a model used only through forward compiles no step.
    Llama2Session.Programs steps() {
        var programs = steps;
        if (programs == null) {
            synchronized (this) {
                if (steps == null) steps = Llama2Session.Programs.of(this);
                programs = steps;
            }
        }
        return programs;
    }

    /// A new sequence to generate with this model: its own KV cache, prefilled by a prompt, then
    /// extended a token at a time.
    public Llama2Session session() { return new Llama2Session(this); }

    /// Generates after `prompt` (which starts the sequence, usually with BOS): prefills it, then
    /// samples up to `steps` tokens with `sampler`, each passed to `onToken` as it comes, stopping
    /// early at BOS (1, which llama2.c's stories use as a separator) or the model's last position.
    public int[] generate(int[] prompt, int steps, Llama2Sampler sampler, java.util.function.IntConsumer onToken) {
        if (sampler == null || onToken == null || steps < 0) throw SmeltException.of("Llama2.generate", "need a sampler, a consumer and steps ≥ 0, got %s, %s, %d", sampler, onToken, steps);
        var session = session();
        float[] logits = session.prefill(prompt);
        // As run.c clamps steps to seq_len: one token per position after the prompt's, and one after the last.
        int[] generated = new int[Math.min(steps, config().seqLen() - session.length() + 1)];
        int count = 0;
        while (count < generated.length) {
            int token = sampler.sample(logits);
            if (token == Llama2Tokenizer.BOS) break;
            generated[count++] = token;
            onToken.accept(token);
            if (session.length() == config().seqLen()) break;
            logits = session.next(token);
        }
        return java.util.Arrays.copyOf(generated, count);
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
    static Tensor angles(int start, int tokens, int headSize) {
        float[] angles = new float[tokens * headSize / 2];
        for (int t = 0; t < tokens; t++)
            for (int j = 0; j < headSize / 2; j++) angles[t * headSize / 2 + j] = (float) ((start + t) / Math.pow(THETA, 2.0 * j / headSize));
        return Tensor.of(angles, tokens, 1, headSize / 2);
    }

    private Tensor blocks(Tensor x, Tensor cos, Tensor sin) {
        var config = weights.config();
        int tokens = x.dim(0);
        for (Llama2Checkpoint.Layer layer : weights.layers()) {
            var qkv = projections(layer, x, cos, sin);
            x = feedForward(layer, x, Tensor.scaledDotProductAttention(qkv[0], qkv[1], qkv[2], true));
        }
        return classify(x);
    }

    /// The rotated queries `[heads, T, headSize]`, keys and values `[kvHeads, T, headSize]` of
    /// tokens `x` `[T, dim]` at the angles `cos`, `sin` `[T, 1, headSize/2]`.
    Tensor[] projections(Llama2Checkpoint.Layer layer, Tensor x, Tensor cos, Tensor sin) {
        var config = weights.config();
        int tokens = x.dim(0), headSize = config.headSize();
        Tensor h = x.rmsNorm(new int[] {config.dim()}, layer.rmsAttention(), EPS);
        Tensor q = h.matmul(layer.wq().t()).reshape(tokens, config.heads(), headSize).rope(cos, sin, true);
        Tensor k = h.matmul(layer.wk().t()).reshape(tokens, config.kvHeads(), headSize).rope(cos, sin, true);
        Tensor v = h.matmul(layer.wv().t()).reshape(tokens, config.kvHeads(), headSize);
        return new Tensor[] {q.permute(1, 0, 2), k.permute(1, 0, 2), v.permute(1, 0, 2)};
    }

    /// The block's output: `x` plus the attention output `attended` `[heads, T, headSize]`
    /// projected, then plus the SwiGLU feed-forward of that.
    Tensor feedForward(Llama2Checkpoint.Layer layer, Tensor x, Tensor attended) {
        var config = weights.config();
        x = x.add(attended.permute(1, 0, 2).reshape(x.dim(0), config.dim()).matmul(layer.wo().t()));
        Tensor h = x.rmsNorm(new int[] {config.dim()}, layer.rmsFeedForward(), EPS);
        Tensor gate = h.matmul(layer.w1().t()).silu(), up = h.matmul(layer.w3().t());
        return x.add(gate.mul(up).matmul(layer.w2().t()));
    }

    /// Logits `[T, vocab]` of the final hidden states `x`.
    Tensor classify(Tensor x) { return x.rmsNorm(new int[] {weights.config().dim()}, weights.rmsFinal(), EPS).matmul(weights.classifier().t()); }

    /// The checkpoint's weights.
    Llama2Checkpoint weights() { return weights; }

    /// The embedding rows of `tokens`, `[T, dim]`, checked against the vocabulary (so the error names `op`).
    Tensor embed(String op, int[] tokens) {
        for (int i = 0; i < tokens.length; i++)
            if (tokens[i] < 0 || tokens[i] >= weights.config().vocab())
                throw SmeltException.of(op, "token %d at index %d is out of range; expected 0..%d", tokens[i], i, weights.config().vocab() - 1);
        if (tokens.length == 1) return weights.tokenEmbedding().slice(0, tokens[0], tokens[0] + 1); // a decode step: a view of the row, no eager op
        return weights.tokenEmbedding().indexSelect(0, Tensor.of(tokens));
    }
}
