// SPDX-License-Identifier: Apache-2.0
package dev.smelt.examples.support;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/// A line chart of a training run as an SVG file any browser opens: one series against the left
/// axis (the loss), optionally one against the right axis (an accuracy), x in epochs with a mark at
/// each epoch, ticks at round values (1, 2 or 5 times a power of ten) and labelled axes. Plain text,
/// no plotting library.
public final class Chart {
    private static final int WIDTH = 720, HEIGHT = 400, LEFT = 64, RIGHT = 64, TOP = 44, BOTTOM = 52;
    private static final String LEFT_COLOUR = "steelblue", RIGHT_COLOUR = "darkorange";

    private final String title;
    private final StringBuilder svg = new StringBuilder();
    private double epochs = 1;
    private Series left, right;

    /// One series: its label and its points, x in epochs.
    private record Series(String label, double[] x, double[] y) {}

    /// An empty chart titled `title`.
    public Chart(String title) { this.title = title; }

    /// `values` recorded `perEpoch` times an epoch (each step's loss, say), against the left axis.
    public Chart left(String label, List<Double> values, int perEpoch) {
        left = series(label, values, perEpoch);
        return this;
    }

    /// `values` recorded `perEpoch` times an epoch (each epoch's accuracy, say), against the right axis.
    public Chart right(String label, List<Double> values, int perEpoch) {
        right = series(label, values, perEpoch);
        return this;
    }

    private Series series(String label, List<Double> values, int perEpoch) {
        if (values.isEmpty() || perEpoch < 1) throw new IllegalArgumentException(label + ": no values, or " + perEpoch + " per epoch");
        double[] x = new double[values.size()], y = new double[values.size()];
        for (int i = 0; i < x.length; i++) {
            x[i] = (i + 1.0) / perEpoch;
            y[i] = values.get(i);
        }
        epochs = Math.max(epochs, Math.ceil(x[x.length - 1]));
        return new Series(label, x, y);
    }

    /// Writes the chart to `file` and returns it.
    public Path write(Path file) {
        if (left == null) throw new IllegalStateException("a chart needs a series on the left axis");
        svg.setLength(0);
        add("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" font-family=\"sans-serif\" font-size=\"12\">", WIDTH, HEIGHT);
        add("<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>");
        add("<text x=\"%d\" y=\"24\" text-anchor=\"middle\" font-size=\"15\">%s</text>", WIDTH / 2, escape(title));
        double[] xTicks = ticks(0, epochs, 10);
        for (double epoch = 1; epoch <= epochs; epoch++) // epoch marks
            add("<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#e4e4e4\"/>", x(epoch), TOP, x(epoch), HEIGHT - BOTTOM);
        for (double tick : xTicks) {
            add("<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"black\"/>", x(tick), HEIGHT - BOTTOM, x(tick), HEIGHT - BOTTOM + 5);
            add("<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%s</text>", x(tick), HEIGHT - BOTTOM + 18, label(tick));
        }
        add("<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">epoch</text>", (LEFT + WIDTH - RIGHT) / 2, HEIGHT - 12);
        add("<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"black\"/>", LEFT, HEIGHT - BOTTOM, WIDTH - RIGHT, HEIGHT - BOTTOM);
        axis(left, LEFT, -1, LEFT_COLOUR);
        if (right != null) axis(right, WIDTH - RIGHT, 1, RIGHT_COLOUR);
        add("</svg>");
        try {
            Files.createDirectories(file.toAbsolutePath().getParent());
            Files.writeString(file, svg);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return file;
    }

    // A vertical axis at `at` with ticks on the `side` (-1 left, 1 right), its label, and its series.
    private void axis(Series series, int at, int side, String colour) {
        double low = Math.min(0, min(series.y)), high = max(series.y);
        if (!(high > low)) high = low + 1;
        double[] ticks = ticks(low, high, 6);
        low = Math.min(low, ticks[0]);
        high = Math.max(high, ticks[ticks.length - 1]);
        add("<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"black\"/>", at, TOP, at, HEIGHT - BOTTOM);
        for (double tick : ticks) {
            double y = y(tick, low, high);
            add("<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"black\"/>", at, y, at + 5 * side, y);
            add("<text x=\"%d\" y=\"%.1f\" text-anchor=\"%s\" fill=\"%s\">%s</text>", at + 8 * side, y + 4, side < 0 ? "end" : "start", colour, label(tick));
        }
        int middle = (TOP + HEIGHT - BOTTOM) / 2, labelX = at + 50 * side;
        add("<text x=\"%d\" y=\"%d\" text-anchor=\"middle\" fill=\"%s\" transform=\"rotate(%d %d %d)\">%s</text>",
                labelX, middle, colour, -90 * -side, labelX, middle, escape(series.label));
        var points = new StringBuilder();
        for (int i = 0; i < series.x.length; i++)
            if (Double.isFinite(series.y[i])) points.append(String.format(Locale.ROOT, "%.1f,%.1f ", x(series.x[i]), y(series.y[i], low, high)));
        add("<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"1.5\" points=\"%s\"/>", colour, points.toString().strip());
    }

    /// Round tick values covering `[low, high]` with about `count` intervals: steps of 1, 2 or 5 times
    /// a power of ten, from the multiple of the step at or below `low` to the one at or above `high`.
    static double[] ticks(double low, double high, int count) {
        double raw = (high - low) / count;
        int exponent = (int) Math.floor(Math.log10(raw));
        double multiple = 1;
        for (double next : new double[] {2, 5, 10}) if (multiple * Math.pow(10, exponent) < raw) multiple = next;
        double step = multiple * Math.pow(10, exponent);
        var ticks = new ArrayList<Double>();
        for (long k = (long) Math.floor(low / step); k <= (long) Math.ceil(high / step); k++) // k·multiple / 10^-e: 0.94, not 0.9400000000000001
            ticks.add(exponent >= 0 ? k * multiple * Math.pow(10, exponent) : k * multiple / Math.pow(10, -exponent));
        return ticks.stream().mapToDouble(Double::doubleValue).toArray();
    }

    private double x(double epoch) { return LEFT + (WIDTH - LEFT - RIGHT) * epoch / epochs; }

    private static double y(double value, double low, double high) { return HEIGHT - BOTTOM - (HEIGHT - TOP - BOTTOM) * (value - low) / (high - low); }

    private static String label(double value) {
        return Math.abs(value - Math.rint(value)) < 1e-9 ? String.valueOf((long) Math.rint(value)) : String.format(Locale.ROOT, "%.3g", value).replaceAll("0+$", "");
    }

    private static double min(double[] values) {
        double min = Double.POSITIVE_INFINITY;
        for (double value : values) if (Double.isFinite(value)) min = Math.min(min, value);
        return min == Double.POSITIVE_INFINITY ? 0 : min;
    }

    private static double max(double[] values) {
        double max = Double.NEGATIVE_INFINITY;
        for (double value : values) if (Double.isFinite(value)) max = Math.max(max, value);
        return max == Double.NEGATIVE_INFINITY ? 1 : max;
    }

    private void add(String format, Object... args) { svg.append(String.format(Locale.ROOT, format, args)).append('\n'); }

    private static String escape(String text) { return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;"); }
}
