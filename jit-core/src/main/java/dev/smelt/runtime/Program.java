// SPDX-License-Identifier: Apache-2.0
package dev.smelt.runtime;

import dev.smelt.ir.Storage;
import dev.smelt.kernel.KernelForm;
import dev.smelt.kernel.KernelFunction;
import dev.smelt.kernel.Schedule;
import dev.smelt.plan.MemoryPlan;
import dev.smelt.plan.MemoryPlanner;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/// A schedule made runnable: one [KernelFunction] per launch, over the buffers of a [MemoryPlan].
/// Each call takes a frame (the plan's intermediate slots and the tables that bind them, see
/// [Layout.Frame]) from a small pool, or makes one if every pooled frame is in use by another
/// thread, allocates the returned slots, binds the inputs, runs the launches in order, gives the
/// frame back and returns the output buffers (which the caller then owns): it allocates nothing
/// else. Safe to call from several threads at once: a frame serves one call at a time. Its
/// [Guard] checks the call's indices before the first launch, so a call that fails one writes nothing.
///
/// A call whose outputs are given and some of them are inputs' own arrays (an optimizer updating
/// its parameters) runs on a plan made for that pattern of donations, built on first use: each
/// donation the planner grants is computed in place; the others are computed aside and copied in.
public final class Program {
    private final Schedule schedule;
    private final Layout plain;
    private final Map<Map<Integer, Integer>, Layout> donating = new ConcurrentHashMap<>();
    private volatile Layout lastDonating;
    private final List<KernelFunction> functions;
    private final Executor executor;
    private final Guard guard;
    private final Call[] calls;
    private final Profile profile;
    private final int[] inputBuffers, launchBuffers;
    private final boolean[] packedReads; // per input: every kernel reading it takes a PackedMatrix
    private final int singleOutput; // the buffer of the only output, or -1
    private final int[] returnedInputs; // per output: the input it is, unchanged, or -1
    private final MemoryPlan.Slot loneOutput; // that output's slot when it is a one-kernel program's only buffer besides inputs, else null

    /// One launch as a call runs it, worked out once: a tiny program's calls cost no more than its
    /// kernels (MatMulBench.Tiny's `overhead`).
    private record Call(KernelFunction function, int[] buffers, int rows, long work, int granule, int chunks, boolean identity) {
        Call(KernelFunction function, int[] buffers, KernelForm kernel, int allBuffers) {
            this(function, buffers, kernel.workItems(), kernel.work(), kernel.splitGranule(), kernel.chunksPerThread(), inOrder(buffers, allBuffers));
        }

        private static boolean inOrder(int[] buffers, int allBuffers) {
            if (buffers.length != allBuffers) return false;
            for (int b = 0; b < allBuffers; b++)
                if (buffers[b] != b) return false;
            return true;
        }

        /// The launch's buffers out of the program's, in `bound` (its frame's table): the program's
        /// own array when they are all of them in order (a one-kernel program).
        Object[] bind(Object[] arrays, Object[] bound) {
            if (identity) return arrays;
            for (int i = 0; i < bound.length; i++) bound[i] = arrays[buffers[i]];
            return bound;
        }
    }

    public Program(Schedule schedule, MemoryPlan memory, List<KernelFunction> functions, Executor executor) {
        this(schedule, memory, functions, executor, Guard.NONE);
    }

    /// A program of `schedule`'s launches, run by `functions` (one per launch, in order) over the
    /// buffers of `memory` (planned for `schedule`), that runs `guard`'s index checks before its
    /// first kernel, on every call.
    public Program(Schedule schedule, MemoryPlan memory, List<KernelFunction> functions, Executor executor, Guard guard) {
        if (functions.size() != schedule.launches().size())
            throw new IllegalArgumentException(functions.size() + " functions for " + schedule.launches().size() + " launches");
        this.schedule = schedule;
        this.guard = guard;
        this.functions = List.copyOf(functions);
        this.executor = executor;
        this.calls = new Call[functions.size()];
        this.profile = Profile.ON ? new Profile(calls.length) : null;
        for (int l = 0; l < calls.length; l++) {
            var launch = schedule.launches().get(l);
            int[] buffers = ints(launch.buffers());
            calls[l] = new Call(functions.get(l), buffers, launch.kernel(), schedule.buffers().size());
        }
        this.launchBuffers = new int[calls.length];
        for (int l = 0; l < calls.length; l++) launchBuffers[l] = calls[l].identity() ? 0 : calls[l].buffers().length;
        this.plain = layout(memory, null);
        this.inputBuffers = ints(schedule.inputs());
        this.packedReads = packedReads(schedule, this.functions, inputBuffers);
        this.singleOutput = schedule.outputs().size() == 1 ? schedule.outputs().getFirst().buffer() : -1;
        this.returnedInputs = new int[schedule.outputs().size()];
        for (int o = 0; o < returnedInputs.length; o++) returnedInputs[o] = schedule.inputs().indexOf(schedule.outputs().get(o).buffer());
        this.loneOutput = singleOutput >= 0 && calls.length == 1 && calls[0].identity() && plain.slotOf.length == inputBuffers.length + 1
                && plain.memory.slots().size() == 1 && plain.slotOf[singleOutput] == 0 && plain.noIntermediates ? plain.memory.slots().getFirst() : null;
    }

    // Loops, not streams, here and in the constructor: each lambda costs a fresh JVM's first call a bootstrap.
    private static int[] ints(List<Integer> list) {
        int[] ints = new int[list.size()];
        for (int i = 0; i < ints.length; i++) ints[i] = list.get(i);
        return ints;
    }

    private Layout layout(MemoryPlan memory, int[] donorOf) {
        return new Layout(memory, schedule.buffers().size(), schedule.outputs().size(), launchBuffers, donorOf);
    }

    public Schedule schedule() { return schedule; }

    /// The threads its kernels run on.
    Executor executor() { return executor; }

    /// The memory plan of calls that update no input in place.
    public MemoryPlan memory() { return plain.memory; }

    /// The memory plan of the latest call that updated inputs in place, else [#memory()].
    public MemoryPlan updatingMemory() {
        Layout layout = lastDonating;
        return (layout == null ? plain : layout).memory;
    }

    public List<KernelFunction> functions() { return functions; }

    /// The index checks every call runs before the first kernel.
    public Guard guard() { return guard; }

    public List<Storage> run(List<Storage> inputs) { return run(inputs, null); }

    /// Runs with the outputs written into `outputs` (dense, of the outputs' dtypes and sizes), or into
    /// fresh buffers when `outputs` is null. An output whose array is also an input's is written in
    /// place where its plan's donation was granted; otherwise it is computed into a scratch buffer
    /// and copied in after every launch has run.
    public List<Storage> run(List<Storage> inputs, List<Storage> outputs) {
        if (inputs.size() != schedule.inputs().size())
            throw new IllegalArgumentException("expected " + schedule.inputs().size() + " inputs, got " + inputs.size());
        Layout layout = layout(inputs, outputs);
        Layout.Frame frame = layout.take();
        try {
            int copies = bind(layout, inputs, outputs, frame);
            guard.check(inputs); // after bind's checks of the inputs' types, before anything is written
            launch(frame.arrays, frame);
            copyResults(inputs, outputs, frame, copies);
            return outputs != null ? outputs : results(inputs, frame.arrays);
        } finally {
            layout.giveBack(frame);
        }
    }

    // Sources first: a result that is an input must be read before another result overwrites it.
    private void copyResults(List<Storage> inputs, List<Storage> outputs, Layout.Frame frame, int copies) {
        for (int c = 0; c < copies; c++) {
            int input = returnedInputs[frame.copies[c]];
            Object source = input >= 0 ? inputs.get(input).array() : frame.arrays[schedule.outputs().get(frame.copies[c]).buffer()];
            frame.sources[c] = indexOfArray(inputs, source) >= 0 ? copy(source) : source;
        }
        for (int c = 0; c < copies; c++) {
            Storage target = outputs.get(frame.copies[c]);
            System.arraycopy(frame.sources[c], 0, target.array(), 0, target.size());
        }
    }

    // An output that is an input is that input's storage, not a new one over the array it was bound
    // as: a packed weight's array is its f32 copy, made once and read-only (or a PackedMatrix).
    private List<Storage> results(List<Storage> inputs, Object[] arrays) {
        if (schedule.outputs().size() == 1) return List.of(result(0, inputs, arrays));
        var results = new ArrayList<Storage>(schedule.outputs().size());
        for (int o = 0; o < schedule.outputs().size(); o++) results.add(result(o, inputs, arrays));
        return results;
    }

    private Storage result(int output, List<Storage> inputs, Object[] arrays) {
        int input = returnedInputs[output];
        return input >= 0 ? inputs.get(input) : Storage.wrapArray(arrays[schedule.outputs().get(output).buffer()]);
    }

    /// Whether output `output` is one of the inputs, unchanged.
    public boolean returnsAnInput(int output) { return returnedInputs[output] >= 0; }

    /// The table of buffers a call to [#runOne] fills: one entry per buffer, inputs at [#inputBuffer].
    public Object[] newBuffers() { return new Object[plain.slotOf.length]; }

    /// Where input `i`'s array goes in a table of buffers.
    public int inputBuffer(int i) { return inputBuffers[i]; }

    /// What input `i` binds as: a packed storage's [dev.smelt.ir.PackedMatrix] when every kernel
    /// reading it takes one (the GEMVs of `x @ W.t()`), else its array (made from the packed
    /// values on first use: correct for any kernel, at f32's cost).
    public Object inputArray(int i, Storage input) {
        return packedReads[i] && input.packed() != null ? input.packed() : input.array();
    }

    /// Whether input `i` binds as its [dev.smelt.ir.PackedMatrix] when it has one, for `explain()`.
    public boolean readsPacked(int i) { return packedReads[i]; }

    // An input is read packed when every function reading it takes it packed there (a GEMV's weight).
    private static boolean[] packedReads(Schedule schedule, List<KernelFunction> functions, int[] inputBuffers) {
        boolean[] packed = new boolean[inputBuffers.length];
        for (int i = 0; i < inputBuffers.length; i++) {
            boolean read = false, allPacked = true;
            for (int l = 0; l < functions.size(); l++) {
                var launch = schedule.launches().get(l);
                var buffers = launch.buffers();
                for (int position = 0; position < launch.kernel().inputs().size(); position++) {
                    if (buffers.get(position) != inputBuffers[i]) continue;
                    read = true;
                    allPacked &= functions.get(l).readsPacked(position);
                }
            }
            packed[i] = read && allPacked;
        }
        return packed;
    }

    /// [#run(List)] for a program of one output, on a table of buffers (from [#newBuffers]) holding
    /// the inputs' arrays: returns the output's array. The caller has checked the inputs against
    /// the signature the program was compiled for (`Compiled`'s per-call fast path), so their
    /// dtypes and sizes are not checked again. Allocates the output and nothing else, so that a
    /// tiny compiled call costs little more than its kernel (MatMulBench.Tiny's `overhead`).
    public Object runOne(Object[] arrays) {
        if (singleOutput < 0) throw new IllegalStateException("the program has " + schedule.outputs().size() + " outputs");
        Layout layout = plain;
        if (arrays.length != layout.slotOf.length) throw new IllegalArgumentException("expected " + layout.slotOf.length + " buffers, got " + arrays.length);
        guard.check(arrays, inputBuffers);
        if (loneOutput != null) { // one kernel and no intermediates: allocate the output and run (an 8³ matmul's call: 87 → 78 ns)
            Object output = arrays[singleOutput] = Storage.newArray(loneOutput.dtype(), loneOutput.size());
            Call call = calls[0];
            long start = Profile.ON ? System.nanoTime() : 0;
            executor.run(call.function(), arrays, call.rows(), call.work(), call.granule(), call.chunks());
            if (Profile.ON) profile.add(0, System.nanoTime() - start);
            return output;
        }
        Layout.Frame frame = layout.take();
        try {
            for (int b = 0; b < arrays.length; b++) {
                int slot = layout.slotOf[b];
                if (slot >= 0) arrays[b] = frame.arena[slot] != null ? frame.arena[slot] : layout.firstBuffer[slot] == b ? layout.allocate(slot) : arrays[layout.firstBuffer[slot]];
            }
            launch(arrays, frame);
        } finally {
            layout.giveBack(frame);
        }
        return arrays[singleOutput];
    }

    private void launch(Object[] arrays, Layout.Frame frame) {
        for (int l = 0; l < calls.length; l++) {
            Call call = calls[l];
            long start = Profile.ON ? System.nanoTime() : 0; // a static final: free when off
            executor.run(call.function(), call.bind(arrays, frame.launches[l]), call.rows(), call.work(), call.granule(), call.chunks());
            if (Profile.ON) profile.add(l, System.nanoTime() - start);
        }
    }

    /// Time spent in `launch` per call, for `explain()`; empty unless `-Dsmelt.profile=true`.
    String profileLine(int launch) { return profile == null ? "" : profile.line(launch); }

    /// The plain layout, or the one planned for the outputs that are given inputs' arrays: the
    /// latest one if it fits, found without allocating (a training step's every call).
    private Layout layout(List<Storage> inputs, List<Storage> outputs) {
        if (outputs == null) return plain;
        Layout last = lastDonating;
        if (last != null && last.plannedFor(inputs, outputs)) return last;
        int[] donorOf = null;   // applyInto's calls (no output is an input) allocate nothing here
        for (int o = 0; o < outputs.size(); o++) {
            int donor = donorOf(inputs, outputs.get(o).array());
            if (donor < 0) continue;
            if (donorOf == null) {
                donorOf = new int[outputs.size()];
                Arrays.fill(donorOf, -1);
            }
            donorOf[o] = donor;
        }
        if (donorOf == null) return plain;
        var donations = new HashMap<Integer, Integer>();
        for (int o = 0; o < donorOf.length; o++) if (donorOf[o] >= 0) donations.put(o, donorOf[o]);
        int[] planned = donorOf;
        Layout layout = donating.computeIfAbsent(Map.copyOf(donations), d -> layout(Dump.after("memory", MemoryPlanner.plan(schedule, d)), planned));
        lastDonating = layout;
        return layout;
    }

    /// The input whose array `array` (an output's) is, when exactly one is: the plan may then
    /// update it in place. −1 when none is, or when several are (a view of the same storage read
    /// in place, or one tensor passed twice): writing it during the call would change what
    /// the other reads, so the output is computed aside and copied in after.
    static int donorOf(List<Storage> inputs, Object array) {
        int donor = indexOfArray(inputs, array, 0);
        return donor >= 0 && indexOfArray(inputs, array, donor + 1) < 0 ? donor : -1;
    }

    /// The position of the first of `storages` whose array is `array`, or −1. A loop, not a
    /// stream: a training step asks it for each of its outputs.
    public static int indexOfArray(List<Storage> storages, Object array) { return indexOfArray(storages, array, 0); }

    private static int indexOfArray(List<Storage> storages, Object array, int from) {
        for (int i = from; i < storages.size(); i++) if (storages.get(i).packed() == null && storages.get(i).array() == array) return i; // a packed storage is no output's
        return -1;
    }

    /// Fills the frame's `arrays` (one per buffer): inputs are the caller's arrays, other buffers
    /// their slot's array, from the arena or, for a returned slot, the caller's output or a fresh
    /// array. Lists in the frame's `copies`, and counts, the outputs to copy after the run: those
    /// that are an input or repeat an earlier output, and those whose target is an input's array
    /// that the plan does not update in place.
    private int bind(Layout layout, List<Storage> inputs, List<Storage> outputs, Layout.Frame frame) {
        Object[] arrays = frame.arrays, slots = frame.slots;
        for (int i = 0; i < inputs.size(); i++) arrays[schedule.inputs().get(i)] = bind(i, inputs.get(i));
        System.arraycopy(frame.arena, 0, slots, 0, slots.length);
        int copies = 0;
        for (int o = 0; outputs != null && o < outputs.size(); o++) {
            int slot = layout.slotOf[schedule.outputs().get(o).buffer()];
            Object target = outputs.get(o).array();
            var planned = slot < 0 ? null : layout.memory.slots().get(slot);
            boolean donated = planned != null && planned.donated() && inputs.get(planned.donor()).array() == target;
            if (slot < 0 || slots[slot] != null || !donated && indexOfArray(inputs, target) >= 0) frame.copies[copies++] = o;
            else slots[slot] = target;
        }
        for (int s = 0; s < slots.length; s++)
            if (slots[s] == null) slots[s] = layout.allocate(s);
        for (int b = 0; b < arrays.length; b++)
            if (layout.slotOf[b] >= 0) arrays[b] = slots[layout.slotOf[b]];
        return copies;
    }

    private static Object copy(Object array) {
        return switch (array) {
            case float[] a -> a.clone();
            case double[] a -> a.clone();
            case int[] a -> a.clone();
            case byte[] a -> a.clone();
            default -> throw new IllegalArgumentException("not a tensor array: " + array.getClass().getSimpleName());
        };
    }

    private Object bind(int slot, Storage input) {
        var buffer = schedule.buffers().get(schedule.inputs().get(slot));
        if (input.dtype() != buffer.dtype() || input.size() != buffer.size())
            throw new IllegalArgumentException("input %d: expected %s with %d elements, got %s with %d".formatted(slot, buffer.dtype(), buffer.size(), input.dtype(), input.size()));
        return inputArray(slot, input);
    }
}
