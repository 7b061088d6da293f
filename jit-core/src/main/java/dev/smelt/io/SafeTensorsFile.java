// SPDX-License-Identifier: Apache-2.0
package dev.smelt.io;

import dev.smelt.ir.Shape;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SequencedMap;
import java.util.Set;

/// The safetensors format (huggingface/safetensors): an unsigned little-endian 64-bit header
/// length `N`, `N` bytes of UTF-8 JSON
/// `{"name": {"dtype": "F32", "shape": [2, 3], "data_offsets": [begin, end]}, …, "__metadata__": {…}}`
/// (spaces may pad it), then the data: each tensor's little-endian row-major bytes at
/// `[begin, end)` counted from the byte after the header. As the reference implementation does,
/// reading insists that the tensors tile the data exactly (no gaps, no overlaps, nothing after).
public final class SafeTensorsFile {
    private SafeTensorsFile() {}

    /// The reference implementation's limit: a larger header is a corrupt length, not a model.
    static final long MAX_HEADER = 100_000_000;
    /// `Tensor.MAX_SIZE`, the most elements a tensor holds (this layer cannot import `Tensor`).
    static final long MAX_ELEMENTS = Integer.MAX_VALUE - 8;
    private static final ValueLayout.OfLong LENGTH = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    /// A file's tensors in header order, and its `__metadata__` (empty when absent).
    public record Contents(SequencedMap<String, TensorData> tensors, Map<String, String> metadata) {}

    private record Entry(String name, FileDType type, Shape shape, long begin, long end) {}

    private record Header(List<Entry> entries, Map<String, String> metadata, long dataStart) {}

    public static Contents read(Path path) throws IOException {
        return MappedFile.read(path, SafeTensorsFile::contents);
    }

    /// The contents of a safetensors file held in memory, such as one sent over a network.
    public static Contents read(byte[] bytes) throws FormatException {
        return contents(MemorySegment.ofArray(bytes));
    }

    private static Contents contents(MemorySegment file) throws FormatException {
        Header header = header(file);
        var tensors = new LinkedHashMap<String, TensorData>();
        for (Entry entry : header.entries()) {
            try {
                var storage = entry.type().read(file, header.dataStart() + entry.begin(), entry.shape().size(), ByteOrder.LITTLE_ENDIAN);
                tensors.put(entry.name(), new TensorData(entry.shape(), storage));
            } catch (FormatException e) {
                throw new FormatException("tensor " + Json.quote(entry.name()) + ": " + e.getMessage());
            }
        }
        return new Contents(tensors, header.metadata());
    }

    /// The `__metadata__` alone: the header is read, the data is not.
    public static Map<String, String> readMetadata(Path path) throws IOException {
        return MappedFile.read(path, file -> header(file).metadata());
    }

    public static void write(Path path, SequencedMap<String, TensorData> tensors, Map<String, String> metadata) throws IOException {
        byte[] header = header(tensors, metadata);
        MappedFile.write(path, 8L + header.length + dataLength(tensors), file -> fill(file, header, tensors));
    }

    /// The bytes [#write] would write, for sending a file's contents without a file: at most a
    /// Java array's length, else a [FormatException].
    public static byte[] bytes(SequencedMap<String, TensorData> tensors, Map<String, String> metadata) throws FormatException {
        byte[] header = header(tensors, metadata);
        long size = 8L + header.length + dataLength(tensors);
        if (size > Integer.MAX_VALUE - 8) throw new FormatException("the tensors take " + size + " bytes, more than an array holds");
        byte[] bytes = new byte[(int) size];
        fill(MemorySegment.ofArray(bytes), header, tensors);
        return bytes;
    }

    private static long dataLength(SequencedMap<String, TensorData> tensors) {
        long length = 0;
        for (var data : tensors.values()) length += (long) data.shape().size() * FileDType.of(data.storage().dtype()).bytes();
        return length;
    }

    // The length-prefixed JSON header, padded so that the data starts aligned.
    private static byte[] header(SequencedMap<String, TensorData> tensors, Map<String, String> metadata) {
        var text = new StringBuilder("{");
        if (!metadata.isEmpty()) {
            text.append(Json.quote("__metadata__")).append(":{");
            metadata.forEach((key, value) -> text.append(Json.quote(key)).append(':').append(Json.quote(value)).append(','));
            text.setCharAt(text.length() - 1, '}');
            text.append(',');
        }
        long offset = 0;
        for (var tensor : tensors.entrySet()) {
            var data = tensor.getValue();
            var type = FileDType.of(data.storage().dtype());
            long end = offset + (long) data.shape().size() * type.bytes();
            text.append(Json.quote(tensor.getKey())).append(":{\"dtype\":\"").append(type.safetensorsName)
                    .append("\",\"shape\":").append(data.shape().dims().toString().replace(" ", ""))
                    .append(",\"data_offsets\":[").append(offset).append(',').append(end).append("]},");
            offset = end;
        }
        if (text.length() > 1) text.setLength(text.length() - 1);
        text.append('}');
        int unpadded = text.toString().getBytes(StandardCharsets.UTF_8).length;
        text.append(" ".repeat(-(8 + unpadded) & 7)); // spaces up to a multiple of 8: the data starts aligned
        return text.toString().getBytes(StandardCharsets.UTF_8);
    }

    private static void fill(MemorySegment file, byte[] header, SequencedMap<String, TensorData> tensors) {
        file.set(LENGTH, 0, header.length);
        MemorySegment.copy(header, 0, file, ValueLayout.JAVA_BYTE, 8, header.length);
        long at = 8L + header.length;
        for (var data : tensors.values()) {
            FileDType.of(data.storage().dtype()).write(data.storage(), file, at, ByteOrder.LITTLE_ENDIAN);
            at += (long) data.shape().size() * data.storage().dtype().bytes();
        }
    }

    private static Header header(MemorySegment file) throws FormatException {
        long size = file.byteSize();
        if (size < 8) throw new FormatException("the file has " + size + " bytes, fewer than the 8 of the header length");
        long length = file.get(LENGTH, 0);
        if (length < 0 || length > size - 8)
            throw new FormatException("the header length " + Long.toUnsignedString(length) + " runs past the end of the file (" + size + " bytes)");
        if (length > MAX_HEADER) throw new FormatException("the header length " + length + " is over the limit of " + MAX_HEADER + " bytes");
        byte[] bytes = file.asSlice(8, length).toArray(ValueLayout.JAVA_BYTE);
        String text;
        try {
            text = StandardCharsets.UTF_8.newDecoder().decode(ByteBuffer.wrap(bytes)).toString();
        } catch (CharacterCodingException e) {
            throw new FormatException("the header is not valid UTF-8");
        }
        if (!text.startsWith("{")) throw new FormatException("the header does not start with '{'");
        if (!(Json.parse(text) instanceof Map<?, ?> members)) throw new FormatException("the header is not a JSON object");
        long dataStart = 8 + length, dataLength = size - dataStart;
        var entries = new ArrayList<Entry>();
        Map<String, String> metadata = Map.of();
        for (var member : members.entrySet()) {
            String name = (String) member.getKey();
            if (name.equals("__metadata__")) metadata = metadata(member.getValue());
            else entries.add(entry(name, member.getValue(), dataLength));
        }
        checkTiling(entries, dataLength);
        return new Header(entries, metadata, dataStart);
    }

    private static Map<String, String> metadata(Object value) throws FormatException {
        if (!(value instanceof Map<?, ?> members)) throw new FormatException("__metadata__ is not a JSON object");
        var metadata = new LinkedHashMap<String, String>();
        for (var member : members.entrySet()) {
            if (!(member.getValue() instanceof String text))
                throw new FormatException("__metadata__ " + Json.quote((String) member.getKey()) + " is not a string; metadata values are strings");
            metadata.put((String) member.getKey(), text);
        }
        return metadata;
    }

    private static Entry entry(String name, Object value, long dataLength) throws FormatException {
        String where = "tensor " + Json.quote(name);
        if (!(value instanceof Map<?, ?> fields)) throw new FormatException(where + " is not a JSON object with dtype, shape and data_offsets");
        for (var key : fields.keySet())
            if (!Set.of("dtype", "shape", "data_offsets").contains(key)) throw new FormatException(where + " has an unknown field " + Json.quote((String) key));
        if (!(fields.get("dtype") instanceof String typeName)) throw new FormatException(where + " has no dtype string");
        FileDType type = FileDType.bySafetensorsName(typeName);
        if (type == null) throw new FormatException(where + " has the unsupported dtype " + Json.quote(typeName) + "; Smelt reads " + FileDType.SUPPORTED_SAFETENSORS);
        List<Long> dims = integers(where, "shape", fields.get("shape"));
        long count = 1;
        for (long dim : dims) {
            if (dim < 0 || dim > Integer.MAX_VALUE) throw new FormatException(where + " has the size " + dim + " in its shape " + dims);
            count = Math.min(count * dim, MAX_ELEMENTS + 1); // capped: cannot overflow, still over the limit
        }
        if (count > MAX_ELEMENTS) throw new FormatException(where + " has shape " + dims + ", more than the " + MAX_ELEMENTS + " elements a tensor holds");
        List<Long> offsets = integers(where, "data_offsets", fields.get("data_offsets"));
        if (offsets.size() != 2 || offsets.get(0) < 0 || offsets.get(0) > offsets.get(1) || offsets.get(1) > dataLength)
            throw new FormatException(where + " has data_offsets " + offsets + "; expected [begin, end] with 0 ≤ begin ≤ end ≤ " + dataLength + ", the data's length");
        long span = offsets.get(1) - offsets.get(0), needed = count * type.bytes();
        if (span != needed)
            throw new FormatException(where + " is " + typeName + dims + ", " + needed + " bytes, but its data_offsets " + offsets + " span " + span);
        var shape = new Shape(dims.stream().map(Long::intValue).toList());
        return new Entry(name, type, shape, offsets.get(0), offsets.get(1));
    }

    private static List<Long> integers(String where, String field, Object value) throws FormatException {
        if (!(value instanceof List<?> list) || !list.stream().allMatch(Long.class::isInstance))
            throw new FormatException(where + " has no " + field + " list of integers");
        return list.stream().map(Long.class::cast).toList();
    }

    // The tensors, ordered by offset, must cover [0, dataLength) once each.
    private static void checkTiling(List<Entry> entries, long dataLength) throws FormatException {
        var ordered = entries.stream().sorted(Comparator.comparingLong(Entry::begin).thenComparingLong(Entry::end)).toList();
        long covered = 0;
        String previous = null;
        for (Entry entry : ordered) {
            if (entry.begin() < covered)
                throw new FormatException("tensors " + Json.quote(previous) + " and " + Json.quote(entry.name()) + " overlap: one ends at byte " + covered + " of the data, the other starts at " + entry.begin());
            if (entry.begin() > covered)
                throw new FormatException("bytes " + covered + " to " + entry.begin() + " of the data belong to no tensor (before " + Json.quote(entry.name()) + ")");
            covered = entry.end();
            previous = entry.name();
        }
        if (covered != dataLength)
            throw new FormatException("the tensors cover " + covered + " bytes of data but the file holds " + dataLength + " after the header");
    }
}
