// SPDX-License-Identifier: Apache-2.0
package dev.smelt.runtime;

import dev.smelt.codegen.GeneratedKernel;
import dev.smelt.codegen.KernelEmitter;
import dev.smelt.codegen.Variant;
import dev.smelt.kernel.Kernel;
import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.File;
import java.io.FileInputStream;
import java.io.FileOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.zip.CRC32;
import jdk.incubator.vector.VectorShape;

/// Generated kernel classes kept in files between runs, so that a fresh JVM that needs a kernel an
/// earlier run of the same Smelt jar generated reads its class file instead of generating it: code
/// generation, and loading the ASM and emitter classes it runs in the bytecode interpreter, is a
/// sixth of a fresh JVM's first compile (README, cold start).
///
/// A file is named by a hash of its key, the kernel's printed text with the variant and the
/// machine's preferred vector size (the scalar class of a floating-point sum adds in its vector
/// twin's lane order), and holds the key itself: a file whose key differs (a collision), whose
/// checksum fails (a torn or corrupt file) or that cannot be read is a miss, generated again and
/// written over. Files are written whole to a temporary name and renamed into place, so concurrent
/// processes read either nothing or a whole file, and two writers of one kernel write the same
/// bytes; all of it with `java.io` (NIO's `Files.move` alone loads some 50 classes in a fresh JVM).
/// The directory is one per Smelt jar, named from the jar's path, size and modification time, so
/// that a rebuilt jar never reads its predecessor's classes (and a new jar's first write removes
/// the directories no file was written to for a week); classes loaded from a directory (an IDE's,
/// a test run's) have no such identity, and use no files.
///
/// Where: `-Dsmelt.kernelFiles=<dir>`, else `$XDG_CACHE_HOME/smelt/kernels` or
/// `~/.cache/smelt/kernels`; `-Dsmelt.kernelFiles=off` turns it off. The files are code that this
/// process runs, as trusted as the jar: keep the directory the user's own.
public final class KernelFiles {
    private static final int MAGIC = 0x534d4b31; // "SMK1": this layout
    /// How long another jar's directory is kept without a new file: a week.
    static final long STALE_MILLIS = 7L * 24 * 3600 * 1000;
    private static final File DIRECTORY = directory(System.getProperty("smelt.kernelFiles"));

    private KernelFiles() {}

    /// The class of `kernel` (printed: `text`) as `variant`: read from its file when an earlier run
    /// wrote it, else generated (and written, best effort).
    public static GeneratedKernel get(Kernel kernel, String text, Variant variant) {
        if (DIRECTORY == null) return KernelEmitter.emit(kernel, variant);
        String key = variant + " " + VectorShape.preferredShape().vectorBitSize() + "\n" + text;
        File file = new File(DIRECTORY, hash(key) + ".class");
        GeneratedKernel known = read(file, key, variant);
        if (known != null) return known;
        GeneratedKernel generated = KernelEmitter.emit(kernel, variant);
        write(file, key, generated);
        return generated;
    }

    /// The directory for this jar's classes, or null for none (turned off, or no jar to name it by).
    static File directory(String property) {
        if ("off".equals(property)) return null;
        File jar = jar();
        if (jar == null) return null;
        String home = System.getenv("XDG_CACHE_HOME");
        File root = property != null && !property.isBlank() ? new File(property)
                : home != null && !home.isBlank() ? new File(home, "smelt/kernels") : new File(System.getProperty("user.home"), ".cache/smelt/kernels");
        return new File(root, hash(jar.getAbsolutePath() + " " + jar.length() + " " + jar.lastModified()));
    }

    // The jar this class was loaded from; null when it came from a directory or from nowhere known.
    private static File jar() {
        try {
            var source = KernelFiles.class.getProtectionDomain().getCodeSource();
            if (source == null || source.getLocation() == null || !"file".equals(source.getLocation().getProtocol())) return null;
            File file = new File(source.getLocation().toURI());
            return file.isFile() ? file : null;
        } catch (java.net.URISyntaxException | RuntimeException unknown) {
            return null;
        }
    }

    /// The class in `file` if it holds `key`'s, whole; null otherwise.
    static GeneratedKernel read(File file, String key, Variant variant) {
        byte[] bytes;
        try (var in = new FileInputStream(file)) {
            bytes = in.readAllBytes();
        } catch (IOException absent) {
            return null;
        }
        try {
            var buffer = ByteBuffer.wrap(bytes);
            var checksum = new CRC32();
            checksum.update(bytes, 0, bytes.length - Long.BYTES);
            if (buffer.getLong(bytes.length - Long.BYTES) != checksum.getValue() || buffer.getInt() != MAGIC || !key.equals(string(buffer))) return null;
            String className = string(buffer);
            int runCodeSize = buffer.getInt();
            var fallbacks = new ArrayList<String>();
            for (int i = buffer.getInt(); i > 0; i--) fallbacks.add(string(buffer));
            byte[] classFile = new byte[buffer.getInt()];
            buffer.get(classFile);
            return new GeneratedKernel(className, classFile, runCodeSize, variant, fallbacks, key.substring(key.indexOf('\n') + 1));
        } catch (RuntimeException corrupt) { // too short, or lengths past the end
            return null;
        }
    }

    /// Writes `kernel` under `key` to `file`, through a temporary file renamed into place; a
    /// failure leaves at most a temporary file behind and is otherwise ignored.
    static void write(File file, String key, GeneratedKernel kernel) {
        // a name of this thread's and this moment's (not the pid: ProcessHandle's classes cost a fresh JVM
        // milliseconds); two writers that drew the same name tear the file at worst, which its checksum catches
        File temporary = new File(file.getParentFile(), file.getName() + "." + Thread.currentThread().threadId() + "." + System.nanoTime() + ".tmp");
        try {
            var bytes = new ByteArrayOutputStream();
            var out = new DataOutputStream(bytes);
            out.writeInt(MAGIC);
            string(out, key);
            string(out, kernel.className());
            out.writeInt(kernel.runCodeSize());
            out.writeInt(kernel.scalarFallbacks().size());
            for (String fallback : kernel.scalarFallbacks()) string(out, fallback);
            byte[] classFile = kernel.bytes();
            out.writeInt(classFile.length);
            out.write(classFile);
            var checksum = new CRC32();
            checksum.update(bytes.toByteArray());
            out.writeLong(checksum.getValue());
            if (file.getParentFile().mkdirs()) prune(file.getParentFile(), System.currentTimeMillis());
            try (var stream = new FileOutputStream(temporary)) {
                bytes.writeTo(stream);
            }
            // rename(2), atomic and replacing on POSIX; where renaming onto a file fails, the file goes first
            if (!temporary.renameTo(file) && !(file.delete() && temporary.renameTo(file))) temporary.delete();
        } catch (IOException | RuntimeException unwritable) {
            temporary.delete(); // a read-only or full disk: the class was generated, and runs all the same
        }
    }

    /// Removes the directories beside `directory` (other jars') in which no file was written for
    /// [#STALE_MILLIS]: called when a jar's directory is made, so old versions' classes do not pile
    /// up. A jar still in use whose directory goes generates its classes again, once. Only names
    /// this class gives are removed: `-Dsmelt.kernelFiles` may name a directory that also holds
    /// the user's own files and folders.
    static void prune(File directory, long now) {
        File[] siblings = directory.getParentFile().listFiles();
        if (siblings == null) return;
        for (File sibling : siblings) {
            String name = sibling.getName();
            if (sibling.equals(directory) || name.length() != 16 || !hashed(name) || !sibling.isDirectory()
                    || now - sibling.lastModified() < STALE_MILLIS) continue;
            File[] files = sibling.listFiles();
            if (files != null) for (File file : files) if (hashed(file.getName()) && file.getName().startsWith(".class", 16)) file.delete();
            sibling.delete(); // fails, keeping it, where anything else is left in it
        }
    }

    /// Whether `name` starts with a [#hash]: 16 lowercase hex digits.
    private static boolean hashed(String name) {
        if (name.length() < 16) return false;
        for (int i = 0; i < 16; i++) if ("0123456789abcdef".indexOf(name.charAt(i)) < 0) return false;
        return true;
    }

    private static void string(DataOutputStream out, String text) throws IOException {
        byte[] utf8 = text.getBytes(StandardCharsets.UTF_8);
        out.writeInt(utf8.length);
        out.write(utf8);
    }

    private static String string(ByteBuffer in) {
        byte[] utf8 = new byte[in.getInt()];
        in.get(utf8);
        return new String(utf8, StandardCharsets.UTF_8);
    }

    // 64-bit FNV-1a, as kernel class names are hashed; the key inside the file settles collisions.
    private static String hash(String text) {
        long hash = 0xcbf29ce484222325L;
        for (int i = 0; i < text.length(); i++) hash = (hash ^ text.charAt(i)) * 0x100000001b3L;
        String hex = Long.toHexString(hash); // not String.format: its classes cost a fresh JVM milliseconds
        return "0".repeat(16 - hex.length()) + hex;
    }
}
