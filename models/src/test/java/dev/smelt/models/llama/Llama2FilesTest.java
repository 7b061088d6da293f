// SPDX-License-Identifier: Apache-2.0
package dev.smelt.models.llama;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.smelt.Generator;
import dev.smelt.Tensor;
import dev.smelt.ir.SmeltException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/// llama2.c checkpoints and tokenizers: written, read back in llama2.c's layout (checked against
/// offsets computed here from the format's description), and malformed files refused.
class Llama2FilesTest {
    @TempDir Path directory;

    @Test
    void aCheckpointReadsBackInLlama2cLayout() throws IOException {
        for (boolean shared : new boolean[] {true, false}) {
            var config = new Llama2Config(16, 40, 2, 4, 2, 50, 12, shared);
            Path file = directory.resolve("model-" + shared + ".bin");
            Llama2Checkpoint.writeRandom(file, config, new Generator(3));
            assertEquals(config.fileBytes(), Files.size(file));
            var checkpoint = Llama2Checkpoint.read(file);
            assertEquals(config, checkpoint.config());
            ByteBuffer raw = ByteBuffer.wrap(Files.readAllBytes(file)).order(ByteOrder.LITTLE_ENDIAN);
            int dim = 16, kv = 8, hidden = 40, layers = 2;
            long at = 28; // the header, then each tensor in order, by hand
            at = expect(raw, at, checkpoint.tokenEmbedding().toFloatArray(), 50 * dim);
            at += layers * (long) dim * 4; // rms_att of both layers
            at += (long) dim * dim * 4; // wq of layer 0
            at = expect(raw, at, checkpoint.layers().get(1).wq().toFloatArray(), dim * dim);
            at += layers * (long) kv * dim * 4 * 2 + layers * (long) dim * dim * 4 + layers * (long) dim * 4 + layers * (long) hidden * dim * 4; // wk, wv, wo, rms_ffn, w1
            at = expect(raw, at, checkpoint.layers().get(0).w2().toFloatArray(), dim * hidden);
            // every matrix of every layer
            long matrices = 28 + 50L * dim * 4 + layers * (long) dim * 4;
            int[][] shapes = {{dim, dim}, {kv, dim}, {kv, dim}, {dim, dim}, {hidden, dim}, {dim, hidden}, {hidden, dim}};
            for (int m = 0; m < shapes.length; m++) {
                int size = shapes[m][0] * shapes[m][1];
                for (int l = 0; l < layers; l++) {
                    var layer = checkpoint.layers().get(l);
                    Tensor matrix = List.of(layer.wq(), layer.wk(), layer.wv(), layer.wo(), layer.w1(), layer.w2(), layer.w3()).get(m);
                    assertEquals(List.of(shapes[m][0], shapes[m][1]), matrix.shape().dims());
                    expect(raw, matrices + (long) l * size * 4, matrix.toFloatArray(), size);
                }
                matrices += layers * (long) size * 4 + (m == 3 ? layers * (long) dim * 4 : 0); // rms_ffn follows wo
            }
            assertEquals(List.of(kv, dim), checkpoint.layers().get(1).wk().shape().dims());
            assertEquals(List.of(dim, hidden), checkpoint.layers().get(1).w2().shape().dims());
            assertEquals(1f, checkpoint.rmsFinal().toFloatArray()[dim - 1]);
            if (shared) assertSame(checkpoint.tokenEmbedding(), checkpoint.classifier());
            else {
                long classifier = config.fileBytes() - 50L * dim * 4;
                expect(raw, classifier, checkpoint.classifier().toFloatArray(), 50 * dim);
            }
        }
    }

    /// The published checkpoints' sizes: stories15M.bin is 60,816,028 bytes, stories110M.bin 438,381,596.
    @Test
    void thePublishedShapesHaveTheirFileSizes() {
        assertEquals(60_816_028L, Llama2Config.STORIES_15M.fileBytes());
        assertEquals(438_381_596L, Llama2Config.STORIES_110M.fileBytes());
    }

    @Test
    void malformedCheckpointsAreRefused() throws IOException {
        var config = new Llama2Config(8, 16, 1, 2, 2, 10, 4, true);
        Path good = directory.resolve("good.bin");
        Llama2Checkpoint.writeRandom(good, config, new Generator(1));
        byte[] bytes = Files.readAllBytes(good);
        assertMessage("truncated", write("short.bin", Arrays.copyOf(bytes, bytes.length - 4)));
        assertMessage("extra bytes", write("long.bin", Arrays.copyOf(bytes, bytes.length + 4)));
        assertMessage("fewer than the 28 of the header", write("tiny.bin", new byte[10]));
        byte[] negative = bytes.clone();
        ByteBuffer.wrap(negative).order(ByteOrder.LITTLE_ENDIAN).putInt(0, -8);
        assertMessage("every size must be positive", write("negative.bin", negative));
        byte[] heads = bytes.clone();
        ByteBuffer.wrap(heads).order(ByteOrder.LITTLE_ENDIAN).putInt(12, 3);
        assertMessage("dim 8 is not a multiple of n_heads 3", write("heads.bin", heads));
    }

    @Test
    void tokenizerEncodesAsLlama2c() {
        var tokenizer = Llama2Tokenizer.toy(List.of(" ", "he", "ll", "hell", "hello", " hello", "o", "h", "e", "l", "é"));
        Path file = directory.resolve("tokenizer.bin");
        tokenizer.write(file);
        var read = Llama2Tokenizer.read(file, tokenizer.size());
        int[] tokens = read.encode("hello", true, true);
        int base = 3 + 256;
        assertArrayEquals(new int[] {Llama2Tokenizer.BOS, base + 5, Llama2Tokenizer.EOS}, tokens); // " " h e l l o merged up to " hello"
        assertEquals("hello", read.decode(tokens)); // the leading space after BOS is dropped
        int[] fallback = read.encode("hé→", false, false); // → is no token: its three UTF-8 bytes
        assertEquals(3 + 0xE2, fallback[fallback.length - 3]);
        assertEquals(" hé→", read.decode(fallback));
        assertArrayEquals(new int[0], read.encode("", false, false));
    }

    @Test
    void malformedTokenizersAreRefused() throws IOException {
        var tokenizer = Llama2Tokenizer.toy(List.of("ab", "abc"));
        Path file = directory.resolve("t.bin");
        tokenizer.write(file);
        byte[] bytes = Files.readAllBytes(file);
        Path truncated = write("t-short.bin", Arrays.copyOf(bytes, bytes.length - 2));
        var e = assertThrows(SmeltException.class, () -> Llama2Tokenizer.read(truncated, tokenizer.size()));
        assertTrue(e.getMessage().contains("is truncated"), e.getMessage());
        byte[] negative = bytes.clone();
        ByteBuffer.wrap(negative).order(ByteOrder.LITTLE_ENDIAN).putInt(8, -5); // the first token's length
        Path bad = write("t-negative.bin", negative);
        e = assertThrows(SmeltException.class, () -> Llama2Tokenizer.read(bad, tokenizer.size()));
        assertTrue(e.getMessage().contains("token 0 has length -5"), e.getMessage());
        assertThrows(SmeltException.class, () -> tokenizer.decode(0, tokenizer.size()));
    }

    /// A length or a token count the file cannot hold is refused before anything that size is allocated.
    @Test
    void impossibleTokenizerLengthsAreRefusedBeforeAllocating() throws IOException {
        Path huge = write("t-huge.bin", ByteBuffer.allocate(12).order(ByteOrder.LITTLE_ENDIAN).putInt(Integer.MAX_VALUE).putFloat(0).putInt(Integer.MAX_VALUE).array());
        assertTokenizerMessage(huge, 1, huge + " is truncated: token 0 has length 2147483647");
        assertTokenizerMessage(huge, Integer.MAX_VALUE, huge + " is truncated");
        for (int vocab : new int[] {0, -1}) assertTokenizerMessage(huge, vocab, "vocabulary size " + vocab);
    }

    /// run.c assumes the 256 byte pieces at ids 3–258; a smaller vocabulary cannot spell what its
    /// pieces do not cover.
    @Test
    void byteFallbackNeedsTheBytePieces() {
        var pieces = new ArrayList<byte[]>();
        for (String piece : List.of("<unk>", "<s>", "</s>", " ", "a", "b", "ab")) pieces.add(piece.getBytes(StandardCharsets.UTF_8));
        var small = new Llama2Tokenizer(pieces, new float[] {0, 0, 0, 0, 0, 0, 1});
        assertArrayEquals(new int[] {Llama2Tokenizer.BOS, 3, 6}, small.encode("ab", true, false));
        var e = assertThrows(SmeltException.class, () -> small.encode("abz", true, false));
        assertTrue(e.getMessage().contains("'z' at index 2") && e.getMessage().contains("no byte-fallback pieces"), e.getMessage());
        var tiny = new Llama2Tokenizer(pieces.subList(0, 2), new float[2]);  // <unk> and <s>: no </s>
        assertArrayEquals(new int[] {Llama2Tokenizer.BOS}, tiny.encode("", true, false));
        var noEos = assertThrows(SmeltException.class, () -> tiny.encode("", true, true));
        assertTrue(noEos.getMessage().contains("a vocabulary of 2 pieces has no </s> token (id 2)"), noEos.getMessage());
    }

    /// Java strings may hold a lone surrogate, which UTF-8 would turn into '?'.
    @Test
    void unpairedSurrogatesAreRefused() {
        var tokenizer = Llama2Tokenizer.toy(List.of());
        assertEquals("x😀y", tokenizer.decode(tokenizer.encode("x😀y", false, false)));
        String[] texts = {"x\ud800y", "xy\udc00", "\udc00\ud800"}; // a high surrogate alone, a low one alone, a pair reversed
        int[] indexes = {1, 2, 0};
        for (int i = 0; i < texts.length; i++) {
            String text = texts[i];
            var e = assertThrows(SmeltException.class, () -> tokenizer.encode(text, true, false));
            assertTrue(e.getMessage().contains("unpaired surrogate at index " + indexes[i]), e.getMessage());
        }
    }

    @Test
    void unreadableFilesNameThePathAndTheReason() throws IOException {
        Path missing = directory.resolve("missing.bin");
        var e = assertThrows(SmeltException.class, () -> Llama2Checkpoint.read(missing));
        assertTrue(e.getMessage().contains(missing + ": no such file or directory"), e.getMessage());
        e = assertThrows(SmeltException.class, () -> Llama2Tokenizer.read(missing, 10));
        assertTrue(e.getMessage().contains(missing + ": no such file or directory"), e.getMessage());
        Path folder = Files.createDirectories(directory.resolve("folder"));
        e = assertThrows(SmeltException.class, () -> Llama2Checkpoint.read(folder));
        assertTrue(e.getMessage().contains(folder + ": is a directory"), e.getMessage());
        e = assertThrows(SmeltException.class, () -> Llama2Tokenizer.read(folder, 10));
        assertTrue(e.getMessage().contains(folder + ": java.io.IOException: Is a directory"), e.getMessage());
    }

    /// Sizes whose byte count overflows a long: wrapped round, it once matched the file's size.
    @Test
    void overflowingHeadersAreRefused() throws IOException {
        // hidden_dim 1431655762 makes a layer 2^33 floats; 2^29 layers of them, 4 bytes each, wrap round to 24 bytes after the header
        Path wraps = write("wraps.bin", header(24, 2, 1431655762, 1 << 29, 1, 1, 1, 1));
        assertMessage("more than", wraps);
        assertMessage("hidden_dim 1431655762", wraps);
        assertMessage("n_layers 1073741824", write("huge.bin", header(24, 1 << 30, 1 << 30, 1 << 30, 2, 2, 32000, 1 << 30)));
        assertThrows(SmeltException.class, () -> new Llama2Config(1 << 30, 1 << 30, 1 << 30, 2, 2, 32000, 1 << 30, true));
    }

    /// export.py's version 1 and 2 files start with the magic "ak42" and their version.
    @Test
    void newerExportsAreRefused() throws IOException {
        Path file = write("v2.bin", header(4000, 0x616b3432, 2, 16, 32, 2, 4, 2));
        assertMessage("version 2", file);
        assertMessage("only the legacy version-0 format", file);
    }

    private static byte[] header(int extra, int... values) {
        var buffer = ByteBuffer.allocate(values.length * 4 + extra).order(ByteOrder.LITTLE_ENDIAN);
        for (int value : values) buffer.putInt(value);
        return buffer.array();
    }

    private static void assertTokenizerMessage(Path file, int vocab, String part) {
        var e = assertThrows(SmeltException.class, () -> Llama2Tokenizer.read(file, vocab));
        assertTrue(e.getMessage().contains(part), e.getMessage());
    }

    private long expect(ByteBuffer raw, long at, float[] values, int count) {
        assertEquals(count, values.length);
        for (int i = 0; i < count; i++) assertEquals(raw.getFloat((int) at + 4 * i), values[i], "float " + i + " at byte " + at);
        return at + 4L * count;
    }

    private Path write(String name, byte[] bytes) throws IOException {
        return Files.write(directory.resolve(name), bytes);
    }

    private static void assertMessage(String part, Path file) {
        var e = assertThrows(SmeltException.class, () -> Llama2Checkpoint.read(file));
        assertTrue(e.getMessage().contains(part) && e.getMessage().contains(file.toString()), e.getMessage());
    }
}
