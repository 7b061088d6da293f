// SPDX-License-Identifier: Apache-2.0
package dev.smelt.data;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.smelt.Tensor;
import dev.smelt.ir.DType;
import dev.smelt.ir.SmeltException;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.zip.GZIPOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/// Reading CSV files: plain and gzip, with or without a header, the label at any column, strict
/// numbers, and errors that name the file, the line and the column.
class CsvTest {
    @TempDir Path directory;

    private Path write(String name, String text) throws IOException {
        Path file = directory.resolve(name);
        if (name.endsWith(".gz")) {
            try (OutputStream out = new GZIPOutputStream(Files.newOutputStream(file))) {
                out.write(text.getBytes(StandardCharsets.UTF_8));
            }
        } else Files.writeString(file, text);
        return file;
    }

    private static final String DIGITS = "0,1.5,2,3\n4,-5e-1,6,7\n\n8,9,inf,1\n";

    @Test
    void plainAndGzipFilesReadTheSame() throws IOException {
        for (String name : new String[] {"d.csv", "d.csv.gz", "gzip-without-suffix.csv"}) {
            Path file = name.startsWith("gzip") ? Files.move(write("x.gz", DIGITS), directory.resolve(name)) : write(name, DIGITS);
            Dataset data = Csv.read(file, -1, false);
            assertEquals(3, data.size(), name);
            assertEquals(DType.F32, data.features().dtype());
            assertArrayEquals(new float[] {0, 1.5f, 2, 4, -0.5f, 6, 8, 9, Float.POSITIVE_INFINITY}, data.features().toFloatArray(), name);
            assertEquals("[3,3]", data.features().shape().toString().replace(" ", ""));
            assertArrayEquals(new int[] {3, 7, 1}, data.labels().toIntArray(), name);
        }
    }

    @Test
    void theLabelColumnMayBeAnyAndTheHeaderIsSkipped() throws IOException {
        Path file = write("h.csv", "label, a, b\n1, 0.25, -2\n0, nan, +3\n");
        Dataset data = Csv.read(file, 0, true);
        assertArrayEquals(new int[] {1, 0}, data.labels().toIntArray());
        float[] features = data.features().toFloatArray();
        assertEquals(0.25f, features[0]);
        assertTrue(Float.isNaN(features[2]));
        assertEquals(3f, features[3]);
        Dataset middle = Csv.read(write("m.csv", "1,2,3\n4,5,6\n"), 1, false, DType.F64);
        assertArrayEquals(new double[] {2, 5}, middle.labels().toDoubleArray());
        assertEquals(DType.F64, middle.labels().dtype());
        assertArrayEquals(new float[] {1, 3, 4, 6}, middle.features().toFloatArray());
    }

    @Test
    void readTensorKeepsEveryColumn() throws IOException {
        Tensor all = Csv.readTensor(write("t.csv", "\uFEFFx,y\r\n1,2\r\n3,4\r\n"), true);
        assertArrayEquals(new float[] {1, 2, 3, 4}, all.toFloatArray());
        assertEquals(2, all.dim(1));
    }

    @Test
    void aBadFieldNamesFileLineAndColumn() throws IOException {
        Path file = write("bad.csv", "a,b,label\n1,2,0\n3,x4,1\n");
        assertMessage(() -> Csv.read(file, -1, true), "readCsv: " + file + " line 3, column 2 (\"b\"): \"x4\" is not a number");
        Path noHeader = write("bad2.csv", "1,2,0\n\n3,,1\n");
        assertMessage(() -> Csv.read(noHeader, 2, false), "readCsv: " + noHeader + " line 3, column 2: an empty field is not a number");
        Path javaSuffix = write("bad3.csv", "1f,2,0\n");
        assertMessage(() -> Csv.read(javaSuffix, 2, false), "line 1, column 1: \"1f\" is not a number");
        Path fraction = write("bad4.csv", "1,2,0.5\n");
        assertMessage(() -> Csv.read(fraction, 2, false), "line 1, column 3: \"0.5\" is not a whole number, as an i32 class label must be");
        Path huge = write("bad5.csv", "1,2,9999999999\n");
        assertMessage(() -> Csv.read(huge, -1, false), "\"9999999999\" is out of the i32 range");
        for (String text : new String[] {".", "1e", "e5", "--1", "0x10", "1.2.3", "\"1\""}) {
            Path file2 = write("n.csv", text + ",0\n");
            assertMessage(() -> Csv.read(file2, 1, false), "is not a number");
        }
    }

    @Test
    void digitsOfOtherScriptsAreRefusedWithTheirPlace() throws IOException {
        // Character.isDigit accepts them, Double.parseDouble does not: once a raw NumberFormatException
        Path fullWidth = write("wide.csv", "\uFF11,2\n");
        assertMessage(() -> Csv.readTensor(fullWidth, false), "readCsv: " + fullWidth + " line 1, column 1: \"\uFF11\" is not a number");
        Path arabicIndic = write("arabic.csv", "1,2,0\n3,4.\u0661,1\n");
        assertMessage(() -> Csv.read(arabicIndic, -1, false), "line 2, column 2: \"4.\u0661\" is not a number");
        Path exponent = write("exponent.csv", "1e\u0662,0\n");
        assertMessage(() -> Csv.read(exponent, 1, false), "line 1, column 1: \"1e\u0662\" is not a number");
        Path label = write("label.csv", "1,\u0661\n");
        assertMessage(() -> Csv.read(label, 1, false), "line 1, column 2: \"\u0661\" is not a whole number");
    }

    @Test
    void raggedMissingAndEmptyFilesAreRefused() throws IOException {
        Path ragged = write("r.csv", "1,2,3\n4,5\n");
        assertMessage(() -> Csv.read(ragged, -1, false), "readCsv: " + ragged + " line 2 has 2 fields, but the first row has 3");
        Path raggedHeader = write("rh.csv", "a,b\n4,5,6\n");
        assertMessage(() -> Csv.read(raggedHeader, -1, true), "line 2 has 3 fields, but the header has 2");
        Path missing = directory.resolve("missing.csv");
        assertMessage(() -> Csv.read(missing, 0, false), "readCsv: " + missing + " does not exist");
        Path onlyHeader = write("e.csv", "a,b\n\n");
        assertMessage(() -> Csv.read(onlyHeader, 0, true), "has no data rows after its header");
        Path two = write("two.csv", "1,2\n");
        assertMessage(() -> Csv.read(two, 2, false), "label column 2 is out of range for its 2 columns (0…1, or -1 for the last)");
        assertMessage(() -> Csv.read(two, -3, false), "label column -3 is out of range");
        assertMessage(() -> Csv.read(two, Integer.MIN_VALUE, false), "label column -2147483648 is out of range");
        Path one = write("one.csv", "1\n2\n");
        assertMessage(() -> Csv.read(one, 0, false), "has one column: no features are left beside the label");
        assertMessage(() -> Csv.read(two, 0, false, DType.BOOL), "labels must be read as I32, F32 or F64, not bool");
        assertMessage(() -> Csv.read(null, 0, false), "readCsv: the path is null");
        Path corrupt = directory.resolve("corrupt.gz");
        Files.write(corrupt, new byte[] {0x1f, (byte) 0x8b, 1, 2, 3});
        assertMessage(() -> Csv.read(corrupt, 0, false), "readCsv: cannot read " + corrupt);
    }

    private static void assertMessage(Runnable call, String expected) {
        var e = assertThrows(SmeltException.class, call::run);
        assertTrue(e.getMessage().contains(expected), e.getMessage());
    }
}
