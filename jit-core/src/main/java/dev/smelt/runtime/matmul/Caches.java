// SPDX-License-Identifier: Apache-2.0
package dev.smelt.runtime.matmul;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/// The per-core data caches of the machine, as Linux describes them in sysfs
/// (`/sys/devices/system/cpu/cpu0/cache/index*/{level,type,size}`). Elsewhere, or if sysfs says
/// nothing, the most common sizes of current x86 and ARM server cores: 32 KiB and 1 MiB.
record Caches(int l1Bytes, int l2Bytes, String source) {
    static final Caches DEFAULT = new Caches(32 << 10, 1 << 20, "assumed");

    /// This machine's caches, read once.
    static final Caches MACHINE = read(Path.of("/sys/devices/system/cpu/cpu0/cache"));

    /// The level 1 data cache and the level 2 cache under `directory`, each falling back to [#DEFAULT].
    static Caches read(Path directory) {
        int l1 = -1, l2 = -1;
        for (int index = 0; index < 8; index++) {
            Path entry = directory.resolve("index" + index);
            if (!Files.isDirectory(entry)) continue;
            String level = text(entry.resolve("level")), type = text(entry.resolve("type"));
            int size = bytes(text(entry.resolve("size")));
            if (size <= 0) continue;
            if ("1".equals(level) && "Data".equals(type)) l1 = size;
            if ("2".equals(level) && ("Unified".equals(type) || "Data".equals(type))) l2 = size;
        }
        boolean found = l1 > 0 && l2 > 0;
        return new Caches(l1 > 0 ? l1 : DEFAULT.l1Bytes, l2 > 0 ? l2 : DEFAULT.l2Bytes, found ? "sysfs" : l1 > 0 || l2 > 0 ? "sysfs, in part" : "assumed");
    }

    /// `32K`, `1024K`, `2M` or a plain count of bytes; -1 if it is none of these.
    static int bytes(String size) {
        if (size == null || size.isEmpty()) return -1;
        int shift = switch (Character.toUpperCase(size.charAt(size.length() - 1))) {
            case 'K' -> 10;
            case 'M' -> 20;
            default -> 0;
        };
        String digits = shift == 0 ? size : size.substring(0, size.length() - 1);
        try {
            long value = Long.parseLong(digits) << shift;
            return value > 0 && value <= Integer.MAX_VALUE ? (int) value : -1;
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    private static String text(Path file) {
        try {
            return Files.readString(file).strip();
        } catch (IOException | SecurityException e) {
            return null;
        }
    }
}
