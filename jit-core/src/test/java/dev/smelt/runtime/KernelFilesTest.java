// SPDX-License-Identifier: Apache-2.0
package dev.smelt.runtime;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.smelt.codegen.GeneratedKernel;
import dev.smelt.codegen.Variant;
import java.io.File;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class KernelFilesTest {
    @TempDir
    File directory;

    static String key(GeneratedKernel kernel) { return kernel.variant() + " 512\n" + kernel.kernelText(); }

    @Test
    void aWrittenClassIsReadBackWholeAndRuns() {
        for (var variant : Variant.values()) {
            var kernel = KernelLoaderTest.emit(variant);
            var file = new File(directory, variant + ".class");
            KernelFiles.write(file, key(kernel), kernel);
            var read = KernelFiles.read(file, key(kernel), variant);
            assertEquals(kernel, read); // class name, bytes and variant
            assertEquals(kernel.runCodeSize(), read.runCodeSize());
            assertEquals(kernel.scalarFallbacks(), read.scalarFallbacks());
            assertEquals(kernel.kernelText(), read.kernelText());
            float[] in = {1.5f, -2, 3}, out = new float[40], expected = new float[40];
            KernelLoader.load(kernel).run(new Object[] {java.util.Arrays.copyOf(in, 40), expected}, 0, 40);
            KernelLoader.load(read).run(new Object[] {java.util.Arrays.copyOf(in, 40), out}, 0, 40);
            assertArrayEquals(expected, out);
        }
    }

    @Test
    void aMissingCorruptTruncatedOrOtherKernelsFileIsAMiss() throws Exception {
        var kernel = KernelLoaderTest.emit(Variant.SCALAR);
        var file = new File(directory, "k.class");
        assertNull(KernelFiles.read(file, key(kernel), Variant.SCALAR), "missing");
        KernelFiles.write(file, key(kernel), kernel);
        assertNull(KernelFiles.read(file, "SCALAR 256\n" + kernel.kernelText(), Variant.SCALAR), "another machine's vector size: a hash collision");
        byte[] whole = Files.readAllBytes(file.toPath());
        for (int at : new int[] {0, 9, whole.length / 2, whole.length - 1}) {
            byte[] corrupt = whole.clone();
            corrupt[at] ^= 1;
            Files.write(file.toPath(), corrupt);
            assertNull(KernelFiles.read(file, key(kernel), Variant.SCALAR), "byte " + at + " flipped");
        }
        for (int length : new int[] {0, 3, 8, 20, whole.length - 1}) {
            Files.write(file.toPath(), java.util.Arrays.copyOf(whole, length));
            assertNull(KernelFiles.read(file, key(kernel), Variant.SCALAR), "cut to " + length + " bytes");
        }
        KernelFiles.write(file, key(kernel), kernel); // written over
        assertNotNull(KernelFiles.read(file, key(kernel), Variant.SCALAR));
    }

    /// Writers rename whole files into place: a reader beside them sees nothing or a whole file.
    @Test
    void concurrentWritersAndReadersSeeNothingOrAWholeFile() throws Exception {
        var kernel = KernelLoaderTest.emit(Variant.VECTOR);
        var file = new File(directory, "shared.class");
        try (var threads = Executors.newFixedThreadPool(4)) {
            var results = new ArrayList<Future<?>>();
            for (int t = 0; t < 4; t++)
                results.add(threads.submit(() -> {
                    for (int i = 0; i < 50; i++) {
                        KernelFiles.write(file, key(kernel), kernel);
                        var read = KernelFiles.read(file, key(kernel), Variant.VECTOR);
                        if (read != null) assertEquals(kernel, read);
                    }
                    return null;
                }));
            for (var result : results) result.get();
        }
        assertEquals(kernel, KernelFiles.read(file, key(kernel), Variant.VECTOR));
        assertEquals(1, directory.list().length, "no temporary file left");
    }

    /// A new jar's directory removes those of other jars that had no new file for a week.
    @Test
    void aNewJarsDirectoryRemovesOtherJarsStaleOnes() throws Exception {
        long now = System.currentTimeMillis();
        var current = new File(directory, "00000000000000c0");
        var recent = new File(directory, "00000000000000e0");
        var stale = new File(directory, "00000000000000f0");
        for (var jar : new File[] {current, recent, stale}) {
            assertTrue(jar.mkdir());
            Files.write(new File(jar, "0123456789abcdef.class").toPath(), new byte[] {1, 2, 3});
        }
        Files.write(new File(stale, "0123456789abcdef.class.1.2.tmp").toPath(), new byte[] {1});
        assertTrue(recent.setLastModified(now - KernelFiles.STALE_MILLIS + 60_000));
        assertTrue(stale.setLastModified(now - KernelFiles.STALE_MILLIS - 60_000));
        KernelFiles.prune(current, now);
        assertTrue(current.isDirectory() && recent.isDirectory());
        assertFalse(stale.exists());
    }

    /// `-Dsmelt.kernelFiles` may name a directory of the user's: pruning removes only the jar
    /// directories and kernel files it names itself, however old the rest is.
    @Test
    void pruningLeavesTheUsersOwnFilesAlone() throws Exception {
        long old = System.currentTimeMillis() - KernelFiles.STALE_MILLIS - 60_000;
        var current = new File(directory, "00000000000000c0");
        var notes = new File(directory, "notes");
        var stale = new File(directory, "00000000000000f0");
        for (var folder : new File[] {current, notes, stale}) assertTrue(folder.mkdir());
        Files.write(new File(notes, "0123456789abcdef.class").toPath(), new byte[] {1});
        Files.write(new File(stale, "0123456789abcdef.class").toPath(), new byte[] {1});
        Files.write(new File(stale, "todo.txt").toPath(), new byte[] {2});
        assertTrue(notes.setLastModified(old) && stale.setLastModified(old));
        KernelFiles.prune(current, System.currentTimeMillis());
        assertTrue(new File(notes, "0123456789abcdef.class").isFile(), "another folder's files stay");
        assertFalse(new File(stale, "0123456789abcdef.class").exists());
        assertTrue(new File(stale, "todo.txt").isFile(), "a file Smelt did not name stays, and so does its folder");
    }

    /// Classes loaded from a directory (this test run's target/classes) have no jar to name their
    /// files by, so none are read or written; `off` turns the files off anywhere.
    @Test
    void classesFromADirectoryOrTurnedOffUseNoFiles() {
        assertNull(KernelFiles.directory(directory.getPath()));
        assertNull(KernelFiles.directory("off"));
    }
}
