// SPDX-License-Identifier: Apache-2.0
package dev.smelt.runtime;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicBoolean;

/// Loads and links, on a thread of its own, the classes a program's first compile is about to
/// load, so that the compiling thread finds them ready. In a fresh JVM, reading about 220 of
/// Smelt's and ASM's classes from the jar, parsing and verifying them is a third of the first
/// compile; none of it depends on the graph, so it can run on another core while the compiling
/// thread traces and plans. Nothing is initialised here (no static initialiser runs on this
/// thread, so no two threads can wait on each other's class initialisation); a class is linked,
/// and so verified, by asking for its constructors.
///
/// The classes are listed, in the order a first compile loads them, in [#LIST]: `link <name>`
/// for a class the compile verifies, `load <name>` for one it only loads (a pattern switch's case
/// labels). `dev.smelt.benchmarks.PreloadList` writes the list from a fresh JVM's first call of
/// the README's chain, after tracing: the classes tracing loads the compiling thread needs at
/// once, and this thread loading them too would only make it wait for each class's lock. Other
/// programs' first compiles (a training step's) share most of it, the passes, fusion, code
/// generation and ASM; the classes only they load are left out, as the thread would load them
/// beside every program that does not need them. A class that is missing is skipped. With the
/// JDK's AOT cache the classes come parsed and verified, and the list costs this thread about a
/// quarter of what it costs without. Off unless `-Dsmelt.preload=true`: on a 2-core machine the
/// JIT's threads have the other core during a first call, and the first call's wall time did not
/// fall, quiet or busy (README, cold start).
public final class Preload implements Runnable {
    /// The list's resource, beside this class.
    public static final String LIST = "first-compile-classes.txt";

    private static final AtomicBoolean STARTED = new AtomicBoolean(!Boolean.parseBoolean(System.getProperty("smelt.preload", "false")));

    private int loaded, failed;

    private Preload() {}

    /// Starts the loading thread, once per JVM; a later call returns at once.
    public static void start() {
        if (STARTED.get() || STARTED.getAndSet(true)) return; // read first: every compile passes here
        var thread = new Thread(new Preload(), "smelt-preload");
        thread.setDaemon(true);
        thread.start();
    }

    @Override
    public void run() {
        try (InputStream list = Preload.class.getResourceAsStream(LIST)) {
            if (list != null) preload(list);
        } catch (IOException unreadable) {
            // nothing preloaded: each class loads when the compile first needs it, as without this
        }
    }

    /// Loads (and for `link` lines links) each listed class with Smelt's class loader; how many
    /// it found and how many it did not, as `int[] {loaded, failed}`.
    static int[] preload(InputStream list) throws IOException {
        var preload = new Preload();
        var reader = new BufferedReader(new InputStreamReader(list, StandardCharsets.UTF_8));
        for (String line = reader.readLine(); line != null; line = reader.readLine()) preload.line(line.strip());
        return new int[] {preload.loaded, preload.failed};
    }

    private void line(String line) {
        int space = line.indexOf(' ');
        if (line.isEmpty() || line.startsWith("#") || space < 0) return;
        try {
            Class<?> type = Class.forName(line.substring(space + 1), false, Preload.class.getClassLoader());
            if (line.startsWith("link ")) type.getConstructors(); // links the class; public ones only: fewer objects made
            loaded++;
        } catch (ClassNotFoundException | LinkageError missing) {
            failed++; // renamed since the list was written, or left out of this class path
        }
    }
}
