// SPDX-License-Identifier: Apache-2.0
package dev.smelt.runtime.matmul;

import com.sun.management.HotSpotDiagnosticMXBean;
import java.lang.management.ManagementFactory;

/// What this JVM's flags tell about where a `float[]`'s elements lie in memory: whether the heap is
/// on transparent huge pages, and how far past a 64-byte boundary a large array's first element
/// is. G1 puts an object of more than half a region (a humongous object) at the start of a region,
/// so the elements of such an array start exactly the array base offset past a boundary, whatever
/// the address. The GEMV uses that to read W's rows from whole cache lines: on Zen 5 a 64-byte
/// load that straddles two lines streams from memory at about 75% of an aligned one's rate
/// (README, Language models). Nothing here affects a result, only which loads fetch the same values.
final class HeapLayout {
    private HeapLayout() {}

    /// Bytes in a cache line, and the alignment at which a 64-byte vector load stays in one.
    static final int LINE = 64;

    /// Whether the heap is on transparent huge pages; null when the JVM does not say.
    static final Boolean HUGE_PAGES = flag("UseTransparentHugePages");

    private static final long HUMONGOUS_BYTES = humongousBytes(); // arrays longer start a G1 region; MAX_VALUE when unknown
    private static final int BASE_OFFSET = baseOffset();           // bytes from an array's start to its first element; -1 when unknown

    /// Bytes of `array[0]` past a [#LINE] boundary, or -1 when the flags do not tell (another
    /// collector, an array small enough to sit anywhere, or a JVM other than HotSpot).
    static int lineOffset(float[] array) {
        if (BASE_OFFSET < 0 || (long) Float.BYTES * array.length <= HUMONGOUS_BYTES) return -1;
        return BASE_OFFSET % LINE;
    }

    /// A new array of at least `length` elements, long enough that [#lineOffset] knows where it
    /// lies when the flags tell for any array (then at least half a G1 region: 1 MB for a 4 GB heap).
    static float[] lineArray(int length) {
        if (BASE_OFFSET < 0 || HUMONGOUS_BYTES == Long.MAX_VALUE) return new float[length];
        return new float[(int) Math.max(length, HUMONGOUS_BYTES / Float.BYTES + 1)];
    }

    // Half a G1 region: objects larger than that are humongous (G1's humongous threshold).
    private static long humongousBytes() {
        Boolean g1 = flag("UseG1GC");
        String region = value("G1HeapRegionSize");
        if (g1 == null || !g1 || region == null) return Long.MAX_VALUE;
        return Long.parseLong(region) / 2;
    }

    // A float[]'s base offset in HotSpot on 64 bits: after the mark word, the class word and the
    // length, 12 bytes with compact headers (class in the mark word), 16 with a compressed class
    // word, 20 with a whole one (JDK 25's Unsafe.ARRAY_FLOAT_BASE_OFFSET under each flag).
    private static int baseOffset() {
        Boolean compact = flag("UseCompactObjectHeaders"), compressed = flag("UseCompressedClassPointers");
        if (Boolean.TRUE.equals(compact)) return 12;
        return compressed == null ? -1 : compressed ? 16 : 20;
    }

    private static Boolean flag(String name) {
        String value = value(name);
        return value == null ? null : Boolean.parseBoolean(value);
    }

    private static String value(String name) {
        try {
            return ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class).getVMOption(name).getValue();
        } catch (RuntimeException | LinkageError unknown) { // no such flag, no jdk.management, or not HotSpot
            return null;
        }
    }
}
