// SPDX-License-Identifier: Apache-2.0
package dev.smelt.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/// Issue 19's bar for the Digits example: at least 96% test accuracy after its save and reload, one
/// compiled training program, a chart written, and at most 45 lines of source without imports and
/// comments.
class DigitsTest {
    @Test
    void reachesNinetySixPercentAfterReloadingItsWeights() throws Exception {
        var out = new ByteArrayOutputStream();
        PrintStream previous = System.out;
        System.setOut(new PrintStream(out, true));
        try {
            Digits.main(new String[0]);
        } finally {
            System.setOut(previous);
        }
        String text = out.toString();
        var reloaded = Pattern.compile("reloaded from \\S+: test accuracy ([0-9.]+)%, training programs compiled: (\\d+)").matcher(text);
        assertTrue(reloaded.find(), text);
        assertTrue(Double.parseDouble(reloaded.group(1)) >= 96, text);
        assertEquals("1", reloaded.group(2), text);
        assertTrue(Files.readString(Path.of("target", "digits.svg")).contains(">test accuracy<"));
    }

    @Test
    void readsInFortyFiveLines() throws Exception {
        String source = Files.readString(Path.of("src/main/java/dev/smelt/examples/Digits.java"));
        long lines = source.lines().map(String::strip)
                .filter(line -> !line.isEmpty() && !line.startsWith("//") && !line.startsWith("import ") && !line.startsWith("package ")).count();
        assertTrue(lines <= 45, lines + " lines");
    }
}
