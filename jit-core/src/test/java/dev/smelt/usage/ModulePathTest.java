// SPDX-License-Identifier: Apache-2.0
package dev.smelt.usage;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.io.IOException;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.io.PrintWriter;
import java.util.spi.ToolProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/// Smelt as a module: an application module that `requires dev.smelt` compiles against the API,
/// cannot see the compiler's stages, and runs a compiled function on the module path with no
/// `--add-modules` flag (requiring Smelt resolves the Vector API and ASM).
class ModulePathTest {
    static final Path CLASSES = Path.of("target/classes");

    @Test
    void anApplicationModuleCompilesAndRunsAFunction(@TempDir Path dir) throws Exception {
        String main = """
                package app;
                import dev.smelt.*;
                import dev.smelt.ir.DType;
                public class Main {
                    public static void main(String[] args) {
                        Compiled f = Jit.compile((Tensor x) -> x.mul(2).add(1).exp().sum());
                        Tensor x = Tensor.ones(DType.F32, 100);
                        System.out.println(f.apply(x).item() + " " + Main.class.getModule().getName() + " " + Tensor.class.getModule().getName());
                    }
                }
                """;
        Path classes = compile(dir, main, true);
        var command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "--module-path", modulePath(classes), "-m", "app/app.Main"));
        var process = new ProcessBuilder(command).redirectErrorStream(true).start();
        assertTrue(process.waitFor(60, TimeUnit.SECONDS), "the application did not finish within a minute");
        String output = new String(process.getInputStream().readAllBytes());
        assertEquals(0, process.exitValue(), output);
        String[] last = output.strip().lines().reduce((a, b) -> b).orElse("").split(" ");
        assertEquals(List.of("app", "dev.smelt"), List.of(last).subList(1, last.length), output);
        assertEquals(100 * Math.exp(3), Double.parseDouble(last[0]), 1e-5 * 100 * Math.exp(3), output);
    }

    @Test
    void theCompilersStagesAreNotExported(@TempDir Path dir) throws Exception {
        String main = """
                package app;
                public class Main {
                    dev.smelt.runtime.Program program;
                }
                """;
        var errors = new StringWriter();
        compile(dir, main, false, errors);
        assertTrue(errors.toString().contains("package dev.smelt.runtime is not visible"), errors.toString());
    }

    private static Path compile(Path dir, String main, boolean mustCompile) throws IOException {
        var errors = new StringWriter();
        Path classes = compile(dir, main, mustCompile, errors);
        assertTrue(errors.toString().isBlank() || !mustCompile, errors.toString());
        return classes;
    }

    private static Path compile(Path dir, String main, boolean mustCompile, StringWriter errors) throws IOException {
        Path source = dir.resolve("src"), classes = dir.resolve("classes");
        Files.createDirectories(source.resolve("app"));
        Files.writeString(source.resolve("module-info.java"), "module app { requires dev.smelt; }");
        Files.writeString(source.resolve("app/Main.java"), main);
        var javac = ToolProvider.findFirst("javac").orElseThrow();
        var out = new PrintWriter(errors);
        boolean ok = javac.run(out, out, "-d", classes.toString(), "--module-path", modulePath(null), "-Xlint:-incubating",
                source.resolve("module-info.java").toString(), source.resolve("app/Main.java").toString()) == 0;
        out.flush();
        assertEquals(mustCompile, ok, errors.toString());
        return classes;
    }

    // Smelt's classes and the ASM jar this test runs with, and the application's classes.
    private static String modulePath(Path application) {
        var entries = new ArrayList<String>();
        entries.add(CLASSES.toAbsolutePath().toString());
        Arrays.stream(System.getProperty("java.class.path").split(File.pathSeparator))
                .filter(entry -> Path.of(entry).getFileName().toString().matches("asm-\\d[\\d.]*\\.jar")).forEach(entries::add);
        if (application != null) entries.add(application.toString());
        return String.join(File.pathSeparator, entries);
    }
}
