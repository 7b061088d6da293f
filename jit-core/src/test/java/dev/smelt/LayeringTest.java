// SPDX-License-Identifier: Apache-2.0
package dev.smelt;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.smelt.testing.PackageGraph;
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

/// Enforces ARCHITECTURE.md's package picture: each package of `jit-core` uses only the layers
/// below it (so no stage reaches into a later one), there is no package cycle, and only `codegen`
/// imports ASM. Package "" is the root package `dev.smelt`, the public API.
class LayeringTest {
    static final Path SOURCES = Path.of("src/main/java/dev/smelt"), CLASSES = Path.of("target/classes");
    static final Map<String, Set<String>> ALLOWED = Map.ofEntries(
            Map.entry("ir", Set.of()),
            Map.entry("trace", Set.of("ir")),
            Map.entry("ref", Set.of("ir")),
            Map.entry("pass", Set.of("ir")),
            Map.entry("kernel", Set.of("ir")),
            Map.entry("fusion", Set.of("ir", "kernel")),
            Map.entry("plan", Set.of("ir", "kernel")),           // kernel IR speaks of ir's DType and Shape
            Map.entry("codegen", Set.of("ir", "kernel", "plan")),
            Map.entry("runtime", Set.of("ir", "kernel", "plan", "codegen")),
            Map.entry("runtime.attention", Set.of("ir", "kernel", "codegen")),
            Map.entry("runtime.matmul", Set.of("ir", "kernel", "codegen", "runtime")), // loads its tiles with runtime's KernelLoader
            Map.entry("io", Set.of("ir")),                       // file formats read and write ir's Storage
            Map.entry("driver", Set.of("ir", "pass", "fusion", "kernel", "plan", "codegen", "runtime", "runtime.attention", "runtime.matmul")),
            Map.entry("ops", Set.of("ir", "trace", "driver", "runtime")),   // eager ops run one-op programs through the driver
            Map.entry("", Set.of("ops", "trace", "ir", "ref", "io")));  // Traced.interpret runs the reference interpreter
    /// The root package's files that run the pipeline: `Jit`, `Compiled` with its `SignatureCache`
    /// (the runtime's `OnceMap` of programs), and the `@Compile` front end (its
    /// annotation names a `FusionMode`; its subclasses come from `codegen`). The rest of the API
    /// reaches the pipeline through `ops`.
    static final List<String> TOP = List.of("Jit.java", "Compiled.java", "SignatureCache.java", "Compile.java", "CompiledMethods.java", "MethodClass.java");
    static final Pattern IMPORT = Pattern.compile("^import\\s+(?:static\\s+)?(dev\\.smelt\\.[\\w.]+|org\\.objectweb\\.asm[\\w.]*)", Pattern.MULTILINE);

    @Test
    void eachFileImportsOnlyTheLayersBelowIt() throws IOException {
        List<String> offences = new ArrayList<>();
        Map<String, Integer> linesPerPackage = new TreeMap<>();
        try (Stream<Path> files = Files.walk(SOURCES)) {
            for (Path file : files.filter(f -> f.toString().endsWith(".java")).sorted().toList()) {
                String text = Files.readString(file), layer = layerOf(file);
                linesPerPackage.merge(layer.isEmpty() ? "dev.smelt" : "dev.smelt." + layer, (int) text.lines().count(), Integer::sum);
                offences.addAll(offences(file, layer, text));
            }
        }
        linesPerPackage.forEach((name, lines) -> System.out.printf("jit-core main %-26s %6d lines%n", name, lines));
        assertEquals("", String.join("\n", offences), "imports that break the layering in ARCHITECTURE.md");
    }

    /// The same rule on the class files, which also see fully qualified names in code.
    @Test
    void eachPackageUsesOnlyTheLayersBelowIt() {
        var offences = new ArrayList<String>();
        PackageGraph.of(CLASSES).uses().forEach((from, targets) -> {
            String layer = from.equals("dev.smelt") ? "" : from.substring("dev.smelt.".length());
            if (!ALLOWED.containsKey(layer)) offences.add(from + " is missing from LayeringTest.ALLOWED");
            else if (!layer.isEmpty()) for (String to : targets) if (!allowed(layer, to)) offences.add(from + " uses " + to);
        });
        assertEquals("", String.join("\n", offences));
    }

    @Test
    void noPackageCycle() {
        assertEquals(List.of(), PackageGraph.of(CLASSES).cycles());
    }

    @Test
    void aCycleIsFoundAlongItsEdges() {
        var graph = new PackageGraph(Map.of("a", Set.of("b"), "b", Set.of("c"), "c", Set.of("a", "d"), "d", Set.of()));
        assertEquals(List.of("a → b → c → a"), graph.cycles());
        assertEquals(List.of(), new PackageGraph(Map.of("a", Set.of("b"), "b", Set.of())).cycles());
    }

    static String layerOf(Path file) {
        Path relative = SOURCES.relativize(file.getParent() == null ? file : file.getParent());
        return relative.toString().isEmpty() ? "" : relative.toString().replace('/', '.');
    }

    static List<String> offences(Path file, String layer, String text) {
        if (layer.isEmpty() && TOP.stream().anyMatch(file::endsWith)) return List.of();  // the top: may use anything
        if (!ALLOWED.containsKey(layer)) return List.of(file + ": package '" + layer + "' is missing from LayeringTest.ALLOWED");
        return IMPORT.matcher(text).results().map(match -> match.group(1))
                .filter(name -> !allowed(layer, name)).map(name -> file + ": import " + name).toList();
    }

    /// Whether `layer` may use `name` (a class or a package): its own package, or one in its
    /// `ALLOWED` set.
    static boolean allowed(String layer, String name) {
        if (name.startsWith("org.objectweb.asm")) return layer.equals("codegen");
        var target = new StringBuilder();
        for (String part : name.substring("dev.smelt.".length()).split("\\.")) {
            if (Character.isUpperCase(part.charAt(0))) break;
            if (!target.isEmpty()) target.append('.');
            target.append(part);
        }
        return target.toString().equals(layer) || ALLOWED.get(layer).contains(target.toString());
    }
}
