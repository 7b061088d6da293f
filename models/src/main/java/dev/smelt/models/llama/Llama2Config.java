// SPDX-License-Identifier: Apache-2.0
package dev.smelt.models.llama;

import static java.lang.Math.addExact;
import static java.lang.Math.multiplyExact;

import dev.smelt.ir.SmeltException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.util.Optional;

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
    /// The uint32 that starts export.py's version 1 and 2 files, "ak42"; a legacy file starts with `dim`.
    static final int MAGIC = 0x616b3432;

    /// The stories15M shape: 288, 768, 6 layers, 6 heads, 6 kv heads, 32,000 tokens, 256 positions.
    public static final Llama2Config STORIES_15M = new Llama2Config(288, 768, 6, 6, 6, 32000, 256, true);
    /// The stories110M shape: 768, 2048, 12 layers, 12 heads, 12 kv heads, 32,000 tokens, 1,024 positions.
    public static final Llama2Config STORIES_110M = new Llama2Config(768, 2048, 12, 12, 12, 32000, 1024, true);

    public Llama2Config {
        var problem = problem(dim, hiddenDim, layers, heads, kvHeads, vocab, seqLen, sharedClassifier);
        if (problem.isPresent()) throw SmeltException.of("llama2.c config", "%s", problem.get());
    }

    // What makes these sizes no model, in the header's field names (export.py's), if anything.
    private static Optional<String> problem(int dim, int hiddenDim, int layers, int heads, int kvHeads, int vocab, int seqLen, boolean shared) {
        String fields = "dim %d, hidden_dim %d, n_layers %d, n_heads %d, n_kv_heads %d, vocab_size %d, seq_len %d".formatted(dim, hiddenDim, layers, heads, kvHeads, vocab, seqLen);
        if (dim <= 0 || hiddenDim <= 0 || layers <= 0 || heads <= 0 || kvHeads <= 0 || vocab <= 0 || seqLen <= 0)
            return Optional.of("every size must be positive: " + fields);
        if (dim % heads != 0) return Optional.of("dim %d is not a multiple of n_heads %d".formatted(dim, heads));
        if (heads % kvHeads != 0) return Optional.of("n_heads %d is not a multiple of n_kv_heads %d".formatted(heads, kvHeads));
        if ((dim / heads) % 2 != 0) return Optional.of("head size %d is odd; rotary embeddings rotate pairs".formatted(dim / heads));
        try {
            fileBytes(dim, hiddenDim, layers, heads, kvHeads, vocab, seqLen, shared);
        } catch (ArithmeticException e) {
            return Optional.of("%s describe a file of more than %d bytes".formatted(fields, Long.MAX_VALUE));
        }
        return Optional.empty();
    }

    /// Features per head.
    public int headSize() { return dim / heads; }

    /// Width of the keys and values: `dim · kvHeads / heads`.
    public int kvDim() { return dim / heads * kvHeads; }

    /// Floats after the header: the weights in llama2.c's order, the two legacy RoPE tables, and the
    /// classifier when it is not shared.
    public long floats() { return floats(dim, hiddenDim, layers, heads, kvHeads, vocab, seqLen, sharedClassifier); }

    /// The file size a checkpoint of this shape has.
    public long fileBytes() { return fileBytes(dim, hiddenDim, layers, heads, kvHeads, vocab, seqLen, sharedClassifier); }

    // Exact: seven int32 can describe more than a long counts, and a count that wrapped round could
    // equal any file's size. The constructor refuses such sizes, so only `problem` sees the exception.
    private static long floats(int dim, int hiddenDim, int layers, int heads, int kvHeads, int vocab, int seqLen, boolean shared) {
        long kvDim = (long) dim / heads * kvHeads, embedding = multiplyExact((long) vocab, dim);
        long perLayer = sum(2L * dim, multiplyExact(2L * dim, dim), multiplyExact(2 * kvDim, dim), multiplyExact(3L * hiddenDim, dim));
        return sum(embedding, multiplyExact(layers, perLayer), dim, multiplyExact((long) seqLen, dim / heads), shared ? 0 : embedding);
    }

    private static long fileBytes(int dim, int hiddenDim, int layers, int heads, int kvHeads, int vocab, int seqLen, boolean shared) {
        return addExact(HEADER_BYTES, multiplyExact(floats(dim, hiddenDim, layers, heads, kvHeads, vocab, seqLen, shared), Float.BYTES));
    }

    private static long sum(long... terms) {
        long sum = 0;
        for (long term : terms) sum = addExact(sum, term);
        return sum;
    }

    /// The header's bytes.
    byte[] header() {
        var buffer = ByteBuffer.allocate(HEADER_BYTES).order(ByteOrder.LITTLE_ENDIAN);
        for (int value : new int[] {dim, hiddenDim, layers, heads, kvHeads, sharedClassifier ? vocab : -vocab, seqLen}) buffer.putInt(value);
        return buffer.array();
    }

    /// The header in `bytes` (little-endian) of `file`, checked; its errors name the file.
    static Llama2Config parse(Path file, ByteBuffer bytes) {
        bytes.order(ByteOrder.LITTLE_ENDIAN);
        if (bytes.getInt(0) == MAGIC)
            throw SmeltException.of("llama2.c checkpoint", "%s is a version %d export (it starts with the magic 0x616b3432, \"ak42\"); only the legacy version-0 format is read (export.py --version 0)",
                    file, bytes.getInt(Integer.BYTES));
        int dim = bytes.getInt(), hidden = bytes.getInt(), layers = bytes.getInt(), heads = bytes.getInt(), kvHeads = bytes.getInt(), vocab = bytes.getInt(), seqLen = bytes.getInt();
        if (vocab == Integer.MIN_VALUE) throw SmeltException.of("llama2.c checkpoint", "%s: vocab_size %d is out of range", file, vocab);
        var problem = problem(dim, hidden, layers, heads, kvHeads, Math.abs(vocab), seqLen, vocab > 0);
        if (problem.isPresent()) throw SmeltException.of("llama2.c checkpoint", "%s: %s", file, problem.get());
        return new Llama2Config(dim, hidden, layers, heads, kvHeads, Math.abs(vocab), seqLen, vocab > 0);
    }
}
