// SPDX-License-Identifier: Apache-2.0
package dev.smelt.nn;

import dev.smelt.Tensor;
import dev.smelt.ir.SmeltException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/// State dictionaries: flat maps from dotted names to tensors, PyTorch's `state_dict()`, as
/// [Module#stateDict] and `Optimizer.stateDict()` return them and their `loadStateDict` read them.
public final class StateDict {
    private StateDict() {}

    /// At most this many faults of each kind are listed; the rest are counted.
    private static final int LISTED = 10;

    /// Copies each tensor of `source` into the live tensor of the same name in `target`, all or
    /// nothing, for `op` (named in errors). Every name, shape and dtype is checked first: missing
    /// names, unexpected names, mismatched shapes or dtypes, null or traced tensors are listed
    /// together in one [SmeltException], and then nothing has been written.
    public static void load(String op, Map<String, Tensor> target, Map<String, Tensor> source) {
        if (source == null) throw SmeltException.of(op, "the state dictionary is null");
        var missing = new ArrayList<String>();
        var unexpected = new ArrayList<String>();
        var mismatched = new ArrayList<String>();
        for (var name : target.keySet()) if (!source.containsKey(name)) missing.add(name);
        for (var entry : source.entrySet()) {
            Tensor have = target.get(entry.getKey()), given = entry.getValue();
            if (have == null) unexpected.add(String.valueOf(entry.getKey()));
            else if (given == null) mismatched.add(entry.getKey() + " is null");
            else if (given.isTraced()) mismatched.add(entry.getKey() + " is a traced tensor");
            else if (!given.shape().equals(have.shape()) || given.dtype() != have.dtype())
                mismatched.add("%s is %s%s here but %s%s in the dictionary".formatted(entry.getKey(), have.dtype(), have.shape(), given.dtype(), given.shape()));
        }
        if (!missing.isEmpty() || !unexpected.isEmpty() || !mismatched.isEmpty()) {
            var faults = new ArrayList<String>();
            if (!missing.isEmpty()) faults.add("missing " + list(missing));
            if (!unexpected.isEmpty()) faults.add("unexpected " + list(unexpected));
            if (!mismatched.isEmpty()) faults.add(list(mismatched));
            throw SmeltException.of(op, "the state dictionary does not match, so nothing was loaded: %s", String.join("; ", faults));
        }
        target.forEach((name, tensor) -> tensor.copyFrom(source.get(name)));
    }

    private static String list(List<String> items) {
        String shown = String.join(", ", items.subList(0, Math.min(LISTED, items.size())));
        return items.size() > LISTED ? shown + " and " + (items.size() - LISTED) + " more" : shown;
    }
}
