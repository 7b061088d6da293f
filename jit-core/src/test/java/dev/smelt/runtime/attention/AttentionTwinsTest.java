// SPDX-License-Identifier: Apache-2.0
package dev.smelt.runtime.attention;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/// Attention's f64 blocks are its f32 blocks with their types replaced (Java has no generics over
/// primitive arrays), except for the vector `exp`: this keeps the twin from drifting. (`DoubleAttention`
/// is generated from `FloatAttention` by the build.)
class AttentionTwinsTest {
    private static final Path SOURCES = Path.of("src/main/java/dev/smelt/runtime/attention");

    /// `DoubleBlocks` is `FloatBlocks` with its types replaced, but for the vector `exp`: f32 computes
    /// it inline, as generated kernels do (its constants are `kernel.Transcendentals`'), f64 with `Math.exp`.
    @Test
    void doubleBlocksIsFloatBlocksForF64() throws IOException {
        String f32 = Files.readString(SOURCES.resolve("FloatBlocks.java")), f64 = Files.readString(SOURCES.resolve("DoubleBlocks.java"));
        f32 = without(f32, "import dev.smelt.kernel.Transcendentals;\n");
        f32 = without(f32, f32.substring(f32.indexOf("    private static final FloatVector E6"), f32.indexOf(";\n", f32.indexOf("    private static final FloatVector E6")) + 2));
        String expected = withoutMethod(f32, "    private static FloatVector exp(FloatVector x)")
                .replace("float", "double").replace("Float", "Double").replace("F32", "F64")
                .replace(", 0f)", ", 0)").replace("(double) Math", "Math")
                .replace("/// The block arithmetic of f32 attention", "/// The block arithmetic of f64 attention")
                .replace("/// of the online softmax. `DoubleBlocks` is this file for f64.", "/// of the online softmax. The twin of `FloatBlocks` (f32), types replaced, `exp` `Math.exp`'s.");
        assertEquals(expected, withoutMethod(f64, "    private static DoubleVector exp(DoubleVector x)"),
                "DoubleBlocks.java is not FloatBlocks.java with its types replaced (the vector exp aside)");
    }

    private static String without(String text, String part) {
        if (!text.contains(part)) throw new AssertionError("no " + part);
        return text.replace(part, "");
    }

    // `text` without the method that `signature` starts, nor its doc comment.
    private static String withoutMethod(String text, String signature) {
        int at = text.indexOf(signature), end = text.indexOf("\n    }\n", at) + "\n    }\n".length(), start = at;
        if (at < 0) throw new AssertionError("no " + signature);
        while (text.startsWith("    ///", text.lastIndexOf('\n', start - 2) + 1)) start = text.lastIndexOf('\n', start - 2) + 1;
        return text.substring(0, start) + text.substring(end);
    }
}
