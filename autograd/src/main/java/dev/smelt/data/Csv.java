// SPDX-License-Identifier: Apache-2.0
package dev.smelt.data;

import dev.smelt.Tensor;
import dev.smelt.ir.DType;
import dev.smelt.ir.SmeltException;
import java.io.BufferedInputStream;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.zip.GZIPInputStream;

/// Comma-separated numbers, plain or gzip-compressed (recognised by its first two bytes, whatever the
/// file is called), one sample per line. Numbers are read strictly: decimal or scientific notation
/// in ASCII digits with an optional sign, or `nan`/`inf`/`infinity` in any case; spaces around a
/// field are allowed, nothing else is (no quotes, no empty fields, no `1f`, no `１`). Blank lines are skipped. Every row must
/// have as many fields as the first. A bad field is a [SmeltException] naming the file, the line and
/// the column (1-based, and the header's name for it when there is one).
public final class Csv {
    private Csv() {}

    /// A data set from `file`: column `labelColumn` (0-based; negative counts from the end, `-1` is
    /// the last) as `i32` class labels `[N]`, the other columns in order as `f32` features `[N, C-1]`.
    /// With `header`, the first line names the columns and is not data.
    public static Dataset read(Path file, int labelColumn, boolean header) { return read(file, labelColumn, header, DType.I32); }

    /// [#read(Path, int, boolean)] with labels of `labelDType`: `I32` for class indices (which must
    /// be whole numbers), `F32` or `F64` for regression targets.
    public static Dataset read(Path file, int labelColumn, boolean header, DType labelDType) {
        if (labelDType == null || labelDType == DType.BOOL)
            throw SmeltException.of("readCsv", "labels must be read as I32, F32 or F64, not %s", labelDType);
        Table table = read(file, header, true, labelColumn, labelDType == DType.I32);
        int rows = table.rows, width = table.columns - 1;
        Tensor x = Tensor.of(Arrays.copyOf(table.features, rows * width), rows, width);
        double[] labels = Arrays.copyOf(table.labels, rows);
        Tensor y = labelDType == DType.I32 ? Tensor.of(Arrays.stream(labels).mapToInt(v -> (int) v).toArray()) : Tensor.of(labels).to(labelDType);
        return new Dataset(x, y);
    }

    /// Every column of `file` as one `f32` tensor `[N, C]`, for files without labels.
    public static Tensor readTensor(Path file, boolean header) {
        Table table = read(file, header, false, 0, false);
        return Tensor.of(Arrays.copyOf(table.features, table.rows * table.columns), table.rows, table.columns);
    }

    /// One pass over a file's lines, parsing each field as it comes: the features row-major, the
    /// label column (if any) apart.
    private static final class Table {
        final Path file;
        final boolean labelled, integerLabels;
        final int labelColumn;
        List<String> names = List.of();
        int columns = -1, label = -1, rows, line;
        float[] features = new float[1024];
        double[] labels = new double[64];

        Table(Path file, boolean labelled, int labelColumn, boolean integerLabels) {
            this.file = file;
            this.labelled = labelled;
            this.labelColumn = labelColumn;
            this.integerLabels = integerLabels;
        }

        void add(String[] row) {
            if (columns < 0) start(row.length);
            if (row.length != columns)
                throw SmeltException.of("readCsv", "%s line %d has %d fields, but %s has %d", file, line, row.length, names.isEmpty() ? "the first row" : "the header", columns);
            int width = label >= 0 ? columns - 1 : columns;
            if ((long) (rows + 1) * width > Tensor.MAX_SIZE) throw SmeltException.of("readCsv", "%s holds more than %d values, the most a tensor holds", file, Tensor.MAX_SIZE);
            if ((rows + 1) * width > features.length) features = Arrays.copyOf(features, (int) Math.min(Tensor.MAX_SIZE, 2L * features.length + width));
            if (rows == labels.length) labels = Arrays.copyOf(labels, 2 * rows);
            for (int c = 0, f = rows * width; c < columns; c++) {
                if (c == label) labels[rows] = integerLabels ? integer(row[c].strip(), c) : number(row[c].strip(), c);
                else features[f++] = (float) number(row[c].strip(), c);
            }
            rows++;
        }

        // The first row fixes the column count; the label column is resolved against it.
        private void start(int count) {
            columns = names.isEmpty() ? count : names.size();
            if (!labelled) return;
            label = labelColumn < 0 ? labelColumn + columns : labelColumn;
            if (label < 0 || label >= columns)
                throw SmeltException.of("readCsv", "%s: label column %d is out of range for its %d columns (0…%d, or -1 for the last)", file, labelColumn, columns, columns - 1);
            if (columns < 2) throw SmeltException.of("readCsv", "%s has one column: no features are left beside the label", file);
        }

        double number(String text, int column) {
            String lower = text.toLowerCase(Locale.ROOT);
            String unsigned = lower.startsWith("+") || lower.startsWith("-") ? lower.substring(1) : lower;
            if (unsigned.equals("nan")) return Double.NaN;
            if (unsigned.equals("inf") || unsigned.equals("infinity")) return lower.startsWith("-") ? Double.NEGATIVE_INFINITY : Double.POSITIVE_INFINITY;
            if (!decimal(text)) throw bad(column, text, "is not a number");
            return Double.parseDouble(text);
        }

        int integer(String text, int column) {
            if (!text.matches("[+-]?\\d+")) throw bad(column, text, "is not a whole number, as an i32 class label must be");
            try {
                return Integer.parseInt(text);
            } catch (NumberFormatException e) {
                throw bad(column, text, "is out of the i32 range");
            }
        }

        SmeltException bad(int column, String text, String problem) {
            String name = names.isEmpty() ? "" : " (\"" + names.get(column).strip() + "\")";
            String shown = text.isEmpty() ? "an empty field" : "\"" + text + "\"";
            return SmeltException.of("readCsv", "%s line %d, column %d%s: %s %s", file, line, column + 1, name, shown, problem);
        }
    }

    // [+-]? (digits [. digits?] | . digits) ([eE] [+-]? digits)?, digits ASCII 0-9 only:
    // Double.parseDouble takes no others, and a file whose numbers are written in other scripts
    // is better refused with its line and column than half read.
    private static boolean decimal(String text) {
        int i = text.startsWith("+") || text.startsWith("-") ? 1 : 0, digits = 0, n = text.length();
        for (; i < n && digit(text.charAt(i)); i++) digits++;
        if (i < n && text.charAt(i) == '.') for (i++; i < n && digit(text.charAt(i)); i++) digits++;
        if (digits == 0) return false;
        if (i < n && (text.charAt(i) == 'e' || text.charAt(i) == 'E')) {
            i++;
            if (i < n && (text.charAt(i) == '+' || text.charAt(i) == '-')) i++;
            int exponent = 0;
            for (; i < n && digit(text.charAt(i)); i++) exponent++;
            if (exponent == 0) return false;
        }
        return i == n;
    }

    private static boolean digit(char c) { return c >= '0' && c <= '9'; }

    private static Table read(Path file, boolean header, boolean labelled, int labelColumn, boolean integerLabels) {
        if (file == null) throw SmeltException.of("readCsv", "the path is null");
        var table = new Table(file, labelled, labelColumn, integerLabels);
        try (var reader = new BufferedReader(new InputStreamReader(open(file), StandardCharsets.UTF_8))) {
            for (String line; (line = reader.readLine()) != null; ) {
                if (++table.line == 1 && line.startsWith("\uFEFF")) line = line.substring(1); // a byte-order mark
                if (line.isBlank()) continue;
                String[] row = line.split(",", -1);
                if (header && table.names.isEmpty()) table.names = List.of(row);
                else table.add(row);
            }
        } catch (NoSuchFileException e) {
            throw SmeltException.of("readCsv", "%s does not exist", file);
        } catch (IOException e) {
            var error = SmeltException.of("readCsv", "cannot read %s: %s", file, e);
            error.initCause(e);
            throw error;
        }
        if (table.rows == 0) throw SmeltException.of("readCsv", "%s has no data rows%s", file, header ? " after its header" : "");
        return table;
    }

    // The file's bytes, decompressed when they start with gzip's magic number 1f 8b.
    private static InputStream open(Path file) throws IOException {
        var in = new BufferedInputStream(Files.newInputStream(file));
        in.mark(2);
        boolean gzip = in.read() == 0x1f && in.read() == 0x8b;
        in.reset();
        return gzip ? new GZIPInputStream(in) : in;
    }
}
