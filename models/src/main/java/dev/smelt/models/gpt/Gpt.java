// SPDX-License-Identifier: Apache-2.0
package dev.smelt.models.gpt;

import dev.smelt.Generator;
import dev.smelt.Tensor;
import dev.smelt.ir.SmeltException;
import dev.smelt.nn.Embedding;
import dev.smelt.nn.LayerNorm;
import dev.smelt.nn.Linear;
import dev.smelt.nn.Module;
import dev.smelt.nn.Parameter;
import dev.smelt.nn.TransformerBlock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/// A GPT-2-style language model in the public `nn` modules: token and learned position embeddings,
/// `layers` pre-norm causal [TransformerBlock]s (MLP four times the width), a final [LayerNorm] and
/// a classifier over the vocabulary. `forward` maps `i32` tokens `[batch, tokens]` to logits
/// `[batch, tokens, vocab]`; [#loss] is the mean next-token cross-entropy.
public final class Gpt implements Module {
    /// The model's sizes: `context` is the longest sequence the position table covers.
    public record Config(int vocab, int context, int dim, int heads, int layers) {
        /// Checks every size is positive and `dim` splits into `heads`.
        public Config {
            if (vocab <= 0 || context <= 0 || dim <= 0 || heads <= 0 || layers <= 0 || dim % heads != 0)
                throw SmeltException.of("Gpt", "sizes must be positive and dim divisible by heads: vocab %d, context %d, dim %d, heads %d, layers %d",
                        vocab, context, dim, heads, layers);
        }
    }

    private final Config config;
    private final Embedding tokens;
    private final Parameter positions;
    private final List<TransformerBlock> blocks = new ArrayList<>();
    private final LayerNorm norm;
    private final Linear head;

    /// A model of `config`'s sizes, its weights drawn from `generator` (positions as GPT-2's, N(0, 0.02²)).
    public Gpt(Config config, Generator generator) {
        if (config == null || generator == null) throw SmeltException.of("Gpt", "the %s is null", config == null ? "config" : "generator");
        this.config = config;
        this.tokens = new Embedding(config.vocab(), config.dim(), generator);
        this.positions = new Parameter("weight", Tensor.randn(generator, config.context(), config.dim()).mul(0.02));
        for (int i = 0; i < config.layers(); i++)
            blocks.add(new TransformerBlock(config.dim(), config.heads(), config.heads(), 4 * config.dim(), true, generator));
        this.norm = new LayerNorm(config.dim());
        this.head = new Linear(config.dim(), config.vocab(), generator);
    }

    /// The sizes this model was made with.
    public Config config() { return config; }

    @Override
    public Tensor forward(Tensor x) {
        Module.input("Gpt", x);
        if (x.rank() != 2 || x.dim(1) > config.context())
            throw SmeltException.of("Gpt", "expected tokens [batch, ≤ %d], got %s", config.context(), x.shape());
        Tensor h = tokens.forward(x).add(positions.value().slice(0, 0, x.dim(1)));
        for (TransformerBlock block : blocks) h = block.forward(h);
        return head.forward(norm.forward(h));
    }

    /// Mean cross-entropy of each position's logits against `targets` (`i32`, the shape of `x`).
    public Tensor loss(Tensor x, Tensor targets) {
        if (targets == null) throw SmeltException.of("Gpt.loss", "the targets are null");
        // Both are flattened, so a transposed or reshaped target of the same size would pair tokens with wrong targets
        if (x != null && !targets.shape().equals(x.shape()))
            throw SmeltException.of("Gpt.loss", "expected targets of the tokens' shape %s, got %s", x.shape(), targets.shape());
        Tensor logits = forward(x);
        return logits.reshape(-1, config.vocab()).crossEntropy(targets.reshape(-1));
    }

    @Override
    public List<Parameter> parameters() { return List.copyOf(namedParameters().values()); }

    /// `tokens.weight`, `positions.weight`, `blocks.0.norm1.weight`, …, `norm.weight`, `head.bias`.
    @Override
    public Map<String, Parameter> namedParameters() {
        var names = new ArrayList<>(List.of("tokens", "positions"));
        var modules = new ArrayList<Module>(List.of(tokens, new Positions(positions)));
        names.add("blocks");
        modules.add(new Blocks(blocks));
        names.addAll(List.of("norm", "head"));
        modules.addAll(List.of(norm, head));
        return Module.nest(names, modules);
    }

    private record Positions(Parameter weight) implements Module {
        public Tensor forward(Tensor x) { return x; }
        public List<Parameter> parameters() { return List.of(weight); }
    }

    private record Blocks(List<TransformerBlock> blocks) implements Module {
        public Tensor forward(Tensor x) { return x; }
        public Map<String, Parameter> namedParameters() {
            var names = new ArrayList<String>();
            for (int i = 0; i < blocks.size(); i++) names.add(Integer.toString(i));
            return Module.nest(names, blocks);
        }
    }
}
