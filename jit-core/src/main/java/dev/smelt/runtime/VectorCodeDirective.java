// SPDX-License-Identifier: Apache-2.0
package dev.smelt.runtime;

import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.util.concurrent.atomic.AtomicBoolean;
import javax.management.ObjectName;

/// Keeps C1 away from generated vector code: a JIT compiler directive, added once, before the first
/// vector class is defined, through the `DiagnosticCommand` MBean (what `jcmd <pid>
/// Compiler.directives_add` does). Vector API code compiled by C1 still boxes every vector, so it is
/// no faster for the warm-up, and C1 spent 41–678 ms on each kernel producing 89–309 KB of code,
/// on a machine whose two cores C2 and the warm-up need (`TierUpTime`). Without it, C2 compiles
/// the vector classes from the interpreter's profile: a fresh chain, softmax, layer norm and gelu
/// chain reached vector code in 5.7 / 2.6 / 0.33 / 2.2 s instead of 10.4 / 5.8 / 1.3 / 4.7 on a
/// busy machine. The directive matches only Smelt's generated vector kernels (`VectorKernel$…`);
/// scalar kernels keep C1, which makes them fast from their first calls. A matmul's tile (`Tile$…`)
/// neither matches nor adds it: the platform MBean server costs a cold JVM 150–180 ms and 1,200
/// classes, and the tile, one small method, reached C2 as soon with C1 as without (`TileWarm`).
/// `-Dsmelt.vectorC1=true` leaves the JIT's defaults alone; where the MBean is missing the
/// directive is skipped.
final class VectorCodeDirective {
    private static final AtomicBoolean ADDED = new AtomicBoolean(Boolean.getBoolean("smelt.vectorC1"));
    static final String JSON = "[{ match: [\"dev/smelt/runtime/VectorKernel*.*\"], c1: { Exclude: true } }]";

    private VectorCodeDirective() {}

    static void addOnce() {
        if (ADDED.get() || ADDED.getAndSet(true)) return; // read first: every vector class load passes here
        try {
            var file = Files.createTempFile("smelt-directive", ".json");
            try {
                Files.writeString(file, JSON);
                ManagementFactory.getPlatformMBeanServer().invoke(new ObjectName("com.sun.management:type=DiagnosticCommand"), "compilerDirectivesAdd",
                        new Object[] {new String[] {file.toString()}}, new String[] {String[].class.getName()});
            } finally {
                Files.deleteIfExists(file);
            }
        } catch (Exception | LinkageError unavailable) {
            // no MBean server or no diagnostic commands (a restricted JVM): C1 compiles vector code as before
        }
    }
}
