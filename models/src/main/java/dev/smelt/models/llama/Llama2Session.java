// SPDX-License-Identifier: Apache-2.0
package dev.smelt.models.llama;

import dev.smelt.Compiled;
import dev.smelt.Jit;
import dev.smelt.Tensor;
import dev.smelt.ir.DType;
import dev.smelt.ir.SmeltException;
import java.util.ArrayList;
import java.util.List;

/// One sequence of a [Llama2] model being generated: its KV cache (per layer, keys and values
/// `[kvHeads, seqLen, headSize]`) and the compiled programs that extend it. [#prefill] runs a
/// prompt as one batch (matmuls, not matrix-vector products) and stores its keys and values;
/// [#next] then decodes one token per call with one program whose position is an input, so
/// tokens do not recompile. Both write into the cache in place: the caches are donated
/// ([Compiled#applyUpdating]) and updated with `sliceUpdate`, which writes only the new rows. A
/// token attends over the whole cache through a mask that keeps the positions up to its own;
/// attention skips the blocks of keys the mask drops, so it reads only the rows written so far,
/// and one program serves every position. The programs are the model's ([Llama2#steps]): a new
/// session compiles nothing. Not thread-safe.
public final class Llama2Session {
    private final Llama2 model;
    private final Llama2Config config;
    private final List<Tensor> cache = new ArrayList<>(); // keys of every layer, then values
    private final Tensor position = Tensor.zeros(DType.I32), logits;
    private final List<Tensor> outputs = new ArrayList<>();
    private int length;

    Llama2Session(Llama2 model) {
        this.model = model;
        this.config = model.config();
        for (int i = 0; i < 2 * config.layers(); i++) cache.add(Tensor.zeros(config.kvHeads(), config.seqLen(), config.headSize()));
        this.logits = Tensor.zeros(1, config.vocab());
        outputs.add(logits);
        outputs.addAll(cache);
    }

    /// The model's two programs: a prompt as one batch, and one token at any position.
    record Programs(Compiled prefill, Compiled decode) {
        static Programs of(Llama2 model) {
            int caches = 2 * model.config().layers();
            return new Programs(Jit.compile(args -> prompt(model, args.get(0), args.get(1), args.get(2), args.subList(3, args.size())), 3 + caches),
                    Jit.compile(args -> token(model, args), 4 + caches));
        }
    }

    /// Positions decoded so far.
    public int length() { return length; }

    /// Starts a new sequence in this session, keeping its cache tensors and compiled programs: the
    /// old rows are never read again (each token attends only up to its own position) and are
    /// overwritten as the new sequence reaches them.
    public void reset() { length = 0; }

    /// Runs `tokens` (the start of the sequence) as one batch, stores their keys and values, and
    /// returns the logits that follow the last of them.
    public float[] prefill(int[] tokens) {
        if (length != 0) throw SmeltException.of("Llama2Session.prefill", "the session holds %d positions already; prefill starts a sequence", length);
        if (tokens == null || tokens.length == 0 || tokens.length > config.seqLen())
            throw SmeltException.of("Llama2Session.prefill", "expected 1..%d tokens, got %s", config.seqLen(), tokens == null ? "null" : tokens.length);
        Tensor angles = Llama2.angles(0, tokens.length, config.headSize());
        var arguments = new ArrayList<>(List.of(model.embed("Llama2Session.prefill", tokens), angles.cos(), angles.sin()));
        arguments.addAll(cache);
        model.steps().prefill().applyUpdating(outputs, arguments.toArray(Tensor[]::new));
        length = tokens.length;
        return logits.toFloatArray();
    }

    /// Decodes `token` at the next position and returns the logits that follow it.
    public float[] next(int token) {
        if (length >= config.seqLen()) throw SmeltException.of("Llama2Session.next", "the sequence is full: the model has %d positions", config.seqLen());
        Tensor angles = Llama2.angles(length, 1, config.headSize());
        position.set(length);
        var arguments = new ArrayList<>(List.of(model.embed("Llama2Session.next", new int[] {token}), position, angles.cos(), angles.sin()));
        arguments.addAll(cache);
        model.steps().decode().applyUpdating(outputs, arguments.toArray(Tensor[]::new));
        length++;
        return logits.toFloatArray();
    }

    // The last position's logits, then the caches with the prompt's keys and values written from position 0.
    private static List<Tensor> prompt(Llama2 model, Tensor x, Tensor cos, Tensor sin, List<Tensor> caches) {
        int layers = model.config().layers();
        var keys = new ArrayList<Tensor>();
        var values = new ArrayList<Tensor>();
        for (int l = 0; l < layers; l++) {
            var qkv = model.projections(model.weights().layers().get(l), x, cos, sin);
            keys.add(caches.get(l).sliceUpdate(1, 0, qkv[1]));
            values.add(caches.get(layers + l).sliceUpdate(1, 0, qkv[2]));
            x = model.feedForward(model.weights().layers().get(l), x, Tensor.scaledDotProductAttention(qkv[0], qkv[1], qkv[2], true));
        }
        return results(model.classify(x.slice(0, x.dim(0) - 1, x.dim(0))), keys, values);
    }

    // One token (x [1, dim]) at `position`: logits, then the caches with its key and value written.
    private static List<Tensor> token(Llama2 model, List<Tensor> args) {
        Tensor x = args.get(0), position = args.get(1), cos = args.get(2), sin = args.get(3);
        int layers = model.config().layers(), positions = model.config().seqLen();
        var keys = new ArrayList<Tensor>();
        var values = new ArrayList<Tensor>();
        Tensor visible = Tensor.arange(positions).le(position).reshape(1, positions);
        for (int l = 0; l < layers; l++) {
            var qkv = model.projections(model.weights().layers().get(l), x, cos, sin);
            // written in place, one row per head: the caches are donated
            Tensor k = args.get(4 + l).sliceUpdate(1, position, qkv[1]), v = args.get(4 + layers + l).sliceUpdate(1, position, qkv[2]);
            keys.add(k);
            values.add(v);
            Tensor attended = Tensor.scaledDotProductAttention(qkv[0], k, v, visible);
            x = model.feedForward(model.weights().layers().get(l), x, attended);
        }
        return results(model.classify(x), keys, values);
    }

    // A program's results, in the order of `outputs`: the logits, every layer's keys, then values.
    private static List<Tensor> results(Tensor logits, List<Tensor> keys, List<Tensor> values) {
        var results = new ArrayList<Tensor>(List.of(logits));
        results.addAll(keys);
        results.addAll(values);
        return results;
    }
}
