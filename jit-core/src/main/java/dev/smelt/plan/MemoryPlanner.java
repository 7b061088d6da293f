// SPDX-License-Identifier: Apache-2.0
package dev.smelt.plan;

import dev.smelt.ir.DType;
import dev.smelt.kernel.Schedule;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;

/// Assigns every buffer of a [Schedule] to a slot ([MemoryPlan]) by one walk over the launches in
/// order, placing each value when its first writer runs. The first choice that fits wins:
/// 1. a graph output goes to its own returned slot;
/// 2. in place: the slot of a value this launch reads for the last time, when [InPlace] proves it safe;
/// 3. an arena slot of the same dtype whose tenant's last reader has run (the closest in size, else
///    the largest, which then grows);
/// 4. a returned slot of the same dtype and at least the size, whose output is written only after
///    this value's last reader (or in place over it), so the output overwrites nothing still needed;
/// 5. a new arena slot.
///
/// Greedy, like the linear-scan register allocators it borrows from: optimal packing of values of
/// different sizes is NP-hard, and chains (the common case) come out optimal.
///
/// *Donations* (JAX's `donate_argnums`): a caller that will pass an input's own array as the
/// array of an output (an optimizer writing its parameters) asks for the output to be computed in
/// place there. The planner grants it when no launch reads the input after the output's writer and
/// that writer may overwrite it ([InPlace#donatable]); the donated slot then holds only values
/// written after the input's last read. A refused donation is computed aside and copied in.
public final class MemoryPlanner {
    /// A slot while it is being filled.
    private static final class Draft {
        final DType dtype;
        final int output, writer;
        int size;
        int donor = -1, donorEnd = -1;   // the donated input's position among the schedule's inputs, and its last reader
        final List<MemoryPlan.Tenant> tenants = new ArrayList<>();

        Draft(DType dtype, int size, int output, int writer) {
            this.dtype = dtype;
            this.size = size;
            this.output = output;
            this.writer = writer;
        }

        /// Whether the slot is empty at launch `launch`: its last tenant's last reader ran before it.
        boolean freeAt(int launch) { return tenants.isEmpty() || tenants.getLast().lifetime().end() < launch; }
    }

    private final Schedule schedule;
    private final List<Lifetime> lifetimes;
    private final Draft[] home;
    private final List<Draft> arena = new ArrayList<>(), returned = new ArrayList<>();

    private MemoryPlanner(Schedule schedule) {
        this.schedule = schedule;
        this.lifetimes = Lifetime.of(schedule);
        this.home = new Draft[schedule.buffers().size()];
    }

    public static MemoryPlan plan(Schedule schedule) { return plan(schedule, Map.of()); }

    /// The plan with `donations`: output index → the index of the input whose array it will be given.
    public static MemoryPlan plan(Schedule schedule, Map<Integer, Integer> donations) {
        var planner = new MemoryPlanner(schedule);
        planner.openReturnedSlots();
        for (var donation : donations.entrySet()) planner.donate(donation.getKey(), donation.getValue());
        for (int l = 0; l < schedule.launches().size(); l++) {
            var writes = schedule.launches().get(l).writes();
            for (int output = 0; output < writes.size(); output++) planner.place(l, output, writes.get(output));
        }
        return planner.build();
    }

    private void openReturnedSlots() {
        for (var output : schedule.outputs()) {
            int buffer = output.buffer();
            if (lifetimes.get(buffer).input() || home[buffer] != null) continue;   // an input is the caller's; a repeat shares
            var draft = new Draft(dtype(buffer), size(buffer), buffer, lifetimes.get(buffer).start());
            returned.add(draft);
            home[buffer] = draft;
        }
    }

    /// Gives output `output` the array of input `input` if its writer may overwrite it there.
    private void donate(int output, int input) {
        int buffer = schedule.outputs().get(output).buffer(), donor = schedule.inputs().get(input);
        Draft slot = home[buffer];
        Lifetime value = lifetimes.get(buffer), read = lifetimes.get(donor);
        if (slot == null || slot.output != buffer || slot.donor >= 0 || value.writers() != 1 || read.returned()) return;
        if (dtype(buffer) != dtype(donor) || size(buffer) != size(donor)) return;
        if (returned.stream().anyMatch(other -> other.donor == input)) return;
        var writer = schedule.launches().get(value.start());
        if (read.end() > value.start() || read.end() == value.start() && !InPlace.donatable(writer, writer.writes().indexOf(buffer), donor)) return;
        slot.donor = input;
        slot.donorEnd = read.end();
    }

    /// Places buffer `buffer`, output `output` of launch `l`, when `l` is its first writer.
    private void place(int l, int output, int buffer) {
        Lifetime lifetime = lifetimes.get(buffer);
        if (lifetime.start() != l) return;   // a later part of a concat: the first part placed it
        Draft slot = lifetime.returned() ? home[buffer] : inPlaceSlot(l, output, buffer);
        boolean inPlace = slot != null && !slot.freeAt(l);
        if (slot == null) slot = freeArenaSlot(buffer, l);
        if (slot == null) slot = returned.stream().filter(s -> s.dtype == dtype(buffer) && s.freeAt(l) && canHost(s, buffer)).findFirst().orElse(null);
        if (slot == null) arena.add(slot = new Draft(dtype(buffer), 0, -1, -1));
        slot.size = Math.max(slot.size, size(buffer));
        slot.tenants.add(new MemoryPlan.Tenant(buffer, schedule.buffers().get(buffer).label(), lifetime, inPlace));
        home[buffer] = slot;
    }

    /// The slot of a value launch `l` reads for the last time, if output `output` may overwrite it.
    private Draft inPlaceSlot(int l, int output, int buffer) {
        var launch = schedule.launches().get(l);
        if (lifetimes.get(buffer).writers() != 1) return null;
        for (int input : launch.reads()) {
            Lifetime old = lifetimes.get(input);
            if (old.input() || old.returned() || old.end() != l) continue;
            Draft slot = home[input];
            boolean stillHeld = slot.tenants.getLast().buffer() == input;   // not already taken by a sibling output
            if (stillHeld && slot.dtype == dtype(buffer) && InPlace.safe(launch, output, input) && canHost(slot, buffer)) return slot;
        }
        return null;
    }

    private Draft freeArenaSlot(int buffer, int l) {
        var free = arena.stream().filter(s -> s.dtype == dtype(buffer) && s.freeAt(l)).toList();
        var fitting = free.stream().filter(s -> s.size >= size(buffer)).min(Comparator.comparingInt(s -> s.size));
        return fitting.or(() -> free.stream().max(Comparator.comparingInt(s -> s.size))).orElse(null);
    }

    /// Whether `slot` may hold `buffer`: any arena slot; a returned slot only if the value fits its
    /// fixed size (the caller's array may be exactly the output's size) and has died by the time
    /// the output is written, or the output is written in place over it.
    private boolean canHost(Draft slot, int buffer) {
        if (slot.output < 0) return true;
        Lifetime value = lifetimes.get(buffer), output = lifetimes.get(slot.output);
        if (size(buffer) > slot.size || value.start() <= slot.donorEnd) return false;
        if (value.end() < slot.writer) return true;
        if (value.end() > slot.writer || output.writers() != 1) return false;
        var launch = schedule.launches().get(slot.writer);
        return InPlace.safe(launch, launch.writes().indexOf(slot.output), buffer);
    }

    private MemoryPlan build() {
        var drafts = new ArrayList<>(arena);
        drafts.addAll(returned);
        var slots = new ArrayList<MemoryPlan.Slot>();
        for (var d : drafts) slots.add(new MemoryPlan.Slot(d.dtype, d.size, d.output, d.donor, d.tenants));
        var slotOf = new ArrayList<Integer>();
        long unplanned = 0;
        for (int b = 0; b < home.length; b++) {
            slotOf.add(home[b] == null ? -1 : drafts.indexOf(home[b]));
            if (!lifetimes.get(b).input()) unplanned += (long) size(b) * dtype(b).bytes();
        }
        return new MemoryPlan(slots, slotOf, unplanned);
    }

    private DType dtype(int buffer) { return schedule.buffers().get(buffer).dtype(); }

    private int size(int buffer) { return schedule.buffers().get(buffer).size(); }
}
