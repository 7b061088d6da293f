// SPDX-License-Identifier: Apache-2.0
package dev.smelt.runtime;

import dev.smelt.ir.Storage;
import dev.smelt.kernel.KernelForm;
import dev.smelt.kernel.KernelFunction;
import dev.smelt.kernel.Schedule;
import dev.smelt.plan.MemoryPlan;
import dev.smelt.plan.MemoryPlanner;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
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

    /// A memory plan and its pool of idle arenas.
    private record Layout(MemoryPlan memory, ArrayBlockingQueue<Object[]> arenas) {
        Layout(MemoryPlan memory) { this(memory, new ArrayBlockingQueue<>(ARENAS)); }
    }

    private final Schedule schedule;
    private final Layout plain;
    private final Map<Map<Integer, Integer>, Layout> donating = new ConcurrentHashMap<>();
    private volatile Layout lastDonating;
    private final List<KernelFunction> functions;
    private final Executor executor;

    public Program(Schedule schedule, Function<KernelForm, KernelFunction> compile, Executor executor) {
        this.schedule = schedule;
        this.plain = new Layout(Dump.after("memory", MemoryPlanner.plan(schedule)));
        this.functions = schedule.launches().stream().map(launch -> compile.apply(launch.kernel())).toList();
        this.executor = executor;
    }

    public Schedule schedule() { return schedule; }

    /// The memory plan of calls that update no input in place.
    public MemoryPlan memory() { return plain.memory(); }

    /// The memory plan of the latest call that updated inputs in place, else [#memory()].
    public MemoryPlan updatingMemory() {
        Layout layout = lastDonating;
        return layout == null ? plain.memory() : layout.memory();
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
        Object[] arena = layout.arenas().poll();
        if (arena == null) arena = layout.memory().newArena();
        Object[] arrays = new Object[schedule.buffers().size()];
        try {
            var copies = bind(layout.memory(), inputs, outputs, arena, arrays);
            for (int l = 0; l < functions.size(); l++) {
                var launch = schedule.launches().get(l);
                Object[] bound = launch.buffers().stream().map(b -> arrays[b]).toArray();
                executor.run(functions.get(l), bound, launch.kernel());
            }
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
            layout.arenas().offer(arena);
        }
        if (outputs != null) return outputs;
        var results = new ArrayList<Storage>();
        for (var output : schedule.outputs()) results.add(Storage.wrapArray(arrays[output.buffer()]));
        return results;
    }

    /// The plain layout, or the one planned for the outputs that are given inputs' arrays.
    private Layout layout(List<Storage> inputs, List<Storage> outputs) {
        if (outputs == null) return plain;
        var donations = new HashMap<Integer, Integer>();
        for (int o = 0; o < outputs.size(); o++)
            for (int i = 0; i < inputs.size(); i++)
                if (inputs.get(i).array() == outputs.get(o).array()) { donations.put(o, i); break; }
        if (donations.isEmpty()) return plain;
        Layout layout = donating.computeIfAbsent(Map.copyOf(donations), d -> new Layout(Dump.after("memory", MemoryPlanner.plan(schedule, d))));
        lastDonating = layout;
        return layout;
    }

    /// Fills `arrays` (one per buffer): inputs are the caller's arrays, other buffers their slot's
    /// array, from `arena` or, for a returned slot, the caller's output or a fresh array. Returns
    /// the outputs to copy after the run: those that are an input or repeat an earlier output, and
    /// those whose target is an input's array that the plan does not update in place.
    private List<Integer> bind(MemoryPlan memory, List<Storage> inputs, List<Storage> outputs, Object[] arena, Object[] arrays) {
        for (int i = 0; i < inputs.size(); i++) arrays[schedule.inputs().get(i)] = bind(i, inputs.get(i));
        Object[] slots = arena.clone();
        var copies = new ArrayList<Integer>();
        for (int o = 0; outputs != null && o < outputs.size(); o++) {
            int slot = memory.slot(schedule.outputs().get(o).buffer());
            Object target = outputs.get(o).array();
            boolean donated = slot >= 0 && memory.slots().get(slot).donated() && inputs.get(memory.slots().get(slot).donor()).array() == target;
            if (slot < 0 || slots[slot] != null || !donated && inputs.stream().anyMatch(in -> in.array() == target)) copies.add(o);
            else slots[slot] = target;
        }
        for (int s = 0; s < slots.length; s++)
            if (slots[s] == null) slots[s] = Storage.allocate(memory.slots().get(s).dtype(), memory.slots().get(s).size()).array();
        for (int b = 0; b < arrays.length; b++)
            if (memory.slot(b) >= 0) arrays[b] = slots[memory.slot(b)];
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
