// SPDX-License-Identifier: Apache-2.0
package dev.smelt.models.llama;

import dev.smelt.ir.SmeltException;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/// llama2.c's `tokenizer.bin` and its byte-pair encoding: an int32 maximum token length, then per
/// token a float32 merge score, an int32 length and the token's bytes. Ids 0, 1 and 2 are
/// `<unk>`, `<s>` (BOS) and `</s>` (EOS); ids 3–258 are the bytes `<0x00>`–`<0xFF>`, which encode
/// what no token covers.
public final class Llama2Tokenizer {
    /// Beginning and end of sequence.
    public static final int BOS = 1, EOS = 2;
    private static final int BYTE_TOKENS = 3;

    private final byte[][] pieces;
    private final float[] scores;
    private final int maxTokenLength;
    private final Map<String, Integer> ids = new HashMap<>(); // pieces as ISO-8859-1 strings: one char per byte

    /// A tokenizer of `pieces` (the tokens' bytes) and their merge `scores`.
    public Llama2Tokenizer(List<byte[]> pieces, float[] scores) {
        if (pieces.size() != scores.length) throw SmeltException.of("llama2.c tokenizer", "%d pieces but %d scores", pieces.size(), scores.length);
        this.pieces = pieces.toArray(byte[][]::new);
        this.scores = scores.clone();
        int longest = 0;
        for (int id = 0; id < this.pieces.length; id++) {
            ids.putIfAbsent(key(this.pieces[id]), id);
            longest = Math.max(longest, this.pieces[id].length);
        }
        this.maxTokenLength = longest;
    }

    /// Reads `vocab` tokens from `file`. A file that cannot be read, is truncated or declares a
    /// length outside 0 to its maximum is a [SmeltException] naming the file (and the token).
    public static Llama2Tokenizer read(Path file, int vocab) {
        if (vocab <= 0) throw SmeltException.of("llama2.c tokenizer", "%s: the vocabulary size %d must be positive", file, vocab);
        ByteBuffer bytes;
        try {
            bytes = ByteBuffer.wrap(Files.readAllBytes(file)).order(ByteOrder.LITTLE_ENDIAN);
        } catch (IOException e) {
            throw Llama2Checkpoint.failure("llama2.c tokenizer", file, e);
        }
        // Each token takes 8 bytes or more: a count the file cannot hold is refused before its scores are allocated.
        if ((bytes.remaining() - Integer.BYTES) / 8 < vocab)
            throw SmeltException.of("llama2.c tokenizer", "%s is truncated: its %d bytes cannot hold %d tokens (a 4-byte header, then 8 bytes or more each)", file, bytes.capacity(), vocab);
        var pieces = new ArrayList<byte[]>();
        float[] scores = new float[vocab];
        try {
            int maxLength = bytes.getInt();
            for (int id = 0; id < vocab; id++) {
                scores[id] = bytes.getFloat();
                pieces.add(piece(file, bytes, id, maxLength));
            }
        } catch (BufferUnderflowException e) {
            throw SmeltException.of("llama2.c tokenizer", "%s is truncated: it holds %d of the %d tokens", file, pieces.size(), vocab);
        }
        return new Llama2Tokenizer(pieces, scores);
    }

    // Token `id`'s bytes, their length checked against what the file has left before they are allocated.
    private static byte[] piece(Path file, ByteBuffer bytes, int id, int maxLength) {
        int length = bytes.getInt();
        if (length < 0 || length > maxLength)
            throw SmeltException.of("llama2.c tokenizer", "%s: token %d has length %d; expected 0..%d (the file's maximum)", file, id, length, maxLength);
        if (length > bytes.remaining())
            throw SmeltException.of("llama2.c tokenizer", "%s is truncated: token %d has length %d, but %d bytes remain", file, id, length, bytes.remaining());
        byte[] piece = new byte[length];
        bytes.get(piece);
        return piece;
    }

    /// Writes this tokenizer in llama2.c's format.
    public void write(Path file) {
        var out = new ByteArrayOutputStream();
        var header = ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN).putInt(maxTokenLength);
        out.writeBytes(header.array());
        for (int id = 0; id < pieces.length; id++) {
            out.writeBytes(ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN).putFloat(scores[id]).putInt(pieces[id].length).array());
            out.writeBytes(pieces[id]);
        }
        try {
            Files.write(file, out.toByteArray());
        } catch (IOException e) {
            throw Llama2Checkpoint.failure("llama2.c tokenizer", file, e);
        }
    }

    /// A toy vocabulary in llama2.c's layout, for tests and benchmarks: the three special tokens, the
    /// 256 byte tokens, then `merges` scored by position (earlier merges higher, as SentencePiece
    /// ranks them).
    public static Llama2Tokenizer toy(List<String> merges) {
        var pieces = new ArrayList<byte[]>(List.of(utf8("<unk>"), utf8("\n<s>\n"), utf8("\n</s>\n")));
        for (int b = 0; b < 256; b++) pieces.add(utf8("<0x%02X>".formatted(b)));
        for (String merge : merges) pieces.add(utf8(merge));
        float[] scores = new float[pieces.size()];
        for (int i = 0; i < merges.size(); i++) scores[BYTE_TOKENS + 256 + i] = -i;
        return new Llama2Tokenizer(pieces, scores);
    }

    /// Tokens in the vocabulary.
    public int size() { return pieces.length; }

    /// llama2.c's `encode`: a space in front of non-empty text, each UTF-8 character as its token
    /// (or its bytes' tokens), then repeatedly the adjacent pair whose concatenation is the
    /// highest-scoring token merged, until no pair is a token. An unpaired surrogate, or a character
    /// with no token when the vocabulary has no byte tokens (fewer than 259), is a [SmeltException].
    public int[] encode(String text, boolean bos, boolean eos) {
        var tokens = new ArrayList<Integer>();
        int missing = bos && pieces.length <= BOS ? BOS : eos && pieces.length <= EOS ? EOS : -1;  // llama2.c's ids: 0 <unk>, 1 <s>, 2 </s>
        if (missing >= 0)
            throw SmeltException.of("llama2.c tokenizer", "a vocabulary of %d pieces has no %s token (id %d)", pieces.length, missing == BOS ? "<s>" : "</s>", missing);
        if (bos) tokens.add(BOS);
        if (!text.isEmpty()) {
            Integer space = ids.get(" ");
            if (space != null) tokens.add(space);
        }
        for (int at = 0; at < text.length(); at += Character.charCount(text.codePointAt(at))) addCharacter(tokens, text, at);
        merge(tokens);
        if (eos) tokens.add(EOS);
        return tokens.stream().mapToInt(Integer::intValue).toArray();
    }

    // The character at `at` as its token, or its UTF-8 bytes as theirs (ids 3–258, which run.c
    // assumes every vocabulary has).
    private void addCharacter(List<Integer> tokens, String text, int at) {
        int codePoint = text.codePointAt(at);
        // UTF-8 has no encoding for a lone surrogate: String.getBytes would write '?' in its place.
        if (Character.getType(codePoint) == Character.SURROGATE)
            throw SmeltException.of("llama2.c tokenizer", "the text has an unpaired surrogate at index %d (\\u%04X); it is not Unicode", at, codePoint);
        byte[] bytes = new String(Character.toChars(codePoint)).getBytes(StandardCharsets.UTF_8);
        Integer id = ids.get(key(bytes));
        if (id != null) tokens.add(id);
        else if (pieces.length < BYTE_TOKENS + 256)
            throw SmeltException.of("llama2.c tokenizer", "character U+%04X '%s' at index %d has no token, and the vocabulary of %d has no byte-fallback pieces (ids 3–258) to spell its bytes",
                    codePoint, Character.toString(codePoint), at, pieces.length);
        else for (byte b : bytes) tokens.add((b & 0xFF) + BYTE_TOKENS);
    }

    // Merges the best-scoring adjacent pair until no pair is a token.
    private void merge(List<Integer> tokens) {
        while (true) {
            float best = Float.NEGATIVE_INFINITY;
            int bestId = -1, bestAt = -1;
            for (int i = 0; i + 1 < tokens.size(); i++) { // from BOS on, as llama2.c (no piece starts with its bytes)
                Integer merged = ids.get(key(pieces[tokens.get(i)]) + key(pieces[tokens.get(i + 1)]));
                if (merged != null && scores[merged] > best) {
                    best = scores[merged];
                    bestId = merged;
                    bestAt = i;
                }
            }
            if (bestAt < 0) return;
            tokens.set(bestAt, bestId);
            tokens.remove(bestAt + 1);
        }
    }

    /// llama2.c's `decode`: the token's bytes, without the leading space after BOS, and `<0xXX>` as
    /// the byte it names. Bytes, because a character may span tokens.
    public byte[] decode(int previous, int token) {
        if (token < 0 || token >= pieces.length) throw SmeltException.of("llama2.c tokenizer", "token %d is out of range; expected 0..%d", token, pieces.length - 1);
        byte[] piece = pieces[token];
        if (previous == BOS && piece.length > 0 && piece[0] == ' ') return java.util.Arrays.copyOfRange(piece, 1, piece.length);
        String text = key(piece);
        if (text.matches("<0x[0-9A-F]{2}>")) return new byte[] {(byte) Integer.parseInt(text.substring(3, 5), 16)};
        return piece.clone();
    }

    /// `tokens` decoded and joined as UTF-8 text (BOS and EOS print nothing).
    public String decode(int[] tokens) {
        var out = new ByteArrayOutputStream();
        for (int i = 0; i < tokens.length; i++)
            if (tokens[i] != BOS && tokens[i] != EOS) out.writeBytes(decode(i == 0 ? -1 : tokens[i - 1], tokens[i]));
        return out.toString(StandardCharsets.UTF_8);
    }

    private static String key(byte[] bytes) { return new String(bytes, StandardCharsets.ISO_8859_1); }

    private static byte[] utf8(String text) { return text.getBytes(StandardCharsets.UTF_8); }
}
