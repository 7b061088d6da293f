// SPDX-License-Identifier: Apache-2.0
package dev.smelt.runtime.matmul;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/// Cache sizes come from sysfs, with the instruction cache and L3 left out and assumed sizes where
/// sysfs is missing or unreadable.
class CachesTest {
    @Test
    void readsTheDataCacheAndTheSecondLevel(@TempDir Path sysfs) throws IOException {
        entry(sysfs, 0, "1", "Data", "48K");
        entry(sysfs, 1, "1", "Instruction", "32K");
        entry(sysfs, 2, "2", "Unified", "2048K");
        entry(sysfs, 3, "3", "Unified", "32768K");
        assertEquals(new Caches(48 << 10, 2 << 20, "sysfs"), Caches.read(sysfs));
    }

    @Test
    void fallsBackWhereSysfsSaysNothing(@TempDir Path sysfs) throws IOException {
        assertEquals(Caches.DEFAULT, Caches.read(sysfs.resolve("missing")));
        entry(sysfs, 0, "1", "Data", "garbage");
        entry(sysfs, 2, "2", "Unified", "512K");
        assertEquals(new Caches(Caches.DEFAULT.l1Bytes(), 512 << 10, "sysfs, in part"), Caches.read(sysfs));
    }

    @Test
    void parsesSizes() {
        assertEquals(32 << 10, Caches.bytes("32K"));
        assertEquals(1 << 20, Caches.bytes("1M"));
        assertEquals(4096, Caches.bytes("4096"));
        assertEquals(-1, Caches.bytes(""));
        assertEquals(-1, Caches.bytes("K"));
        assertEquals(-1, Caches.bytes("-4K"));
        assertEquals(-1, Caches.bytes("99999999999K"));
    }

    @Test
    void thisMachinesBudgetsArePositive() {
        assertTrue(Blocking.L1_BYTES > 0 && Blocking.L2_BYTES > Blocking.L1_BYTES, Blocking.L1_BYTES + " / " + Blocking.L2_BYTES);
    }

    private static void entry(Path sysfs, int index, String level, String type, String size) throws IOException {
        Path entry = Files.createDirectories(sysfs.resolve("index" + index));
        Files.writeString(entry.resolve("level"), level + "\n");
        Files.writeString(entry.resolve("type"), type + "\n");
        Files.writeString(entry.resolve("size"), size + "\n");
    }
}
