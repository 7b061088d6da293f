// SPDX-License-Identifier: Apache-2.0
package dev.smelt;

import java.util.List;
import java.util.stream.Collectors;

/// Why a compiled function compiled again: the new signature and, against the closest signature
/// compiled before, each argument part that changed (`x: shape [3,4] → [5,4]`). A signature
/// that was compiled before, dropped from the bounded cache and needed again has no changes and
/// says `evicted`. [Compiled#recompiles] lists them.
public record Recompile(String function, int compilation, Signature signature, List<Signature.Change> changes, boolean evicted) {
    /// Copies `changes`.
    public Recompile {
        changes = List.copyOf(changes);
    }

    @Override
    public String toString() {
        String reason = evicted
                ? "signature %s was evicted from the cache (capacity %d) and is needed again".formatted(signature, Compiled.CAPACITY)
                : changes.stream().map(Signature.Change::toString).collect(Collectors.joining("; "));
        return "%s compiled again (compilation %d): %s".formatted(function, compilation, reason);
    }
}
