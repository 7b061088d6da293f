// SPDX-License-Identifier: Apache-2.0
package dev.smelt.examples.support;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;

/// A loss curve as a small SVG file any browser opens: one polyline of the loss per training step,
/// with the first and last values and the step count as labels. Plain text, no plotting library.
public final class LossCurve {
    private LossCurve() {}

    private static final int WIDTH = 640, HEIGHT = 320, MARGIN = 40;

    public static Path write(List<Double> losses, Path file) {
        double max = losses.stream().mapToDouble(Double::doubleValue).max().orElse(1), min = Math.min(0, losses.stream().mapToDouble(Double::doubleValue).min().orElse(0));
        var points = new StringBuilder();
        for (int i = 0; i < losses.size(); i++) {
            double x = MARGIN + (WIDTH - 2.0 * MARGIN) * i / Math.max(1, losses.size() - 1);
            double y = HEIGHT - MARGIN - (HEIGHT - 2.0 * MARGIN) * (losses.get(i) - min) / Math.max(1e-12, max - min);
            points.append(String.format(Locale.ROOT, "%.1f,%.1f ", x, y));
        }
        String svg = String.format(Locale.ROOT, """
                <svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" font-family="sans-serif" font-size="12">
                  <rect width="100%%" height="100%%" fill="white"/>
                  <line x1="%d" y1="%d" x2="%d" y2="%d" stroke="black"/>
                  <line x1="%d" y1="%d" x2="%d" y2="%d" stroke="black"/>
                  <polyline fill="none" stroke="steelblue" stroke-width="1.5" points="%s"/>
                  <text x="%d" y="%d">loss %.3f</text>
                  <text x="%d" y="%d" text-anchor="end">%.3f after %d steps</text>
                  <text x="%d" y="20" text-anchor="middle">training loss per step</text>
                </svg>
                """, WIDTH, HEIGHT, MARGIN, HEIGHT - MARGIN, WIDTH - MARGIN, HEIGHT - MARGIN, MARGIN, MARGIN, MARGIN, HEIGHT - MARGIN,
                points.toString().strip(), MARGIN + 4, MARGIN + 12, losses.getFirst(), WIDTH - MARGIN, HEIGHT - MARGIN - 6, losses.getLast(), losses.size(), WIDTH / 2);
        try {
            Files.createDirectories(file.toAbsolutePath().getParent());
            Files.writeString(file, svg);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return file.toAbsolutePath();
    }
}
