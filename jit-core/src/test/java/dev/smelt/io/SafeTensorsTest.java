// SPDX-License-Identifier: Apache-2.0
package dev.smelt.io;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.smelt.Jit;
import dev.smelt.SafeTensors;
import dev.smelt.Tensor;
import dev.smelt.ir.DType;
import dev.smelt.ir.Shape;
import dev.smelt.ir.SmeltException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/// Safetensors files: random round trips bit for bit through Smelt's writer and reader, files
/// written from the spec by [SpecSafeTensors] and by NumPy read by Smelt, Smelt's files read by
/// [SpecSafeTensors], and every malformed file refused with its fault named.
class SafeTensorsTest {
    @TempDir Path directory;

    @Test
    void randomTensorsRoundTripBitForBitBothWays() throws IOException {
        for (int seed = 0; seed < 40; seed++) {
            var random = new Random(seed);
            var samples = new LinkedHashMap<String, Samples.Sample>();
            for (int i = random.nextInt(5); i >= 0; i--) samples.put("layer" + i + ".w", Samples.random(random));
            var tensors = new LinkedHashMap<String, Tensor>();
            samples.forEach((name, sample) -> tensors.put(name, sample.tensor()));
            String where = "seed " + seed;

            Path ours = directory.resolve("ours-" + seed + ".safetensors");
            SafeTensors.save(ours, tensors);
            var loaded = SafeTensors.load(ours);
            assertEquals(List.copyOf(samples.keySet()), List.copyOf(loaded.keySet()), where);
            samples.forEach((name, sample) -> sample.assertSameAs(loaded.get(name), where + ", " + name));
            var independent = SpecSafeTensors.read(ours);
            samples.forEach((name, sample) -> {
                var raw = independent.get(name);
                assertEquals(Samples.safetensorsName(sample.tensor().dtype()), raw.dtype(), where);
                assertArrayEquals(Samples.dims(sample.tensor().shape()), raw.shape(), where);
                assertArrayEquals(sample.bytes(), raw.bytes(), where + ", " + name + " as the spec reads it");
            });

            byte[] inMemory = SafeTensors.bytes(tensors);
            assertArrayEquals(Files.readAllBytes(ours), inMemory, where + ": the bytes are the file's");
            var fromBytes = SafeTensors.fromBytes(inMemory);
            samples.forEach((name, sample) -> sample.assertSameAs(fromBytes.get(name), where + ", " + name + " from bytes"));

            Path theirs = directory.resolve("theirs-" + seed + ".safetensors");
            var raws = new LinkedHashMap<String, SpecSafeTensors.Raw>();
            samples.forEach((name, sample) -> raws.put(name, new SpecSafeTensors.Raw(Samples.safetensorsName(sample.tensor().dtype()), Samples.dims(sample.tensor().shape()), sample.bytes())));
            SpecSafeTensors.write(theirs, raws, Map.of("seed", String.valueOf(seed)), random.nextInt(9));
            var read = SafeTensors.load(theirs);
            samples.forEach((name, sample) -> sample.assertSameAs(read.get(name), where + ", " + name + " from the spec's writer"));
            assertEquals(Map.of("seed", String.valueOf(seed)), SafeTensors.metadata(theirs));
        }
    }

    @Test
    void viewsAreSavedInRowMajorOrderWithTheirBits() {
        float nan = Float.intBitsToFloat(0x7f812345);                 // a signalling NaN with a payload
        var m = Tensor.of(new float[] {1, -0f, nan, 4, Float.MIN_VALUE, 6}, 2, 3);
        Path file = directory.resolve("views.safetensors");
        SafeTensors.save(file, Map.of("t", m.t(), "odd", m.slice(1, 0, 3, 2)));
        var loaded = SafeTensors.load(file);
        assertArrayEquals(bits(1, 4, -0f, Float.MIN_VALUE, nan, 6), bits(loaded.get("t").toFloatArray()));
        assertEquals(Shape.of(3, 2), loaded.get("t").shape());
        assertArrayEquals(bits(1, nan, 4, 6), bits(loaded.get("odd").toFloatArray()));
    }

    @Test
    void namesAndMetadataKeepEveryCharacter() {
        String name = "odd \"name\"\\ with\nnewline, tab\t, é and 🙂";
        Path file = directory.resolve("names.safetensors");
        var metadata = Map.of("format", "pt", "quote\"key", "line\nvalue 🙂");
        SafeTensors.save(file, Map.of(name, Tensor.scalar(DType.I32, 7), "", Tensor.zeros(0)), metadata);
        var loaded = SafeTensors.load(file);
        assertEquals(7, loaded.get(name).item());
        assertEquals(Shape.of(0), loaded.get("").shape());
        assertEquals(metadata, SafeTensors.metadata(file));
    }

    @Test
    void readsTheFileMadeByNumPy() throws IOException {
        Path file = golden("numpy_made.safetensors");
        var loaded = SafeTensors.load(file);
        assertEquals(List.of("embed.weight", "head.bias", "steps", "half", "labels"), List.copyOf(loaded.keySet()));
        assertArrayEquals(new float[] {-2.5f, -1.5f, -0.5f, 0.5f, 1.5f, 2.5f}, loaded.get("embed.weight").toFloatArray());
        assertEquals(Shape.of(3, 2), loaded.get("embed.weight").shape());
        assertEquals(DType.F64, loaded.get("head.bias").dtype());
        assertArrayEquals(bits(0.25, -0.0), bits(loaded.get("head.bias").toDoubleArray()));
        assertEquals(DType.I32, loaded.get("steps").dtype());                  // I64, range-checked
        assertEquals(Shape.SCALAR, loaded.get("steps").shape());
        assertEquals(7, loaded.get("steps").item());
        assertEquals(DType.F32, loaded.get("half").dtype());                   // F16, widened exactly
        assertArrayEquals(new float[] {1.5f, -0.25f}, loaded.get("half").toFloatArray());
        assertArrayEquals(new int[] {3, 1, 4}, loaded.get("labels").toIntArray());
        assertEquals(Map.of("format", "pt", "note", "made by make_golden.py"), SafeTensors.metadata(file));
    }

    @Test
    void bfloat16IsTheTopHalfOfAFloat() throws IOException {
        Path file = directory.resolve("bf16.safetensors");
        byte[] bytes = ByteBuffer.allocate(6).order(ByteOrder.LITTLE_ENDIAN).putShort((short) 0x3fc0).putShort((short) 0xc2f7).putShort((short) 0x7fc1).array();
        SpecSafeTensors.write(file, Map.of("b", new SpecSafeTensors.Raw("BF16", new long[] {3}, bytes)), Map.of(), 0);
        assertArrayEquals(bits(1.5f, -123.5f, Float.intBitsToFloat(0x7fc10000)), bits(SafeTensors.load(file).get("b").toFloatArray()));
    }

    @Test
    void savingReplacesAnOldFileWholeAndLeavesNoTemporaryFile() throws IOException {
        Path file = directory.resolve("model.safetensors");
        SafeTensors.save(file, Map.of("w", Tensor.ones(1000)));
        SafeTensors.save(file, Map.of("w", Tensor.full(2, 3)));
        assertArrayEquals(new float[] {2, 2, 2}, SafeTensors.load(file).get("w").toFloatArray());
        try (var files = Files.list(directory)) {
            assertEquals(List.of(file), files.toList());
        }
    }

    /// Concurrent saves to one path each write a temporary file of their own: every save succeeds
    /// and the file left is one of them, whole.
    @Test
    void concurrentSavesToOnePathLeaveOneWholeFile() throws Exception {
        Path file = directory.resolve("model.safetensors");
        List<Map<String, Tensor>> versions = List.of(Map.of("w", Tensor.ones(10)), Map.of("w", Tensor.full(2, 1 << 20)));
        try (var pool = java.util.concurrent.Executors.newFixedThreadPool(4)) {
            var saves = new java.util.ArrayList<java.util.concurrent.Future<?>>();
            for (int i = 0; i < 64; i++) {
                var version = versions.get(i % 2);
                saves.add(pool.submit(() -> SafeTensors.save(file, version)));
            }
            for (var save : saves) save.get();
        }
        float[] left = SafeTensors.load(file).get("w").toFloatArray();
        assertTrue(left.length == 10 && left[9] == 1 || left.length == 1 << 20 && left[(1 << 20) - 1] == 2, "a file of " + left.length);
        try (var files = Files.list(directory)) {
            assertEquals(List.of(file), files.toList());
        }
    }

    @Test
    void badArgumentsToSaveAreRefused() {
        Path file = directory.resolve("x.safetensors");
        rejects(() -> SafeTensors.save(file, Map.of("__metadata__", Tensor.ones(1))), "__metadata__", "reserved");
        var withNull = new LinkedHashMap<String, Tensor>();
        withNull.put("w", null);
        rejects(() -> SafeTensors.save(file, withNull), "tensor \"w\" is null");
        rejects(() -> Jit.trace(x -> {
            SafeTensors.save(file, Map.of("x", x));
            return x;
        }, Tensor.ones(2)), "traced");
        rejects(() -> SafeTensors.save(file, Map.of("bad\ud800", Tensor.ones(1))), "not valid Unicode");
        rejects(() -> SafeTensors.save(file, Map.of(), Map.of("k", "\udc00")), "not valid Unicode");
        rejects(() -> SafeTensors.save(directory.resolve("no/such/dir/x.safetensors"), Map.of("w", Tensor.ones(1))), "no such file or directory");
        rejects(() -> SafeTensors.load(directory.resolve("missing.safetensors")), "missing.safetensors", "no such file");
        rejects(() -> SafeTensors.load(directory), "a directory, not a file"); // was "java.io.IOException: No such device"
        rejects(() -> dev.smelt.Npy.load(directory), "a directory, not a file");
        assertFalse(Files.exists(file));
    }

    @Test
    void nullArgumentsAreRefused() {
        Path file = directory.resolve("x");
        rejects(() -> SafeTensors.save(null, Map.of()), "argument 0 is null");
        rejects(() -> SafeTensors.save(file, null), "argument 1 is null");
        rejects(() -> SafeTensors.save(file, Map.of(), null), "argument 2 is null");
        rejects(() -> SafeTensors.load(null), "argument 0 is null");
        rejects(() -> SafeTensors.metadata(null), "argument 0 is null");
        rejects(() -> dev.smelt.Npy.save(null, Tensor.ones(1)), "argument 0 is null");
        rejects(() -> dev.smelt.Npy.save(file, null), "the tensor is null");
        rejects(() -> dev.smelt.Npy.load(null), "argument 0 is null");
    }

    @Test
    void anI64OutsideTheI32RangeIsNamed() throws IOException {
        Path file = directory.resolve("i64.safetensors");
        byte[] bytes = ByteBuffer.allocate(16).order(ByteOrder.LITTLE_ENDIAN).putLong(5).putLong(1L << 40).array();
        SpecSafeTensors.write(file, Map.of("ids", new SpecSafeTensors.Raw("I64", new long[] {2}, bytes)), Map.of(), 0);
        rejects(() -> SafeTensors.load(file), "tensor \"ids\"", "element 1 is 1099511627776", "i32 range");
    }

    static Stream<Arguments> malformed() {
        String f32x2 = "{\"w\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]}}";
        return Stream.of(
                bad("shorter than the length", new byte[] {1, 0, 0}, "3 bytes, fewer than the 8 of the header length"),
                bad("length past the end", withLength(1000, f32x2, 8), "header length 1000 runs past the end of the file"),
                bad("length over 2^63", withLength(-2, f32x2, 8), "header length 18446744073709551614 runs past the end"),
                bad("not UTF-8", withLength(-1, "{\"\u00ff\":1}", 0, StandardCharsets.ISO_8859_1), "not valid UTF-8"),
                bad("not an object", file("[1, 2]", 0), "does not start with '{'"),
                bad("trailing comma", file("{\"w\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8],}}", 8), "bad JSON", "member name"),
                bad("single quotes", file("{'w': 1}", 0), "bad JSON at character 1"),
                bad("unclosed", file("{\"w\":{\"dtype\":\"F32\"", 0), "bad JSON", "ends where"),
                bad("text after", file(f32x2 + " x", 8), "unexpected text after the value"),
                bad("repeated key", file("{\"w\":{},\"w\":{}}", 0), "\"w\" appears twice"),
                bad("leading zero", file("{\"w\":{\"dtype\":\"F32\",\"shape\":[02],\"data_offsets\":[0,8]}}", 8), "leading zero"),
                bad("unknown dtype", file(f32x2.replace("F32", "U8"), 8), "unsupported dtype \"U8\"", "F32, F64, I32"),
                bad("unknown field", file(f32x2.replace("\"shape\"", "\"strides\":[1],\"shape\""), 8), "unknown field \"strides\""),
                bad("no shape", file(f32x2.replace("\"shape\":[2],", ""), 8), "tensor \"w\" has no shape list"),
                bad("negative size", file(f32x2.replace("[2]", "[-2]"), 8), "size -2"),
                bad("too many elements", file(f32x2.replace("[2]", "[65536,65536]"), 8), "more than the 2147483639 elements"),
                bad("offsets past the data", file(f32x2.replace("[0,8]", "[0,12]"), 8), "data_offsets [0, 12]", "≤ 8"),
                bad("offsets reversed", file(f32x2.replace("[0,8]", "[8,0]"), 8), "data_offsets [8, 0]"),
                bad("size against shape", file(f32x2.replace("[2]", "[3]"), 8), "F32[3], 12 bytes, but its data_offsets [0, 8] span 8"),
                bad("overlap", file("{\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]},\"b\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[4,8]}}", 8),
                        "tensors \"a\" and \"b\" overlap"),
                bad("gap", file(f32x2.replace("[0,8]", "[4,12]").replace("[2]", "[2]"), 12), "bytes 0 to 4 of the data belong to no tensor"),
                bad("bytes after the data", file(f32x2, 12), "cover 8 bytes of data but the file holds 12"),
                bad("truncated data", truncated(file(f32x2, 8), 3), "data_offsets [0, 8]", "≤ 5"),
                bad("metadata not strings", file("{\"__metadata__\":{\"n\":1}}", 0), "__metadata__ \"n\" is not a string"),
                bad("deep nesting", file("{\"w\":" + "[".repeat(100) + "]".repeat(100) + "}", 0), "nested deeper than 64"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("malformed")
    void aMalformedFileIsRefusedNamingTheFileAndTheFault(String description, byte[] contents, String[] fragments) throws IOException {
        Path file = directory.resolve(description.replace(' ', '-') + ".safetensors");
        Files.write(file, contents);
        var e = rejects(() -> SafeTensors.load(file), fragments);
        assertTrue(e.getMessage().contains(file.toString()), e.getMessage());
        assertTrue(e.getMessage().startsWith("SafeTensors.load: "), e.getMessage());
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("malformed")
    void malformedBytesAreRefusedNamingTheFault(String description, byte[] contents, String[] fragments) {
        var e = rejects(() -> SafeTensors.fromBytes(contents), fragments);
        assertTrue(e.getMessage().startsWith("SafeTensors.fromBytes: " + contents.length + " bytes: "), e.getMessage());
    }

    static Arguments bad(String description, byte[] contents, String... fragments) { return Arguments.of(description, contents, fragments); }

    static byte[] file(String header, int dataBytes) { return withLength(header.getBytes(StandardCharsets.UTF_8).length, header, dataBytes); }

    static byte[] withLength(long length, String header, int dataBytes) { return withLength(length, header, dataBytes, StandardCharsets.UTF_8); }

    static byte[] withLength(long length, String header, int dataBytes, java.nio.charset.Charset charset) {
        byte[] text = header.getBytes(charset);
        var buffer = ByteBuffer.allocate(8 + text.length + dataBytes).order(ByteOrder.LITTLE_ENDIAN);
        return buffer.putLong(length == -1 ? text.length : length).put(text).array();
    }

    static byte[] truncated(byte[] file, int cut) { return java.util.Arrays.copyOf(file, file.length - cut); }

    static SmeltException rejects(Runnable action, String... fragments) {
        var e = assertThrows(SmeltException.class, action::run);
        for (String fragment : fragments) assertTrue(e.getMessage().contains(fragment), () -> "'" + fragment + "' missing from: " + e.getMessage());
        return e;
    }

    static Path golden(String name) {
        try {
            return Path.of(SafeTensorsTest.class.getResource(name).toURI());
        } catch (java.net.URISyntaxException e) {
            throw new AssertionError(e);
        }
    }

    static int[] bits(float... values) {
        int[] bits = new int[values.length];
        for (int i = 0; i < values.length; i++) bits[i] = Float.floatToRawIntBits(values[i]);
        return bits;
    }

    static long[] bits(double... values) {
        long[] bits = new long[values.length];
        for (int i = 0; i < values.length; i++) bits[i] = Double.doubleToRawLongBits(values[i]);
        return bits;
    }
}
