// SPDX-License-Identifier: Apache-2.0
package dev.smelt.usage;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.spi.ToolProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.objectweb.asm.ClassReader;
import org.objectweb.asm.ClassVisitor;
import org.objectweb.asm.Handle;
import org.objectweb.asm.MethodVisitor;
import org.objectweb.asm.Opcodes;

/// The build's desugaring step (`build-tools/Desugar.java`, run by Maven once javac is done): the
/// library's classes link no `invokedynamic` call site, and a program desugared by it prints what
/// the same program prints as javac compiled it.
class DesugarTest {
    static final Path TOOL = Path.of("../build-tools/Desugar.java");

    @Test
    void smeltsClassesHaveNoCallSiteToLink() throws IOException {
        List<String> sites = callSites(ModulePathTest.CLASSES);
        assertTrue(sites.isEmpty(), "invokedynamic left in " + sites + " (classes not built by Maven? process-classes runs " + TOOL + ")");
    }

    @Test
    void aDesugaredProgramPrintsWhatItPrintedBefore(@TempDir Path dir) throws Exception {
        Path source = dir.resolve("src/fixture/Fixture.java"), compiled = dir.resolve("javac"), desugared = dir.resolve("desugared");
        Files.createDirectories(source.getParent());
        try (var in = DesugarTest.class.getResourceAsStream("/dev/smelt/usage/Fixture.java.txt")) {
            Files.write(source, in.readAllBytes());
        }
        var errors = new StringWriter();
        var javac = ToolProvider.findFirst("javac").orElseThrow();
        int status = javac.run(new PrintWriter(errors), new PrintWriter(errors), "-d", compiled.toString(), "-XDstringConcat=inline", source.toString());
        assertEquals(0, status, errors.toString());
        copy(compiled, desugared);
        String asm = Path.of(ClassReader.class.getProtectionDomain().getCodeSource().getLocation().toURI()).toString();
        String report = run(List.of("-cp", asm, TOOL.toString(), desugared.toString()));
        assertTrue(report.contains("call sites left: {}"), report);
        assertTrue(callSites(compiled).size() > 20, "the fixture should have call sites to desugar: " + callSites(compiled));
        assertEquals(List.of(), callSites(desugared));
        String before = run(List.of("-cp", compiled.toString(), "fixture.Fixture")), after = run(List.of("-cp", desugared.toString(), "fixture.Fixture"));
        assertTrue(before.lines().count() >= 20, before);
        assertEquals(before, after);
    }

    // Each method of a class under `classes` that still has an invokedynamic, with its bootstrap.
    private static List<String> callSites(Path classes) throws IOException {
        var sites = new ArrayList<String>();
        List<Path> files;
        try (var walk = Files.walk(classes)) {
            files = walk.filter(f -> f.toString().endsWith(".class")).toList();
        }
        for (Path file : files) {
            var reader = new ClassReader(Files.readAllBytes(file));
            reader.accept(new ClassVisitor(Opcodes.ASM9) {
                @Override
                public MethodVisitor visitMethod(int access, String name, String descriptor, String signature, String[] exceptions) {
                    return new MethodVisitor(Opcodes.ASM9) {
                        @Override
                        public void visitInvokeDynamicInsn(String indy, String indyDescriptor, Handle bootstrap, Object... arguments) {
                            sites.add(reader.getClassName() + "." + name + " (" + bootstrap.getOwner() + "." + bootstrap.getName() + ")");
                        }
                    };
                }
            }, 0);
        }
        return sites;
    }

    private static void copy(Path from, Path to) throws IOException {
        try (var walk = Files.walk(from)) {
            for (Path file : walk.toList()) {
                Path target = to.resolve(from.relativize(file).toString());
                if (Files.isDirectory(file)) Files.createDirectories(target);
                else Files.copy(file, target);
            }
        }
    }

    // A fresh JVM's output (it must exit with 0).
    private static String run(List<String> arguments) throws Exception {
        var command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString()));
        command.addAll(arguments);
        var process = new ProcessBuilder(command).redirectErrorStream(true).start();
        String output = new String(process.getInputStream().readAllBytes());
        assertTrue(process.waitFor(60, TimeUnit.SECONDS), "did not finish within a minute: " + command);
        assertEquals(0, process.exitValue(), command + "\n" + output);
        return output;
    }
}
