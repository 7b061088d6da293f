// SPDX-License-Identifier: Apache-2.0
package dev.smelt.io;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.channels.FileChannel;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.atomic.AtomicLong;

/// Whole files as memory segments. Reading maps the file, so a tensor's bytes are copied once,
/// from the page cache into its array, and files past 2 GB need no special path. Writing maps a
/// temporary file beside the target and renames it over the target at the end, so a failed or
/// interrupted save leaves the previous file whole.
final class MappedFile {
    private MappedFile() {}

    private static final AtomicLong SAVES = new AtomicLong();

    interface Reader<T> {
        T read(MemorySegment file) throws IOException;
    }

    interface Writer {
        void write(MemorySegment file) throws IOException;
    }

    /// `reader`'s result over the mapped `path`; the mapping ends when it returns, so it must copy
    /// out what it keeps.
    static <T> T read(Path path, Reader<T> reader) throws IOException {
        // A directory opens for reading on Linux, then fails with "No such device" when mapped.
        if (java.nio.file.Files.isDirectory(path)) throw new FormatException("a directory, not a file");
        try (var channel = FileChannel.open(path, StandardOpenOption.READ); var arena = Arena.ofConfined()) {
            long size = channel.size();
            // A zero-length mapping is refused on some platforms; an empty segment says the same.
            return reader.read(size == 0 ? MemorySegment.ofArray(new byte[0]) : channel.map(FileChannel.MapMode.READ_ONLY, 0, size, arena));
        }
    }

    /// Writes a file of `size` bytes at `path`, whose contents `writer` fills in.
    static void write(Path path, long size, Writer writer) throws IOException {
        // Not Files.createTempFile: its owner-only permissions would become the saved file's. A name
        // of each save's own (process and count): saves to one path from two threads or processes
        // sharing one would truncate each other's mapped file (a JVM fault) or rename it away.
        Path temporary = path.resolveSibling(path.getFileName() + "." + ProcessHandle.current().pid() + "-" + SAVES.incrementAndGet() + ".partial");
        try {
            try (var channel = FileChannel.open(temporary, StandardOpenOption.CREATE, StandardOpenOption.TRUNCATE_EXISTING, StandardOpenOption.READ, StandardOpenOption.WRITE);
                 var arena = Arena.ofConfined()) {
                writer.write(channel.map(FileChannel.MapMode.READ_WRITE, 0, size, arena));
            }
            try {
                Files.move(temporary, path, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
            } catch (AtomicMoveNotSupportedException e) {
                Files.move(temporary, path, StandardCopyOption.REPLACE_EXISTING);
            }
        } finally {
            Files.deleteIfExists(temporary);
        }
    }
}
