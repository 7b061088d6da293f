// SPDX-License-Identifier: Apache-2.0
package dev.smelt.runtime;

import dev.smelt.ir.IndexBounds;
import dev.smelt.ir.Storage;
import java.util.ArrayList;
import java.util.List;

/// The index checks a [Program] runs before its first kernel (`pass.IndexChecks`): each check of an
/// input reads the input's array; checks of computed indices first run `computed`, a program of
/// its own over the same inputs, and read its results. A failure is an
/// [dev.smelt.ir.IndexOutOfRange] thrown on the caller's thread before any kernel has run, so
/// nothing is written: not an output, not a parameter updated in place.
public final class Guard {
    /// No checks.
    public static final Guard NONE = new Guard(List.of(), List.of(), null, List.of());

    private final int[] slots;
    private final IndexBounds[] onInputs;
    private final Program computed;
    private final IndexBounds[] computedBounds;

    /// Input `slots.get(i)` checked against `onInputs.get(i)`; output `j` of `computed` (null when
    /// there is none) against `computedBounds.get(j)`.
    public Guard(List<Integer> slots, List<IndexBounds> onInputs, Program computed, List<IndexBounds> computedBounds) {
        this.slots = new int[slots.size()]; // loops, not streams: every program builds a guard, a fresh JVM's first one too
        for (int i = 0; i < this.slots.length; i++) this.slots[i] = slots.get(i);
        this.onInputs = onInputs.toArray(new IndexBounds[0]);
        this.computed = computed;
        this.computedBounds = computedBounds.toArray(new IndexBounds[0]);
    }

    /// Whether there is nothing to check.
    public boolean isEmpty() { return slots.length == 0 && computed == null; }

    /// Checks a call's inputs, one storage per input slot.
    void check(List<Storage> inputs) {
        for (int c = 0; c < slots.length; c++) onInputs[c].check((int[]) inputs.get(slots[c]).array());
        if (computed != null) checkComputed(inputs);
    }

    /// Checks a call's inputs held in a table of buffers, input `i` at `inputBuffers[i]`.
    void check(Object[] arrays, int[] inputBuffers) {
        for (int c = 0; c < slots.length; c++) onInputs[c].check((int[]) arrays[inputBuffers[slots[c]]]);
        if (computed == null) return;
        var inputs = new ArrayList<Storage>(inputBuffers.length);
        for (int buffer : inputBuffers) inputs.add(Storage.wrapArray(arrays[buffer]));
        checkComputed(inputs);
    }

    /// `index checks before the first kernel: input %1 (op=crossEntropy what=target limit=10)`.
    @Override
    public String toString() {
        var checks = new ArrayList<String>();
        for (int c = 0; c < slots.length; c++) checks.add("input %" + slots[c] + " (" + onInputs[c] + ")");
        for (int c = 0; c < computedBounds.length; c++) checks.add("computed value " + c + " (" + computedBounds[c] + ")");
        return "index checks before the first kernel: " + String.join(", ", checks)
                + (computed == null ? "" : "; the computed values by a program of %d kernels".formatted(computed.schedule().launches().size()));
    }

    private void checkComputed(List<Storage> inputs) {
        var values = computed.run(inputs);
        for (int c = 0; c < computedBounds.length; c++) computedBounds[c].check((int[]) values.get(c).array());
    }
}
