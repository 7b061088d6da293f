// SPDX-License-Identifier: Apache-2.0
package dev.smelt.ir;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/// A `-Dsmelt.*` value the property does not take is reported and replaced by the default: read in
/// a static initialiser, it threw an `ExceptionInInitializerError` at every compile
/// (`smelt.vectorRegisters=0`) or was ignored without a word (`smelt.threads=abc`, `smelt.tier=bogus`).
class SettingsTest {
    private static final String NAME = "smelt.settingsTest";

    @Test
    void goodValuesAreRead() {
        assertEquals(7, with("7", () -> Settings.integer(NAME, 3, 1)));
        assertEquals(0L, with(" 0 ", () -> Settings.longValue(NAME, 5, 0)));
        assertEquals("scalar", with("scalar", () -> Settings.choice(NAME, "auto", "auto", "scalar", "vector")));
        assertEquals(3, with(null, () -> Settings.integer(NAME, 3, 1)));
    }

    @Test
    void badValuesAreReportedAndTheDefaultUsed() {
        for (String bad : new String[] {"abc", "0", "-1", "99999999999", ""})
            assertEquals(3, reported(bad, "a whole number of at least 1", () -> Settings.integer(NAME, 3, 1)));
        assertEquals("auto", reported("bogus", "one of auto, scalar, vector", () -> Settings.choice(NAME, "auto", "auto", "scalar", "vector")));
    }

    private static <T> T reported(String value, String expected, Supplier<T> read) {
        var err = System.err;
        var captured = new ByteArrayOutputStream();
        System.setErr(new PrintStream(captured, true));
        try {
            T result = with(value, read);
            String message = captured.toString();
            assertTrue(message.contains("-D" + NAME + "=" + value) && message.contains(expected), message);
            return result;
        } finally {
            System.setErr(err);
        }
    }

    private static <T> T with(String value, Supplier<T> read) {
        if (value == null) System.clearProperty(NAME);
        else System.setProperty(NAME, value);
        try {
            return read.get();
        } finally {
            System.clearProperty(NAME);
        }
    }
}
