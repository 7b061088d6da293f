// SPDX-License-Identifier: Apache-2.0
package dev.smelt.runtime.matmul;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/// `TinyProduct`'s f64 half is its f32 half with the types replaced: Java has no generics over
/// primitive arrays, and Vector API code shared by both element types would be compiled by C2 once
/// for both, with no constant species, every vector boxed. This keeps the halves from drifting
/// (comments aside). After changing the f32 half, write the f64 one from it by the same replacements.
class TinyProductTwinsTest {
    private static final Path SOURCE = Path.of("src/main/java/dev/smelt/runtime/matmul/TinyProduct.java");

    @Test
    void theF64HalfIsTheF32HalfForF64() throws IOException {
        String text = Files.readString(SOURCE);
        int f32 = text.indexOf("    static void run(float[]"), f64 = text.indexOf("    static void run(double[]");
        String expected = code(text.substring(f32, f64)).replace("float", "double").replace("Float", "Double").replace("F32", "F64");
        assertEquals(expected, code(text.substring(f64, text.lastIndexOf('}'))), "TinyProduct's f64 half is not its f32 half with the types replaced");
    }

    // The lines that are code: comment and blank lines dropped.
    private static String code(String half) {
        return half.lines().filter(line -> !line.isBlank() && !line.strip().startsWith("//")).collect(Collectors.joining("\n"));
    }
}
