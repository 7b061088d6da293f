// SPDX-License-Identifier: Apache-2.0
package dev.smelt.examples.support;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ChartTest {
    @Test
    void ticksAreRoundAndCoverTheRange() {
        assertArrayEquals(new double[] {0, 0.5, 1, 1.5, 2, 2.5}, Chart.ticks(0, 2.31, 6));
        assertArrayEquals(new double[] {0.9, 0.92, 0.94, 0.96, 0.98, 1}, Chart.ticks(0.9, 1, 6));
        assertArrayEquals(new double[] {0, 5, 10, 15, 20, 25, 30}, Chart.ticks(0, 30, 10));
        assertArrayEquals(new double[] {-20, -10, 0, 10}, Chart.ticks(-17, 3, 3));
    }

    /// A run of 30 epochs: well-formed SVG with both axes' labels, a mark per epoch and a point per value.
    @Test
    void aTrainingRunHasAxesTicksLabelsAndEpochMarks(@TempDir Path directory) throws Exception {
        var losses = new ArrayList<Double>();
        var accuracies = new ArrayList<Double>();
        for (int epoch = 0; epoch < 30; epoch++) {
            for (int step = 0; step < 44; step++) losses.add(2.3 * Math.exp(-(epoch * 44 + step) / 200.0));
            accuracies.add(1 - 0.5 * Math.exp(-epoch / 3.0));
        }
        losses.set(5, Double.NaN); // a NaN loss leaves a gap, not an unparseable point
        Path file = new Chart("digits").left("loss", losses, 44).right("test accuracy", accuracies, 1).write(directory.resolve("run.svg"));
        String svg = Files.readString(file);
        DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(file.toFile()); // throws unless well-formed
        for (String text : List.of(">digits<", ">epoch<", ">loss<", ">test accuracy<", ">30<", ">0.5<"))
            assertTrue(svg.contains(text), text);
        assertEquals(30, Pattern.compile("stroke=\"#e4e4e4\"").matcher(svg).results().count());
        var polylines = Pattern.compile("points=\"([^\"]*)\"").matcher(svg).results().map(m -> m.group(1).split(" ").length).toList();
        assertEquals(List.of(losses.size() - 1, accuracies.size()), polylines);
    }
}
