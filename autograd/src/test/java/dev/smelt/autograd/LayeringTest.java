// SPDX-License-Identifier: Apache-2.0
package dev.smelt.autograd;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.smelt.testing.PackageGraph;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/// The autograd module's packages, as ARCHITECTURE.md draws them: `autograd` transforms graphs
/// (jit-core's API and IR, the fusion cost model for save-or-recompute, the runtime's LRU map),
/// `nn` and `data` are written against the public API, and `optim` builds on all three. No cycles,
/// here or with jit-core (whose own LayeringTest checks its packages).
class LayeringTest {
    static final Map<String, Set<String>> ALLOWED = Map.of(
            "dev.smelt.autograd", Set.of("dev.smelt", "dev.smelt.ir", "dev.smelt.fusion", "dev.smelt.runtime"),
            "dev.smelt.nn", Set.of("dev.smelt", "dev.smelt.ir"),
            "dev.smelt.data", Set.of("dev.smelt", "dev.smelt.ir"),
            "dev.smelt.optim", Set.of("dev.smelt", "dev.smelt.ir", "dev.smelt.fusion", "dev.smelt.autograd", "dev.smelt.nn"));

    @Test
    void eachPackageUsesOnlyWhatItIsAllowed() {
        var graph = PackageGraph.of(Path.of("target/classes"));
        var offences = new ArrayList<String>();
        graph.uses().forEach((from, targets) -> {
            if (!ALLOWED.containsKey(from)) offences.add(from + " is missing from ALLOWED");
            else for (String to : targets) if (!ALLOWED.get(from).contains(to)) offences.add(from + " uses " + to);
        });
        assertEquals("", String.join("\n", offences));
        assertEquals(List.of(), graph.cycles());
    }
}
