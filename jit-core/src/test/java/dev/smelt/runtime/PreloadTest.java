// SPDX-License-Identifier: Apache-2.0
package dev.smelt.runtime;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/// The classes loaded ahead of a first compile: the shipped list names only classes that exist
/// (a renamed class would silently stop being preloaded), and a line that names none is skipped.
class PreloadTest {
    @Test
    void everyListedClassIsFound() throws Exception {
        try (InputStream list = Preload.class.getResourceAsStream(Preload.LIST)) {
            int[] counts = Preload.preload(list);
            assertEquals(0, counts[1], "listed classes not found: run dev.smelt.benchmarks.PreloadList to write the list again");
            assertTrue(counts[0] > 100, "a first compile loads a few hundred classes; the list has " + counts[0]);
        }
    }

    @Test
    void linesThatNameNoClassAreSkipped() throws Exception {
        String list = """
                # a comment
                link dev.smelt.runtime.NoSuchClass

                load java.lang.String
                link dev.smelt.runtime.Workers
                """;
        assertArrayEquals(new int[] {2, 1}, Preload.preload(new ByteArrayInputStream(list.getBytes(StandardCharsets.UTF_8))));
    }
}
