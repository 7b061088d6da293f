// SPDX-License-Identifier: Apache-2.0
package dev.smelt.plan;

import dev.smelt.ir.DType;
import dev.smelt.ir.Storage;
import java.util.List;
import java.util.stream.Collectors;

/// Where each buffer of a schedule lives while it runs. Graph inputs stay in the caller's arrays
/// and are never written. Every other buffer lives in a slot, one primitive array that holds, one
/// after another, the values its [Tenant]s list; two values share a slot only when one's last
/// reader has run before the other is written, or when the writer updates it in place ([InPlace]).
///
/// An *arena* slot is kept by the compiled program and reused by its next calls. A *returned* slot
/// is allocated for each call (or is the caller's array, with `applyInto`) and ends holding graph
/// output buffer `output`, which the caller then owns; values that die before that output is
/// written may live in it first. `slotOf` maps each buffer to its slot, −1 for graph inputs.
public record MemoryPlan(List<Slot> slots, List<Integer> slotOf, long unplannedBytes) {
    /// An array of `size` elements of `dtype`: a Java array holds one primitive type, so only values
    /// of that dtype share it; a smaller value uses its first elements (kernels touch only those).
    /// `donor` is the input (its position among the schedule's inputs) whose array the returned
    /// slot is given, or −1 ([MemoryPlanner] on donations).
    public record Slot(DType dtype, int size, int output, int donor, List<Tenant> tenants) {
        public Slot { tenants = List.copyOf(tenants); }

        public boolean returned() { return output >= 0; }

        public boolean donated() { return donor >= 0; }

        public long bytes() { return (long) size * dtype.bytes(); }
    }

    /// Buffer `buffer` (`label`, as `%7 exp`) lives in the slot during `lifetime`; `inPlace` when
    /// its writer overwrote the previous tenant while reading it.
    public record Tenant(int buffer, String label, Lifetime lifetime, boolean inPlace) {
        @Override
        public String toString() { return label + (inPlace ? " in place" : "") + " (" + lifetime + ")"; }
    }

    public MemoryPlan {
        slots = List.copyOf(slots);
        slotOf = List.copyOf(slotOf);
    }

    /// The slot of `buffer`, or −1 for a graph input.
    public int slot(int buffer) { return slotOf.get(buffer); }

    /// Bytes of the arena slots: what a compiled program keeps for its intermediates.
    public long intermediateBytes() { return slots.stream().filter(s -> !s.returned()).mapToLong(Slot::bytes).sum(); }

    /// Bytes of the returned slots, allocated by each call (or given by the caller).
    public long outputBytes() { return slots.stream().filter(Slot::returned).mapToLong(Slot::bytes).sum(); }

    /// Everything a call holds at once besides its inputs: every slot is live for the whole call.
    public long peakBytes() { return intermediateBytes() + outputBytes(); }

    /// A fresh array for each arena slot, indexed by slot; returned slots are null.
    public Object[] newArena() {
        Object[] arena = new Object[slots.size()]; // a loop: a fresh JVM's first call builds one
        for (int s = 0; s < arena.length; s++) if (!slots.get(s).returned()) arena[s] = Storage.newArray(slots.get(s).dtype(), slots.get(s).size());
        return arena;
    }

    /// ```
    /// memory: peak 8,388,608 B = 4,194,304 B intermediates (1 slot, kept across calls) + 4,194,304 B outputs; unplanned 25,165,824 B
    /// slot 0 f32[1048576]: %4 cos (launch 1-2)
    /// slot 1 f32[1048576] returned as %9 relu: %3 sin (launch 0-2), %5 mul in place (launch 2-3), …
    /// ```
    @Override
    public String toString() {
        long arenaSlots = slots.stream().filter(s -> !s.returned()).count();
        var text = new StringBuilder("memory: peak %,d B = %,d B intermediates (%d slot%s, kept across calls) + %,d B outputs; unplanned %,d B%n"
                .formatted(peakBytes(), intermediateBytes(), arenaSlots, arenaSlots == 1 ? "" : "s", outputBytes(), unplannedBytes));
        for (int s = 0; s < slots.size(); s++) {
            var slot = slots.get(s);
            String owner = slot.returned() ? " returned as " + slot.tenants().getLast().label() : "";
            if (slot.donated()) owner += " in the array of input " + slot.donor();
            text.append("slot %d %s[%d]%s: ".formatted(s, slot.dtype(), slot.size(), owner))
                    .append(slot.tenants().stream().map(Tenant::toString).collect(Collectors.joining(", "))).append('\n');
        }
        return text.toString();
    }
}
