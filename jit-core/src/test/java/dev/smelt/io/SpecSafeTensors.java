// SPDX-License-Identifier: Apache-2.0
package dev.smelt.io;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/// A safetensors writer and reader written from the format's spec alone, sharing no code with
/// `SafeTensorsFile`, so each side of the round trip is checked against the other's reading of
/// the spec. Tensors are raw little-endian bytes here; the tests compare those bytes.
final class SpecSafeTensors {
    private SpecSafeTensors() {}

    /// A tensor as the spec describes it: a dtype name, a shape and its little-endian bytes.
    record Raw(String dtype, long[] shape, byte[] bytes) {}

    /// Writes `tensors` with their header entries in reverse order of their data (the spec does
    /// not tie the two), keys inside each entry in a different order from Smelt's writer, padding
    /// of `padding` spaces, and `metadata` last.
    static void write(Path path, Map<String, Raw> tensors, Map<String, String> metadata, int padding) throws IOException {
        var entries = new ArrayList<String>();
        long offset = 0;
        for (var tensor : tensors.entrySet()) {
            Raw raw = tensor.getValue();
            var shape = new StringBuilder();
            for (long dim : raw.shape()) shape.append(shape.isEmpty() ? "" : ", ").append(dim);
            entries.addFirst("\"%s\" : { \"data_offsets\" : [%d, %d], \"dtype\" : \"%s\", \"shape\" : [%s] }"
                    .formatted(tensor.getKey(), offset, offset + raw.bytes().length, raw.dtype(), shape));
            offset += raw.bytes().length;
        }
        if (!metadata.isEmpty()) {
            var pairs = new ArrayList<String>();
            metadata.forEach((key, value) -> pairs.add("\"%s\": \"%s\"".formatted(key, value)));
            entries.add("\"__metadata__\": {" + String.join(", ", pairs) + "}");
        }
        byte[] header = ("{" + String.join(",\n ", entries) + "}" + " ".repeat(padding)).getBytes(StandardCharsets.UTF_8);
        var file = ByteBuffer.allocate(8 + header.length + (int) offset).order(ByteOrder.LITTLE_ENDIAN);
        file.putLong(header.length).put(header);
        for (Raw raw : tensors.values()) file.put(raw.bytes());
        Files.write(path, file.array());
    }

    private static final Pattern ENTRY = Pattern.compile("\"((?:[^\"\\\\]|\\\\.)*)\"\\s*:\\s*\\{([^{}]*)\\}");
    private static final Pattern DTYPE = Pattern.compile("\"dtype\"\\s*:\\s*\"(\\w+)\"");
    private static final Pattern SHAPE = Pattern.compile("\"shape\"\\s*:\\s*\\[([\\d,\\s]*)\\]");
    private static final Pattern OFFSETS = Pattern.compile("\"data_offsets\"\\s*:\\s*\\[\\s*(\\d+)\\s*,\\s*(\\d+)\\s*\\]");

    /// The tensors of a file by name (names without escapes), read with regular expressions over
    /// the header; `__metadata__` is returned under that name with its text as the bytes.
    static Map<String, Raw> read(Path path) throws IOException {
        var file = ByteBuffer.wrap(Files.readAllBytes(path)).order(ByteOrder.LITTLE_ENDIAN);
        int length = Math.toIntExact(file.getLong(0));
        if ((8 + length) % 8 != 0) throw new AssertionError("the data does not start 8-byte aligned: header length " + length);
        String header = new String(file.array(), 8, length, StandardCharsets.UTF_8);
        var tensors = new LinkedHashMap<String, Raw>();
        Matcher entry = ENTRY.matcher(header);
        while (entry.find()) {
            String name = entry.group(1), body = entry.group(2);
            if (name.equals("__metadata__")) {
                tensors.put(name, new Raw("", new long[0], body.getBytes(StandardCharsets.UTF_8)));
                continue;
            }
            Matcher dtype = find(DTYPE, body), shape = find(SHAPE, body), offsets = find(OFFSETS, body);
            long[] dims = shape.group(1).isBlank() ? new long[0] : List.of(shape.group(1).split(",")).stream().mapToLong(s -> Long.parseLong(s.trim())).toArray();
            int begin = Integer.parseInt(offsets.group(1)), end = Integer.parseInt(offsets.group(2));
            byte[] bytes = new byte[end - begin];
            file.get(8 + length + begin, bytes);
            tensors.put(name, new Raw(dtype.group(1), dims, bytes));
        }
        return tensors;
    }

    private static Matcher find(Pattern pattern, String text) {
        Matcher matcher = pattern.matcher(text);
        if (!matcher.find()) throw new AssertionError("no " + pattern + " in " + text);
        return matcher;
    }
}
