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
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.function.Function;

/// A schedule made runnable: one [KernelFunction] per launch, over the buffers of a [MemoryPlan].
/// Each call takes an arena (the plan's intermediate slots) from a small pool, or allocates one if
/// every pooled arena is in use by another thread, allocates the returned slots, binds the inputs,
/// runs the launches in order, gives the arena back and returns the output buffers (which the
/// caller then owns). Safe to call from several threads at once: an arena serves one call at a time.
///
/// A call whose outputs are given and some of them are inputs' own arrays (an optimizer updating
/// its parameters) runs on a plan made for that pattern of donations, built on first use: each
/// donation the planner grants is computed in place; the others are computed aside and copied in.
public final class Program {
    /// Idle arenas kept per program: one per core serves as many concurrent calls as can run at
    /// once; calls beyond that allocate an arena and drop it afterwards.
    static final int ARENAS = Runtime.getRuntime().availableProcessors();

    private final Schedule schedule;
    private final Layout plain;
    private final Map<Map<Integer, Integer>, Layout> donating = new ConcurrentHashMap<>();
    private volatile Layout lastDonating;
    private final List<KernelFunction> functions;
    private final Executor executor;
    private final Call[] calls;
    private final int[] inputBuffers;
    private final int singleOutput; // the buffer of the only output, or -1
    private final MemoryPlan.Slot loneOutput; // that output's slot when it is a one-kernel program's only buffer besides inputs, else null

    /// A memory plan worked out for calls: each buffer's slot, the first buffer of each slot, and a
    /// pool of idle arenas taking no lock (a tiny call's whole budget is a few dozen nanoseconds).
    private static final class Layout {
        final MemoryPlan memory;
        final int[] slotOf, firstBuffer;
        /// The arena when every slot is returned (a one-kernel program): empty, shared by every call.
        final Object[] noIntermediates;
        final AtomicReferenceArray<Object[]> arenas = new AtomicReferenceArray<>(ARENAS);

        Layout(MemoryPlan memory, int buffers) {
            this.memory = memory;
            this.slotOf = new int[buffers];
            this.firstBuffer = new int[memory.slots().size()];
            Arrays.fill(firstBuffer, -1);
            for (int b = 0; b < buffers; b++) {
                slotOf[b] = memory.slot(b);
                if (slotOf[b] >= 0 && firstBuffer[slotOf[b]] < 0) firstBuffer[slotOf[b]] = b;
            }
            this.noIntermediates = memory.slots().stream().allMatch(MemoryPlan.Slot::returned) ? memory.newArena() : null;
        }

        Object allocate(int slot) {
            var s = memory.slots().get(slot);
            return Storage.newArray(s.dtype(), s.size());
        }

        // A pooled arena, or a new one when every pooled arena is in use.
        Object[] takeArena() {
            if (noIntermediates != null) return noIntermediates;
            for (int i = 0; i < ARENAS; i++) {
                Object[] arena = arenas.getAndSet(i, null);
                if (arena != null) return arena;
            }
            return memory.newArena();
        }

        void giveBack(Object[] arena) {
            if (arena == noIntermediates) return;
            for (int i = 0; i < ARENAS; i++) if (arenas.compareAndSet(i, null, arena)) return;
        }
    }

    /// One launch as a call runs it, worked out once: a tiny program's calls cost no more than its
    /// kernels (MatMulBench.Tiny's `overhead`).
    private record Call(KernelFunction function, int[] buffers, int rows, long work, int granule, boolean identity) {
        Call(KernelFunction function, int[] buffers, KernelForm kernel, int allBuffers) {
            this(function, buffers, kernel.workItems(), kernel.work(), kernel.splitGranule(),
                    buffers.length == allBuffers && java.util.stream.IntStream.range(0, allBuffers).allMatch(b -> buffers[b] == b));
        }

        /// The launch's buffers out of the program's: the program's own array when they are all of
        /// them in order (a one-kernel program).
        Object[] bind(Object[] arrays) {
            if (identity) return arrays;
            Object[] bound = new Object[buffers.length];
            for (int i = 0; i < bound.length; i++) bound[i] = arrays[buffers[i]];
            return bound;
        }
    }

    public Program(Schedule schedule, Function<KernelForm, KernelFunction> compile, Executor executor) {
        this.schedule = schedule;
        this.plain = new Layout(Dump.after("memory", MemoryPlanner.plan(schedule)), schedule.buffers().size());
        this.functions = schedule.launches().stream().map(launch -> compile.apply(launch.kernel())).toList();
        this.executor = executor;
        this.calls = new Call[functions.size()];
        for (int l = 0; l < calls.length; l++) {
            var launch = schedule.launches().get(l);
            int[] buffers = launch.buffers().stream().mapToInt(Integer::intValue).toArray();
            calls[l] = new Call(functions.get(l), buffers, launch.kernel(), schedule.buffers().size());
        }
        this.inputBuffers = schedule.inputs().stream().mapToInt(Integer::intValue).toArray();
        this.singleOutput = schedule.outputs().size() == 1 ? schedule.outputs().getFirst().buffer() : -1;
        this.loneOutput = singleOutput >= 0 && calls.length == 1 && calls[0].identity() && plain.slotOf.length == inputBuffers.length + 1
                && plain.memory.slots().size() == 1 && plain.slotOf[singleOutput] == 0 && plain.noIntermediates != null ? plain.memory.slots().getFirst() : null;
    }

    public Schedule schedule() { return schedule; }

    /// The memory plan of calls that update no input in place.
    public MemoryPlan memory() { return plain.memory; }

    /// The memory plan of the latest call that updated inputs in place, else [#memory()].
    public MemoryPlan updatingMemory() {
        Layout layout = lastDonating;
        return (layout == null ? plain : layout).memory;
    }

    public List<KernelFunction> functions() { return functions; }

    public List<Storage> run(List<Storage> inputs) { return run(inputs, null); }

    /// Runs with the outputs written into `outputs` (dense, of the outputs' dtypes and sizes), or into
    /// fresh buffers when `outputs` is null. An output whose array is also an input's is written in
    /// place where its plan's donation was granted; otherwise it is computed into a scratch buffer
    /// and copied in after every launch has run.
    public List<Storage> run(List<Storage> inputs, List<Storage> outputs) {
        if (inputs.size() != schedule.inputs().size())
            throw new IllegalArgumentException("expected " + schedule.inputs().size() + " inputs, got " + inputs.size());
        Layout layout = layout(inputs, outputs);
        Object[] arena = layout.takeArena();
        Object[] arrays = new Object[layout.slotOf.length];
        try {
            var copies = bind(layout, inputs, outputs, arena, arrays);
            launch(arrays);
            // Sources first: a result that is an input must be read before another result overwrites it.
            Object[] sources = new Object[copies.size()];
            for (int c = 0; c < copies.size(); c++) {
                Object source = arrays[schedule.outputs().get(copies.get(c)).buffer()];
                boolean isInput = inputs.stream().anyMatch(in -> in.array() == source);
                sources[c] = isInput ? copy(source) : source;
            }
            for (int c = 0; c < copies.size(); c++)
                System.arraycopy(sources[c], 0, outputs.get(copies.get(c)).array(), 0, outputs.get(copies.get(c)).size());
        } finally {
            layout.giveBack(arena);
        }
        if (outputs != null) return outputs;
        if (schedule.outputs().size() == 1) return List.of(Storage.wrapArray(arrays[schedule.outputs().getFirst().buffer()]));
        var results = new ArrayList<Storage>(schedule.outputs().size());
        for (var output : schedule.outputs()) results.add(Storage.wrapArray(arrays[output.buffer()]));
        return results;
    }

    /// The table of buffers a call to [#runOne] fills: one entry per buffer, inputs at [#inputBuffer].
    public Object[] newBuffers() { return new Object[plain.slotOf.length]; }

    /// Where input `i`'s array goes in a table of buffers.
    public int inputBuffer(int i) { return inputBuffers[i]; }

    /// [#run(List)] for a program of one output, on a table of buffers (from [#newBuffers]) holding
    /// the inputs' arrays: returns the output's array. The caller has checked the inputs against
    /// the signature the program was compiled for (`Compiled`'s per-call fast path), so their
    /// dtypes and sizes are not checked again. Allocates the output and nothing else, so that a
    /// tiny compiled call costs little more than its kernel (MatMulBench.Tiny's `overhead`).
    public Object runOne(Object[] arrays) {
        if (singleOutput < 0) throw new IllegalStateException("the program has " + schedule.outputs().size() + " outputs");
        Layout layout = plain;
        if (arrays.length != layout.slotOf.length) throw new IllegalArgumentException("expected " + layout.slotOf.length + " buffers, got " + arrays.length);
        if (loneOutput != null) { // one kernel and no intermediates: allocate the output and run (an 8³ matmul's call: 87 → 78 ns)
            Object output = arrays[singleOutput] = Storage.newArray(loneOutput.dtype(), loneOutput.size());
            Call call = calls[0];
            executor.run(call.function(), arrays, call.rows(), call.work(), call.granule());
            return output;
        }
        Object[] arena = layout.takeArena();
        try {
            for (int b = 0; b < arrays.length; b++) {
                int slot = layout.slotOf[b];
                if (slot >= 0) arrays[b] = arena[slot] != null ? arena[slot] : layout.firstBuffer[slot] == b ? layout.allocate(slot) : arrays[layout.firstBuffer[slot]];
            }
            launch(arrays);
        } finally {
            layout.giveBack(arena);
        }
        return arrays[singleOutput];
    }

    private void launch(Object[] arrays) {
        for (Call call : calls) executor.run(call.function(), call.bind(arrays), call.rows(), call.work(), call.granule());
    }

    /// The plain layout, or the one planned for the outputs that are given inputs' arrays.
    private Layout layout(List<Storage> inputs, List<Storage> outputs) {
        if (outputs == null) return plain;
        Map<Integer, Integer> donations = null;   // applyInto's calls (no output is an input) allocate nothing here
        for (int o = 0; o < outputs.size(); o++)
            for (int i = 0; i < inputs.size(); i++)
                if (inputs.get(i).array() == outputs.get(o).array()) {
                    if (donations == null) donations = new HashMap<>();
                    donations.put(o, i);
                    break;
                }
        if (donations == null) return plain;
        Layout layout = donating.computeIfAbsent(Map.copyOf(donations),
                d -> new Layout(Dump.after("memory", MemoryPlanner.plan(schedule, d)), schedule.buffers().size()));
        lastDonating = layout;
        return layout;
    }

    /// Fills `arrays` (one per buffer): inputs are the caller's arrays, other buffers their slot's
    /// array, from `arena` or, for a returned slot, the caller's output or a fresh array. Returns
    /// the outputs to copy after the run: those that are an input or repeat an earlier output, and
    /// those whose target is an input's array that the plan does not update in place.
    private List<Integer> bind(Layout layout, List<Storage> inputs, List<Storage> outputs, Object[] arena, Object[] arrays) {
        for (int i = 0; i < inputs.size(); i++) arrays[schedule.inputs().get(i)] = bind(i, inputs.get(i));
        Object[] slots = arena.clone();
        List<Integer> copies = outputs == null ? List.of() : new ArrayList<>();
        for (int o = 0; outputs != null && o < outputs.size(); o++) {
            int slot = layout.slotOf[schedule.outputs().get(o).buffer()];
            Object target = outputs.get(o).array();
            var planned = slot < 0 ? null : layout.memory.slots().get(slot);
            boolean donated = planned != null && planned.donated() && inputs.get(planned.donor()).array() == target;
            if (slot < 0 || slots[slot] != null || !donated && inputs.stream().anyMatch(in -> in.array() == target)) copies.add(o);
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
        return input.array();
    }
}
