// SPDX-License-Identifier: Apache-2.0
package dev.smelt;

import dev.smelt.ir.SmeltException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;

/// Which axes of which arguments a compiled function marks dynamic ([Compiled#dynamic], [Dynamic]),
/// as written: negative axes count from the end, so they are resolved against each call's ranks.
record DynamicDims(Map<Integer, List<Integer>> axes) {
    static final DynamicDims NONE = new DynamicDims(Map.of());

    DynamicDims {
        axes = Map.copyOf(axes);
    }

    boolean isEmpty() { return axes.isEmpty(); }

    /// These marks and `marked` of argument `argument` of `function`, whose parameters are `parameters`.
    DynamicDims with(String function, List<String> parameters, int argument, int[] marked) {
        if (argument < 0 || argument >= parameters.size())
            throw SmeltException.of("dynamic", "%s has %d arguments; there is no argument %d", function, parameters.size(), argument);
        if (marked == null) throw SmeltException.of("dynamic", "the axes of %s of %s are null", parameters.get(argument), function);
        if (marked.length == 0)
            throw SmeltException.of("dynamic", "name at least one axis of %s of %s, such as 0 for the batch", parameters.get(argument), function);
        var merged = new TreeMap<>(axes);
        var list = new ArrayList<>(merged.getOrDefault(argument, List.of()));
        for (int axis : marked) if (!list.contains(axis)) list.add(axis);
        merged.put(argument, List.copyOf(list));
        return new DynamicDims(merged);
    }

    /// The dynamic axes of argument `argument` (`value`) in ascending order, each in `0…rank-1`.
    List<Integer> of(String function, String parameter, int argument, Object value) {
        var marked = axes.get(argument);
        if (marked == null) return List.of();
        if (!(value instanceof Tensor tensor))
            throw SmeltException.of(function, "%s is marked dynamic, but it is %s, not a tensor; only tensor dimensions can be dynamic", parameter, value == null ? "null" : "a " + value.getClass().getSimpleName());
        int rank = tensor.shape().rank();
        var resolved = new TreeSet<Integer>();
        for (int axis : marked) {
            if (axis < -rank || axis >= rank)
                throw SmeltException.of(function, "%s is marked dynamic on axis %d, but it has rank %d (shape %s)%s", parameter, axis, rank, tensor.shape(),
                        rank == 0 ? ": a scalar has no axes" : "; axes run from %d to %d".formatted(-rank, rank - 1));
            resolved.add(axis < 0 ? axis + rank : axis);
        }
        return List.copyOf(resolved);
    }
}
