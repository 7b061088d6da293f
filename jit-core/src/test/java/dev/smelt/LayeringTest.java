// SPDX-License-Identifier: Apache-2.0
package dev.smelt;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/// Enforces the `→` column of STYLE.md's layout: each package of `jit-core` imports only the layers
/// below it, and only `codegen` imports ASM. Layer "" is the root package `dev.smelt` (`Tensor`, …).
class LayeringTest {
    static final Path SOURCES = Path.of("src/main/java/dev/smelt");
    static final Map<String, Set<String>> ALLOWED = Map.ofEntries(
            Map.entry("ir", Set.of()),
            Map.entry("trace", Set.of("ir")),
            Map.entry("ref", Set.of("ir")),
            Map.entry("pass", Set.of("ir")),
            Map.entry("kernel", Set.of("ir")),
            Map.entry("fusion", Set.of("ir", "kernel")),
            Map.entry("plan", Set.of("ir", "kernel")),          // kernel IR speaks of ir's DType and Shape
            Map.entry("codegen", Set.of("ir", "kernel", "plan")),
            Map.entry("runtime", Set.of("ir", "kernel", "plan", "codegen")),
            Map.entry("io", Set.of("ir")),                      // file formats read and write ir's Storage
            Map.entry("", Set.of("trace", "ir", "ref", "io"))); // Traced.interpret runs the reference interpreter
    /// The pipeline's entry points in the root package: `Jit`, the `Compiler` that runs the stages
    /// (eager ops included, since each runs as a generated kernel), the `Compiled` functions with their
    /// `SignatureCache` and `SizeCache` (bounded by the runtime's `LruMap`), and the
    /// `@Compile` front end (its annotation names a `FusionMode`; its subclasses come from `codegen`).
    static final List<String> TOP = List.of("Jit.java", "Compiler.java", "Compiled.java", "SignatureCache.java", "SizeCache.java", "Compile.java", "CompiledMethods.java", "MethodClass.java");
    static final Pattern IMPORT = Pattern.compile("^import\\s+(?:static\\s+)?(dev\\.smelt\\.[\\w.]+|org\\.objectweb\\.asm[\\w.]*)", Pattern.MULTILINE);

    @Test
    void eachPackageImportsOnlyTheLayersBelowIt() throws IOException {
        List<String> offences = new ArrayList<>();
        Map<String, Integer> linesPerPackage = new TreeMap<>();
        try (Stream<Path> files = Files.walk(SOURCES)) {
            for (Path file : files.filter(f -> f.toString().endsWith(".java")).sorted().toList()) {
                String text = Files.readString(file), layer = layerOf(file);
                linesPerPackage.merge(layer.isEmpty() ? "dev.smelt" : "dev.smelt." + layer, (int) text.lines().count(), Integer::sum);
                offences.addAll(offences(file, layer, text));
            }
        }
        linesPerPackage.forEach((name, lines) -> System.out.printf("jit-core main %-18s %6d lines%n", name, lines));
        assertEquals("", String.join("\n", offences), "imports that break the layering in STYLE.md");
    }

    static String layerOf(Path file) {
        Path relative = SOURCES.relativize(file);
        return relative.getNameCount() == 1 ? "" : relative.getName(0).toString();
    }

    static List<String> offences(Path file, String layer, String text) {
        if (layer.isEmpty() && TOP.stream().anyMatch(file::endsWith)) return List.of();  // the top: may import anything
        if (!ALLOWED.containsKey(layer)) return List.of(file + ": package '" + layer + "' is missing from LayeringTest.ALLOWED");
        return IMPORT.matcher(text).results().map(match -> match.group(1))
                .filter(name -> !allowed(layer, name)).map(name -> file + ": import " + name).toList();
    }

    /// Whether a file in `layer` may import `name`: its own layer, or one in its `ALLOWED` set.
    static boolean allowed(String layer, String name) {
        if (name.startsWith("org.objectweb.asm")) return layer.equals("codegen");
        String first = name.substring("dev.smelt.".length()).split("\\.")[0];
        String target = Character.isUpperCase(first.charAt(0)) ? "" : first;
        return target.equals(layer) || ALLOWED.get(layer).contains(target);
    }
}
