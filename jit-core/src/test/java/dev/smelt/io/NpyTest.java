// SPDX-License-Identifier: Apache-2.0
package dev.smelt.io;

import static dev.smelt.io.SafeTensorsTest.bits;
import static dev.smelt.io.SafeTensorsTest.golden;
import static dev.smelt.io.SafeTensorsTest.rejects;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.smelt.Npy;
import dev.smelt.Tensor;
import dev.smelt.ir.DType;
import dev.smelt.ir.Shape;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/// `.npy` files: the golden files NumPy wrote (`make_golden.py` beside them) read with the values
/// the script put in, random round trips bit for bit, Smelt's files in the layout NumPy writes,
/// and malformed files refused with their fault named.
class NpyTest {
    @TempDir Path directory;

    @Test
    void readsFloatSpecialValuesBitForBit() {
        var t = Npy.load(golden("f32_specials.npy"));
        assertEquals(DType.F32, t.dtype());
        assertArrayEquals(bits(0f, -0f, 1.5f, -2.25f, Float.POSITIVE_INFINITY, Float.NEGATIVE_INFINITY, Float.intBitsToFloat(0x7fc00000), Float.MIN_VALUE, Float.MAX_VALUE),
                bits(t.toFloatArray()));
    }

    @Test
    void readsEachDtypeNumPyWrites() {
        var f64 = Npy.load(golden("f64_2x3.npy"));
        assertEquals(Shape.of(2, 3), f64.shape());
        assertArrayEquals(new double[] {-0.5, -0.25, 0, 0.25, 0.5, 0.75}, f64.toDoubleArray());
        assertArrayEquals(new int[] {Integer.MIN_VALUE, -1, 0, 1, Integer.MAX_VALUE}, Npy.load(golden("i32_minmax.npy")).toIntArray());
        var i64 = Npy.load(golden("i64_small.npy"));                  // '<i8', range-checked into i32
        assertEquals(DType.I32, i64.dtype());
        assertArrayEquals(new int[] {-3, 0, 7, Integer.MAX_VALUE}, i64.toIntArray());
        assertArrayEquals(new boolean[] {true, false, false, true}, Npy.load(golden("bool_2x2.npy")).toBooleanArray());
        assertArrayEquals(new float[] {0.5f, -1, 65504, 5.9604645e-8f}, Npy.load(golden("f16_halves.npy")).toFloatArray()); // '<f2' widened
        assertArrayEquals(new float[] {1, -2, 0.15625f}, Npy.load(golden("f32_big_endian.npy")).toFloatArray());
    }

    @Test
    void readsRankZeroRankThreeAndEmptyArrays() {
        var scalar = Npy.load(golden("f32_scalar.npy"));
        assertEquals(Shape.SCALAR, scalar.shape());
        assertEquals(2.5, scalar.item());
        var cube = Npy.load(golden("f32_2x3x4.npy"));
        assertEquals(Shape.of(2, 3, 4), cube.shape());
        assertEquals(23, cube.get(1, 2, 3));
        assertEquals(6, cube.get(0, 1, 2));
        assertEquals(Shape.of(0, 3), Npy.load(golden("f32_empty_0x3.npy")).shape());
    }

    @Test
    void readsFortranOrderIntoRowMajor() {
        var t = Npy.load(golden("f64_fortran_2x3x4.npy"));
        assertEquals(Shape.of(2, 3, 4), t.shape());
        assertArrayEquals(Tensor.arange(24).to(DType.F64).toDoubleArray(), t.toDoubleArray());
    }

    @Test
    void readsVersionTwoAndThreeHeaders() {
        assertArrayEquals(new int[] {0, 3, 6, 9, 12}, Npy.load(golden("i32_version2.npy")).toIntArray());
        var v3 = Npy.load(golden("f32_version3.npy"));
        assertEquals(Shape.of(1, 2), v3.shape());
        assertArrayEquals(new float[] {1, 2}, v3.toFloatArray());
    }

    @Test
    void randomTensorsRoundTripBitForBitInNumPysLayout() throws IOException {
        for (int seed = 0; seed < 40; seed++) {
            var sample = Samples.random(new Random(seed));
            Path file = directory.resolve(seed + ".npy");
            Npy.save(file, sample.tensor());
            sample.assertSameAs(Npy.load(file), "seed " + seed);
            byte[] bytes = Files.readAllBytes(file);
            int headerLength = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN).getShort(8);
            String header = new String(bytes, 10, headerLength, StandardCharsets.ISO_8859_1);
            assertEquals(0, (10 + headerLength) % 64, "NumPy aligns the data to 64 bytes: " + header);
            assertTrue(header.endsWith("\n") && header.startsWith("{'descr': '" + descr(sample.tensor().dtype()) + "', 'fortran_order': False, 'shape': " + pythonShape(sample.tensor().shape()) + ", }"), header);
            assertArrayEquals(sample.bytes(), Arrays.copyOfRange(bytes, 10 + headerLength, bytes.length), "seed " + seed);
        }
    }

    @Test
    void aViewIsSavedInRowMajorOrder() {
        Path file = directory.resolve("t.npy");
        Npy.save(file, Tensor.arange(6).reshape(2, 3).t());
        var t = Npy.load(file);
        assertEquals(Shape.of(3, 2), t.shape());
        assertArrayEquals(new int[] {0, 3, 1, 4, 2, 5}, t.toIntArray());
    }

    static Stream<Arguments> malformed() {
        return Stream.of(
                bad("bad magic", "\u0093NUMPZ\u0001\u0000", "{'descr': '<f4', 'fortran_order': False, 'shape': (1,), }", 4, "does not start with the .npy magic"),
                bad("version 4", "\u0093NUMPY\u0004\u0000", "{'descr': '<f4', 'fortran_order': False, 'shape': (1,), }", 4, "format version 4.0"),
                bad("header past the end", null, "{'descr': '<f4', 'fortran_order': False, 'shape': (1,), }", 0, "header length 2000 runs past the end"),
                bad("not a dict", "", "['<f4']", 0, "not a dict literal"),
                bad("missing key", "", "{'descr': '<f4', 'shape': (1,), }", 4, "expected exactly descr, fortran_order and shape"),
                bad("extra key", "", "{'descr': '<f4', 'fortran_order': False, 'shape': (1,), 'x': 1}", 4, "expected exactly descr"),
                bad("repeated key", "", "{'descr': '<f4', 'descr': '<f4', 'fortran_order': False, 'shape': (1,), }", 4, "'descr' appears twice"),
                bad("unsupported dtype", "", "{'descr': '<u2', 'fortran_order': False, 'shape': (1,), }", 2, "descr '<u2' is an unsupported dtype", "'<f4'"),
                bad("object dtype", "", "{'descr': '|O', 'fortran_order': False, 'shape': (1,), }", 8, "unsupported dtype"),
                bad("structured dtype", "", "{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (1,), }", 4, "structured arrays are not supported"),
                bad("fortran_order not a bool", "", "{'descr': '<f4', 'fortran_order': 0, 'shape': (1,), }", 4, "fortran_order is not True or False"),
                bad("negative size", "", "{'descr': '<f4', 'fortran_order': False, 'shape': (-1,), }", 4, "has the size -1"),
                bad("shape not a tuple", "", "{'descr': '<f4', 'fortran_order': False, 'shape': 3, }", 4, "shape 3 is not a tuple"),
                bad("truncated data", "", "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }", 20, "needs 24 bytes of data, but the file holds 20", "truncated"),
                bad("extra data", "", "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }", 12, "needs 8 bytes of data, but the file holds 12"),
                bad("unclosed string", "", "{'descr': '<f4, 'fortran_order': False, 'shape': (2,), }", 8, "bad header"),
                bad("short file", "\u0093NUMPY\u0001", null, 0, "ends inside the version and header length"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("malformed")
    void aMalformedFileIsRefusedNamingTheFileAndTheFault(String description, byte[] contents, String[] fragments) throws IOException {
        Path file = directory.resolve(description.replace(' ', '-') + ".npy");
        Files.write(file, contents);
        var e = rejects(() -> Npy.load(file), fragments);
        assertTrue(e.getMessage().startsWith("Npy.load: " + file), e.getMessage());
    }

    // A version 1.0 file: `prefix` (the magic and version, null for a header length of 2000,
    // "" for the right ones), `header` (null: none), `dataBytes` zero bytes.
    static Arguments bad(String description, String prefix, String header, int dataBytes, String... fragments) {
        byte[] start = (prefix == null || prefix.isEmpty() ? "\u0093NUMPY\u0001\u0000" : prefix).getBytes(StandardCharsets.ISO_8859_1);
        byte[] text = header == null ? new byte[0] : (header + "\n").getBytes(StandardCharsets.ISO_8859_1);
        var buffer = ByteBuffer.allocate(start.length + (header == null ? 0 : 2) + text.length + dataBytes).order(ByteOrder.LITTLE_ENDIAN).put(start);
        if (header != null) buffer.putShort((short) (prefix == null ? 2000 : text.length)).put(text);
        return Arguments.of(description, buffer.array(), fragments);
    }

    static String descr(DType dtype) {
        return switch (dtype) {
            case BOOL -> "|b1";
            case I32 -> "<i4";
            case F32 -> "<f4";
            case F64 -> "<f8";
        };
    }

    static String pythonShape(Shape shape) {
        return shape.rank() == 1 ? "(" + shape.dim(0) + ",)" : shape.dims().toString().replace('[', '(').replace(']', ')');
    }
}
