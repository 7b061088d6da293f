// SPDX-License-Identifier: Apache-2.0
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/// Rewrites a legacy (version 0) llama2.c checkpoint as the version-2 Q8_0 file that llama2.c's
/// runq.c reads (export.py's `version2_export`: a 256-byte header, the norms in f32, then each
/// matrix as its int8 values and its groups' f32 scales), in groups of 32 as Smelt's `INT8`, so
/// that run-llama2c.sh can time runq.c on the checkpoint Smelt decodes:
/// `java ToQ8.java model.bin model-q8.bin`. Each group's scale is max|w| / 127, as in export.py and
/// Smelt's `WeightFormat.INT8`; values round half away from zero (the file is for timing, so ties
/// need not match either).
public class ToQ8 {
    static final int GROUP = 32, HEADER = 28;
    static final ValueLayout.OfFloat F = ValueLayout.JAVA_FLOAT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    static final ValueLayout.OfInt I = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    public static void main(String[] args) throws IOException {
        try (var arena = Arena.ofConfined(); var channel = FileChannel.open(Path.of(args[0]), StandardOpenOption.READ);
             OutputStream out = new BufferedOutputStream(Files.newOutputStream(Path.of(args[1])), 1 << 20)) {
            MemorySegment in = channel.map(FileChannel.MapMode.READ_ONLY, 0, channel.size(), arena);
            int dim = in.get(I, 0), hidden = in.get(I, 4), layers = in.get(I, 8), heads = in.get(I, 12), kvHeads = in.get(I, 16), vocab = in.get(I, 20), seq = in.get(I, 24);
            boolean shared = vocab > 0;
            vocab = Math.abs(vocab);
            long kv = (long) dim * kvHeads / heads, headSize = dim / heads;
            if (dim % GROUP != 0 || hidden % GROUP != 0) throw new IllegalArgumentException("dim " + dim + " and hidden " + hidden + " must be multiples of " + GROUP);

            var header = ByteBuffer.allocate(256).order(ByteOrder.LITTLE_ENDIAN);
            header.putInt(0x616b3432).putInt(2);
            for (int v : new int[] {dim, hidden, layers, heads, kvHeads, vocab, seq}) header.putInt(v);
            header.put((byte) (shared ? 1 : 0)).putInt(GROUP);
            out.write(header.array());

            long at = HEADER; // offsets of the legacy file's tensors, in its order
            long embedding = at; at += 4L * vocab * dim;
            long rmsAtt = at; at += 4L * layers * dim;
            long wq = at; at += 4L * layers * dim * dim;
            long wk = at; at += 4L * layers * kv * dim;
            long wv = at; at += 4L * layers * kv * dim;
            long wo = at; at += 4L * layers * dim * dim;
            long rmsFfn = at; at += 4L * layers * dim;
            long w1 = at; at += 4L * layers * hidden * dim;
            long w2 = at; at += 4L * layers * dim * hidden;
            long w3 = at; at += 4L * layers * hidden * dim;
            long rmsFinal = at; at += 4L * dim;
            at += 4L * seq * headSize; // the two RoPE tables
            long classifier = at; at += shared ? 0 : 4L * vocab * dim;
            if (at != in.byteSize()) throw new IllegalArgumentException(args[0] + ": " + in.byteSize() + " bytes, the header implies " + at);

            copy(in, rmsAtt, layers * dim, out);
            copy(in, rmsFfn, layers * dim, out);
            copy(in, rmsFinal, dim, out);
            quantise(in, embedding, 1, (long) vocab * dim, out);
            quantise(in, wq, layers, (long) dim * dim, out);
            quantise(in, wk, layers, kv * dim, out);
            quantise(in, wv, layers, kv * dim, out);
            quantise(in, wo, layers, (long) dim * dim, out);
            quantise(in, w1, layers, (long) hidden * dim, out);
            quantise(in, w2, layers, (long) dim * hidden, out);
            quantise(in, w3, layers, (long) hidden * dim, out);
            if (!shared) quantise(in, classifier, 1, (long) vocab * dim, out);
        }
    }

    static void copy(MemorySegment in, long at, long count, OutputStream out) throws IOException {
        byte[] bytes = new byte[Math.toIntExact(4 * count)];
        MemorySegment.copy(in, at, MemorySegment.ofArray(bytes), 0, bytes.length);
        out.write(bytes);
    }

    // Each of `count` matrices of `size` floats: its int8 values, then its scales (runq.c's init_quantized_tensors).
    static void quantise(MemorySegment in, long at, int count, long size, OutputStream out) throws IOException {
        for (int m = 0; m < count; m++, at += 4 * size) {
            int groups = Math.toIntExact(size / GROUP);
            byte[] q = new byte[Math.toIntExact(size)];
            var scales = ByteBuffer.allocate(4 * groups).order(ByteOrder.LITTLE_ENDIAN);
            for (int g = 0; g < groups; g++) {
                float max = 0;
                for (int k = 0; k < GROUP; k++) max = Math.max(max, Math.abs(in.get(F, at + 4L * (g * GROUP + k))));
                float scale = max / 127f;
                for (int k = 0; k < GROUP; k++) {
                    float w = in.get(F, at + 4L * (g * GROUP + k));
                    q[g * GROUP + k] = (byte) (scale == 0 ? 0 : Math.round(Math.abs(w / scale)) * (int) Math.signum(w));
                }
                scales.putFloat(scale);
            }
            out.write(q);
            out.write(scales.array());
        }
    }
}
