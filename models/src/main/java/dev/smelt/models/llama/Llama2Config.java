// SPDX-License-Identifier: Apache-2.0
package dev.smelt.models.llama;

import dev.smelt.ir.SmeltException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/// The header of a llama2.c checkpoint (legacy version 0): seven little-endian int32, a negative
/// vocabulary size meaning the classifier is stored apart from the token embedding.
///
/// @param dim model width
/// @param hiddenDim width of the feed-forward layer
/// @param layers transformer blocks
/// @param heads query heads
/// @param kvHeads key and value heads (fewer than `heads` for grouped-query attention)
/// @param vocab vocabulary size
/// @param seqLen longest sequence the model was trained for
/// @param sharedClassifier whether the classifier is the token embedding
public record Llama2Config(int dim, int hiddenDim, int layers, int heads, int kvHeads, int vocab, int seqLen, boolean sharedClassifier) {
    /// Bytes of the header.
    public static final int HEADER_BYTES = 7 * Integer.BYTES;

    /// The stories15M shape: 288, 768, 6 layers, 6 heads, 6 kv heads, 32,000 tokens, 256 positions.
    public static final Llama2Config STORIES_15M = new Llama2Config(288, 768, 6, 6, 6, 32000, 256, true);
    /// The stories110M shape: 768, 2048, 12 layers, 12 heads, 12 kv heads, 32,000 tokens, 1,024 positions.
    public static final Llama2Config STORIES_110M = new Llama2Config(768, 2048, 12, 12, 12, 32000, 1024, true);

    public Llama2Config {
        String where = "llama2.c config";
        if (dim <= 0 || hiddenDim <= 0 || layers <= 0 || heads <= 0 || kvHeads <= 0 || vocab <= 0 || seqLen <= 0)
            throw SmeltException.of(where, "every size must be positive: dim %d, hidden_dim %d, n_layers %d, n_heads %d, n_kv_heads %d, vocab_size %d, seq_len %d",
                    dim, hiddenDim, layers, heads, kvHeads, vocab, seqLen);
        if (dim % heads != 0) throw SmeltException.of(where, "dim %d is not a multiple of n_heads %d", dim, heads);
        if (heads % kvHeads != 0) throw SmeltException.of(where, "n_heads %d is not a multiple of n_kv_heads %d", heads, kvHeads);
        if ((dim / heads) % 2 != 0) throw SmeltException.of(where, "head size %d is odd; rotary embeddings rotate pairs", dim / heads);
    }

    /// Features per head.
    public int headSize() { return dim / heads; }

    /// Width of the keys and values: `dim · kvHeads / heads`.
    public int kvDim() { return dim / heads * kvHeads; }

    /// Floats after the header: the weights in llama2.c's order, the two legacy RoPE tables, and the
    /// classifier when it is not shared.
    public long floats() {
        long perLayer = 2L * dim + (long) dim * dim * 2 + 2L * kvDim() * dim + 3L * hiddenDim * dim;
        return (long) vocab * dim + layers * perLayer + dim + (long) seqLen * headSize() + (sharedClassifier ? 0 : (long) vocab * dim);
    }

    /// The file size a checkpoint of this shape has.
    public long fileBytes() { return HEADER_BYTES + floats() * Float.BYTES; }

    /// The header's bytes.
    byte[] header() {
        var buffer = ByteBuffer.allocate(HEADER_BYTES).order(ByteOrder.LITTLE_ENDIAN);
        for (int value : new int[] {dim, hiddenDim, layers, heads, kvHeads, sharedClassifier ? vocab : -vocab, seqLen}) buffer.putInt(value);
        return buffer.array();
    }

    /// The header in `bytes` (little-endian), checked.
    static Llama2Config parse(ByteBuffer bytes) {
        bytes.order(ByteOrder.LITTLE_ENDIAN);
        int dim = bytes.getInt(), hidden = bytes.getInt(), layers = bytes.getInt(), heads = bytes.getInt(), kvHeads = bytes.getInt(), vocab = bytes.getInt(), seqLen = bytes.getInt();
        if (vocab == Integer.MIN_VALUE) throw SmeltException.of("llama2.c config", "vocab_size %d is out of range", vocab);
        return new Llama2Config(dim, hidden, layers, heads, kvHeads, Math.abs(vocab), seqLen, vocab > 0);
    }
}
