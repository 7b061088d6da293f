// SPDX-License-Identifier: Apache-2.0
package dev.smelt.runtime.attention;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/// `DoubleAttention` is `FloatAttention` with its types replaced (Java has no generics over
/// primitive arrays): this keeps the twin from drifting. After changing the f32 file, write the
/// f64 one from it by the same replacements.
class AttentionTwinsTest {
    private static final Path SOURCES = Path.of("src/main/java/dev/smelt/runtime/attention");

    @Test
    void doubleAttentionIsFloatAttentionForF64() throws IOException {
        String f32 = Files.readString(SOURCES.resolve("FloatAttention.java")), f64 = Files.readString(SOURCES.resolve("DoubleAttention.java"));
        String expected = f32.replace("float", "double").replace("Float", "Double").replace("F32", "F64")
                .replace(", 0f)", ", 0)").replace("(double) Math", "Math")
                .replace("/// Runs an f32 [AttentionKernel] (FlashAttention-2), work item by work item. `DoubleAttention` is\n/// this file for f64.",
                        "/// Runs an f64 [AttentionKernel] (FlashAttention-2), work item by work item. The twin of\n/// `FloatAttention` (f32), types replaced.");
        assertEquals(expected, f64, "DoubleAttention.java is not FloatAttention.java with its types replaced");
    }
}
