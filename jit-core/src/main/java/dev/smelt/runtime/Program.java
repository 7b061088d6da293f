// SPDX-License-Identifier: Apache-2.0
package dev.smelt.runtime;

import dev.smelt.ir.Storage;
import dev.smelt.kernel.KernelForm;
import dev.smelt.kernel.KernelFunction;
import dev.smelt.kernel.Schedule;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/// A schedule made runnable: one [KernelFunction] per launch. Each call allocates the buffers the
/// schedule needs, binds the inputs, runs the launches in order and returns the output buffers
/// (which the caller then owns). Safe to call from several threads at once.
public final class Program {
    private final Schedule schedule;
    private final List<KernelFunction> functions;
    private final Executor executor;

    public Program(Schedule schedule, Function<KernelForm, KernelFunction> compile, Executor executor) {
        this.schedule = schedule;
        this.functions = schedule.launches().stream().map(launch -> compile.apply(launch.kernel())).toList();
        this.executor = executor;
    }

    public Schedule schedule() { return schedule; }

    public List<KernelFunction> functions() { return functions; }

    public List<Storage> run(List<Storage> inputs) { return run(inputs, null); }

    /// Runs with the outputs written into `outputs` (dense, of the outputs' dtypes and sizes, not
    /// sharing memory with the inputs), or into fresh buffers when `outputs` is null.
    public List<Storage> run(List<Storage> inputs, List<Storage> outputs) {
        if (inputs.size() != schedule.inputs().size())
            throw new IllegalArgumentException("expected " + schedule.inputs().size() + " inputs, got " + inputs.size());
        Object[] arrays = new Object[schedule.buffers().size()];
        for (int i = 0; i < inputs.size(); i++) arrays[schedule.inputs().get(i)] = bind(i, inputs.get(i));
        var copies = new ArrayList<Integer>();
        for (int o = 0; outputs != null && o < outputs.size(); o++) {
            int buffer = schedule.outputs().get(o).buffer();
            if (arrays[buffer] != null) copies.add(o); // the output is an input: copied below
            else arrays[buffer] = outputs.get(o).array();
        }
        for (int b = 0; b < arrays.length; b++)
            if (arrays[b] == null) arrays[b] = Storage.allocate(schedule.buffers().get(b).dtype(), schedule.buffers().get(b).size()).array();
        for (int l = 0; l < functions.size(); l++) {
            var launch = schedule.launches().get(l);
            Object[] bound = launch.buffers().stream().map(b -> arrays[b]).toArray();
            executor.run(functions.get(l), bound, launch.kernel());
        }
        for (int o : copies) {
            Object source = arrays[schedule.outputs().get(o).buffer()];
            System.arraycopy(source, 0, outputs.get(o).array(), 0, outputs.get(o).size());
        }
        if (outputs != null) return outputs;
        var results = new ArrayList<Storage>();
        for (var output : schedule.outputs()) results.add(Storage.wrapArray(arrays[output.buffer()]));
        return results;
    }

    private Object bind(int slot, Storage input) {
        var buffer = schedule.buffers().get(schedule.inputs().get(slot));
        if (input.dtype() != buffer.dtype() || input.size() != buffer.size())
            throw new IllegalArgumentException("input %d: expected %s with %d elements, got %s with %d".formatted(slot, buffer.dtype(), buffer.size(), input.dtype(), input.size()));
        return input.array();
    }
}
