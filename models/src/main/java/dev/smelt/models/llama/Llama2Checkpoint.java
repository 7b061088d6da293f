// SPDX-License-Identifier: Apache-2.0
package dev.smelt.models.llama;

import dev.smelt.Generator;
import dev.smelt.Tensor;
import dev.smelt.WeightFormat;
import dev.smelt.ir.SmeltException;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;

/// A llama2.c checkpoint (legacy version 0): [Llama2Config]'s header, then float32 weights in this
/// order: token embedding [vocab, dim], rms_att [L, dim], wq [L, dim, dim], wk and wv [L, kv_dim,
/// dim], wo [L, dim, dim], rms_ffn [L, dim], w1 [L, hidden, dim], w2 [L, dim, hidden], w3 [L,
/// hidden, dim], rms_final [dim], two legacy RoPE tables (skipped), and the classifier [vocab, dim]
/// when it is not shared. Matrices are [out, in], as llama2.c's `matmul(xout, x, w, n, d)` reads them.
///
/// @param config the header
/// @param tokenEmbedding [vocab, dim]
/// @param layers one per transformer block
/// @param rmsFinal [dim]
/// @param classifier [vocab, dim]; the token embedding itself when shared and read as f32
public record Llama2Checkpoint(Llama2Config config, Tensor tokenEmbedding, List<Layer> layers, Tensor rmsFinal, Tensor classifier) {
    /// One transformer block's weights.
    ///
    /// @param rmsAttention [dim]
    /// @param wq [dim, dim]
    /// @param wk [kvDim, dim]
    /// @param wv [kvDim, dim]
    /// @param wo [dim, dim]
    /// @param rmsFeedForward [dim]
    /// @param w1 [hidden, dim]
    /// @param w2 [dim, hidden]
    /// @param w3 [hidden, dim]
    public record Layer(Tensor rmsAttention, Tensor wq, Tensor wk, Tensor wv, Tensor wo, Tensor rmsFeedForward, Tensor w1, Tensor w2, Tensor w3) {}

    /// Reads `file`, memory-mapped: its size must be what the header implies, else a
    /// [SmeltException] says what it is and what was expected, and nothing is returned. A file that
    /// cannot be read is a [SmeltException] too, naming it and the reason.
    public static Llama2Checkpoint read(Path file) { return read(file, WeightFormat.F32); }

    /// Reads `file` as [#read(Path)] does, converting each weight matrix the model multiplies by
    /// (wq, wk, wv, wo, w1, w2, w3 and the classifier) to `format` as it is read
    /// ([dev.smelt.TensorFormats#toWeightFormat]); the embedding and the norms stay `f32`. A shared
    /// classifier becomes a converted copy of the embedding.
    public static Llama2Checkpoint read(Path file, WeightFormat format) {
        if (format == null) throw SmeltException.of("llama2.c checkpoint", "the weight format is null; expected F32, BF16 or INT8");
        // A directory opens, and its size is a block's, so only the map would fail, as "No such device".
        if (Files.isDirectory(file)) throw SmeltException.of("llama2.c checkpoint", "%s: is a directory", file);
        try (var channel = FileChannel.open(file, StandardOpenOption.READ); var arena = Arena.ofConfined()) {
            long size = channel.size();
            if (size < Llama2Config.HEADER_BYTES)
                throw SmeltException.of("llama2.c checkpoint", "%s has %d bytes, fewer than the %d of the header", file, size, Llama2Config.HEADER_BYTES);
            MemorySegment mapped = channel.map(FileChannel.MapMode.READ_ONLY, 0, size, arena);
            Llama2Config config = Llama2Config.parse(file, mapped.asSlice(0, Llama2Config.HEADER_BYTES).asByteBuffer());
            if (size != config.fileBytes())
                throw SmeltException.of("llama2.c checkpoint", "%s has %d bytes, but its header (%s) needs %d%s", file, size, config, config.fileBytes(),
                        size < config.fileBytes() ? ": truncated" : ": extra bytes at the end");
            return new Reader(mapped, config, format).checkpoint();
        } catch (IOException e) {
            throw failure("llama2.c checkpoint", file, e);
        }
    }

    /// Writes a checkpoint of `config`'s shape with random weights (normal, standard deviation 0.02;
    /// norms 1), reproducible from `generator`, for tests and benchmarks.
    public static void writeRandom(Path file, Llama2Config config, Generator generator) {
        try (var channel = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.TRUNCATE_EXISTING, StandardOpenOption.WRITE)) {
            channel.write(ByteBuffer.wrap(config.header()));
            int dim = config.dim(), hidden = config.hiddenDim(), layers = config.layers(), kv = config.kvDim();
            writeRandom(channel, generator, (long) config.vocab() * dim);
            writeOnes(channel, (long) layers * dim);
            for (long count : new long[] {(long) dim * dim, (long) kv * dim, (long) kv * dim, (long) dim * dim}) writeRandom(channel, generator, layers * count);
            writeOnes(channel, (long) layers * dim);
            for (int w = 0; w < 3; w++) writeRandom(channel, generator, (long) layers * hidden * dim);
            writeOnes(channel, dim);
            writeRope(channel, config);
            if (!config.sharedClassifier()) writeRandom(channel, generator, (long) config.vocab() * dim);
        } catch (IOException e) {
            throw failure("llama2.c checkpoint", file, e);
        }
    }

    /// An I/O error on `file` as `op`'s error, worded as `SafeTensors` and `Npy` word theirs.
    static SmeltException failure(String op, Path file, IOException cause) {
        String detail = cause instanceof NoSuchFileException ? "no such file or directory" : cause.toString();
        var error = SmeltException.of(op, "%s: %s", file, detail);
        error.initCause(cause);
        return error;
    }

    // Tensors read in file order from the mapped segment (copied into the heap: Smelt's storage is arrays).
    private static final class Reader {
        private final MemorySegment mapped;
        private final Llama2Config config;
        private final WeightFormat format;
        private long at = Llama2Config.HEADER_BYTES;

        Reader(MemorySegment mapped, Llama2Config config, WeightFormat format) {
            this.mapped = mapped;
            this.config = config;
            this.format = format;
        }

        Llama2Checkpoint checkpoint() {
            int dim = config.dim(), hidden = config.hiddenDim(), kv = config.kvDim(), count = config.layers();
            Tensor embedding = next(config.vocab(), dim);
            List<Tensor> rmsAtt = nextPerLayer(dim), wq = nextPerLayer(dim, dim), wk = nextPerLayer(kv, dim), wv = nextPerLayer(kv, dim), wo = nextPerLayer(dim, dim);
            List<Tensor> rmsFfn = nextPerLayer(dim), w1 = nextPerLayer(hidden, dim), w2 = nextPerLayer(dim, hidden), w3 = nextPerLayer(hidden, dim);
            Tensor rmsFinal = next(dim);
            at += (long) config.seqLen() * config.headSize() * Float.BYTES; // the legacy RoPE tables: the model computes its own
            Tensor classifier = (config.sharedClassifier() ? embedding : next(config.vocab(), dim)).toWeightFormat(format);
            var layers = new ArrayList<Layer>();
            for (int l = 0; l < count; l++)
                layers.add(new Layer(rmsAtt.get(l), wq.get(l), wk.get(l), wv.get(l), wo.get(l), rmsFfn.get(l), w1.get(l), w2.get(l), w3.get(l)));
            return new Llama2Checkpoint(config, embedding, List.copyOf(layers), rmsFinal, classifier);
        }

        // A matrix ([out, in]) converted to the format as soon as it is read, so that one f32 copy at a time is alive.
        private List<Tensor> nextPerLayer(int... shape) {
            var tensors = new ArrayList<Tensor>();
            for (int l = 0; l < config.layers(); l++) tensors.add(shape.length == 2 ? next(shape).toWeightFormat(format) : next(shape));
            return tensors;
        }

        private Tensor next(int... shape) {
            long count = 1;
            for (int d : shape) count *= d;
            if (count > Tensor.MAX_SIZE) throw SmeltException.of("llama2.c checkpoint", "a tensor of shape %s is larger than Smelt's limit of %d elements", java.util.Arrays.toString(shape), Tensor.MAX_SIZE);
            float[] values = mapped.asSlice(at, count * Float.BYTES).toArray(ValueLayout.JAVA_FLOAT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN));
            at += count * Float.BYTES;
            return Tensor.of(values, shape);
        }
    }

    private static final int CHUNK = 1 << 16;

    private static void writeRandom(FileChannel channel, Generator generator, long count) throws IOException {
        for (long done = 0; done < count; done += CHUNK) {
            int n = (int) Math.min(CHUNK, count - done);
            write(channel, Tensor.randn(generator, n).mul(0.02).toFloatArray());
        }
    }

    private static void writeOnes(FileChannel channel, long count) throws IOException {
        float[] ones = new float[(int) Math.min(CHUNK, count)];
        java.util.Arrays.fill(ones, 1f);
        for (long done = 0; done < count; done += ones.length) write(channel, java.util.Arrays.copyOf(ones, (int) Math.min(ones.length, count - done)));
    }

    // llama2.c's legacy tables, freq_cis_real then freq_cis_imag: cos and sin of pos · 10000^(−2i/head_size).
    private static void writeRope(FileChannel channel, Llama2Config config) throws IOException {
        int half = config.headSize() / 2;
        float[] real = new float[config.seqLen() * half], imaginary = new float[real.length];
        for (int pos = 0; pos < config.seqLen(); pos++)
            for (int i = 0; i < half; i++) {
                double angle = pos * Math.pow(10000, -2.0 * i / config.headSize());
                real[pos * half + i] = (float) Math.cos(angle);
                imaginary[pos * half + i] = (float) Math.sin(angle);
            }
        write(channel, real);
        write(channel, imaginary);
    }

    private static void write(FileChannel channel, float[] values) throws IOException {
        var buffer = ByteBuffer.allocate(values.length * Float.BYTES).order(ByteOrder.LITTLE_ENDIAN);
        buffer.asFloatBuffer().put(values);
        while (buffer.hasRemaining()) channel.write(buffer);
    }
}
