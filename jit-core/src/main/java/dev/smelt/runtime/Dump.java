// SPDX-License-Identifier: Apache-2.0
package dev.smelt.runtime;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Optional;
import java.util.Set;

/// `-Djit.dump=trace,fusion,bytecode` prints each named stage's output to standard error as it is
/// produced, and writes it under `target/jit-dump/` (`-Djit.dump.dir` to change), like tinygrad's
/// `DEBUG`. Stages, in the pipeline's order (`driver.Pipeline`): `trace` (the traced graph),
/// `transform` (after autograd's or another transform), `passes` (the optimised graph), `fusion`
/// (the kernels), `memory` (the memory plan), `bytecode` (class files). `-Dsmelt.dump=DIR` writes
/// class files alone, to `DIR`.
public final class Dump {
    private static final Set<String> STAGES = stages(System.getProperty("jit.dump", ""));

    /// Where dumped files go.
    public static final Path DIRECTORY = Path.of(System.getProperty("jit.dump.dir", "target/jit-dump"));

    private Dump() {}

    // A loop, not a stream: every compile reads this class first, and a stream's lambdas cost a fresh JVM milliseconds.
    private static Set<String> stages(String property) {
        var stages = new HashSet<String>();
        for (String stage : property.split(",")) if (!stage.isBlank()) stages.add(stage.trim());
        return Set.copyOf(stages);
    }

    public static boolean enabled(String stage) { return STAGES.contains(stage) || STAGES.contains("all"); }

    /// Prints `value` under the stage's name when that stage is dumped, writes it to
    /// `<stage>-<hash>.txt`, and returns it, so a pipeline step reads `x = Dump.after("fusion", plan(…))`.
    public static <T> T after(String stage, T value) {
        if (!enabled(stage)) return value;
        String text = value.toString();
        System.err.println("== " + stage + " ==\n" + text);
        write(stage + "-" + Integer.toHexString(text.hashCode()) + ".txt", text.getBytes(java.nio.charset.StandardCharsets.UTF_8));
        return value;
    }

    /// Where generated class files go, if anywhere: `smelt.dump` (a directory, or `true` for the dump
    /// directory), else the dump directory (`jit.dump.dir`) when `jit.dump` names `bytecode`. Read
    /// at each call, so a test or a debugger can switch it on in a running JVM.
    public static Optional<Path> classDirectory() {
        String directory = System.getProperty("smelt.dump");
        if (directory != null && !directory.isBlank() && !directory.equals("true")) return Optional.of(Path.of(directory));
        Path dumps = Path.of(System.getProperty("jit.dump.dir", "target/jit-dump"));
        Set<String> stages = stages(System.getProperty("jit.dump", ""));
        return directory != null || stages.contains("bytecode") || stages.contains("all") ? Optional.of(dumps) : Optional.empty();
    }

    /// Writes `bytes` to `name` in [#DIRECTORY]; a failure to write is reported, never thrown.
    public static void write(String name, byte[] bytes) {
        try {
            Files.createDirectories(DIRECTORY);
            Files.write(DIRECTORY.resolve(name), bytes);
        } catch (IOException e) {
            System.err.println("jit.dump: cannot write " + name + ": " + e);
        }
    }
}
