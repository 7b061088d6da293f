// SPDX-License-Identifier: Apache-2.0
package dev.smelt.nn;

import java.util.AbstractMap;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/// What [Module#nest] returns: each parameter once, under its first name, as PyTorch's
/// `named_parameters()` lists a tied weight, and behind it every name, as `state_dict()` keeps
/// them. One map carries both so that a module that overrides only `namedParameters()` with
/// `Module.nest(…)` gets PyTorch's `stateDict()` too, at any depth of nesting.
final class NestedNames extends AbstractMap<String, Parameter> {
    private final Map<String, Parameter> first;
    private final Map<String, Parameter> every;

    /// `every`: all names in order, a shared parameter under each.
    NestedNames(Map<String, Parameter> every) {
        this.every = Collections.unmodifiableMap(every);
        var listed = Collections.newSetFromMap(new IdentityHashMap<Parameter, Boolean>());
        var first = new LinkedHashMap<String, Parameter>();
        every.forEach((name, p) -> {
            if (listed.add(p)) first.put(name, p);
        });
        this.first = Collections.unmodifiableMap(first);
    }

    /// Every name of `named`'s parameters, a shared one's under each; `named` itself when it is
    /// not a nest's (a layer's own names).
    static Map<String, Parameter> every(Map<String, Parameter> named) { return named instanceof NestedNames nested ? nested.every : named; }

    @Override
    public Set<Entry<String, Parameter>> entrySet() { return first.entrySet(); }

    @Override
    public Parameter get(Object name) { return first.get(name); }

    @Override
    public boolean containsKey(Object name) { return first.containsKey(name); }
}
