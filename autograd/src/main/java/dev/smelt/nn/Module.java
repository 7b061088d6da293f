// SPDX-License-Identifier: Apache-2.0
package dev.smelt.nn;

import dev.smelt.Tensor;
import dev.smelt.ir.SmeltException;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/// A layer or a model: a tensor function with the parameters it reads. `forward` is ordinary
/// tensor code, so it runs eagerly, traced under [dev.smelt.Jit#compile], or inside a training step.
public interface Module {
    /// The layer applied to `x`: eager on concrete tensors, recorded inside a trace.
    Tensor forward(Tensor x);

    /// The modules this one is made of, in order, as PyTorch's `children()`: none for a layer; a
    /// module holding others overrides it, so that [#train] and [#eval] reach every layer.
    default List<Module> children() { return List.of(); }

    /// Training mode for this module and every module under it, as PyTorch's `train()`: a
    /// [Dropout] drops elements again. Returns this module.
    default Module train() {
        for (Module child : children()) child.train();
        return this;
    }

    /// Evaluation mode for this module and every module under it, as PyTorch's `eval()`: a
    /// [Dropout] becomes the identity. Returns this module.
    default Module eval() {
        for (Module child : children()) child.eval();
        return this;
    }

    /// The trainable parameters, in a fixed order, each once: a layer used twice (tied weights)
    /// gives its parameters at their first place only, as PyTorch's `parameters()`, so the list
    /// can go to an optimizer as it is.
    default List<Parameter> parameters() { return List.of(); }

    /// Every parameter under its dotted name, in the order of [#parameters], as PyTorch's
    /// `named_parameters()`: `weight` and `bias` of a [Linear]; `0.weight`, `2.bias` of a
    /// [Sequential], prefixed by each layer's index; `encoder.0.weight` of a module made of named
    /// parts (see [#nest]). A parameter reached under two names (a layer used twice) is listed once,
    /// under the first, as PyTorch's; [#stateDict] keeps both names. By default a module's own
    /// parameters under their [Parameter#name]s, which suits a layer; a module holding other
    /// modules overrides it.
    default Map<String, Parameter> namedParameters() {
        var named = new LinkedHashMap<String, Parameter>();
        for (Parameter p : parameters())
            if (named.putIfAbsent(p.name(), p) != null)
                throw SmeltException.of("namedParameters", "two parameters are named %s; a module made of other modules overrides namedParameters() (see Module.nest) to give each a dotted name", p.name());
        return Collections.unmodifiableMap(named);
    }

    /// The module's state, PyTorch's `state_dict()`: each parameter's value under its dotted name,
    /// a shared parameter's under each of its names (one tensor), as PyTorch keeps tied weights.
    /// The tensors are the parameters' own, not copies, so a later training step changes them;
    /// `SafeTensors.save(path, model.stateDict())` writes a checkpoint.
    default Map<String, Tensor> stateDict() {
        var state = new LinkedHashMap<String, Tensor>();
        NestedNames.every(namedParameters()).forEach((name, p) -> state.put(name, p.value()));
        return Collections.unmodifiableMap(state);
    }

    /// Copies `state` into the parameters of the same names, in place, so a compiled forward or
    /// training step sees the values at its next call. Strict, as PyTorch's default: a missing or
    /// unexpected name, or a shape or dtype that differs, throws a [SmeltException] listing them
    /// all, and then no parameter has changed.
    default void loadStateDict(Map<String, Tensor> state) { StateDict.load("loadStateDict", stateDict(), state); }

    /// The parameters of `modules` under their `names` and a dot, in order: what a module made of
    /// named parts returns from [#namedParameters], as PyTorch names submodule attributes:
    /// `Module.nest(List.of("encoder", "head"), List.of(encoder, head))` gives `encoder.0.weight`, ….
    /// A module listed twice, or under two parts, is a shared one: the map lists each parameter once,
    /// under its first name, and [#stateDict] gives every name.
    static Map<String, Parameter> nest(List<String> names, List<? extends Module> modules) {
        if (names == null || modules == null || names.size() != modules.size())
            throw SmeltException.of("Module.nest", "expected as many names as modules, got %s and %s", names, modules);
        var named = new LinkedHashMap<String, Parameter>();
        for (int i = 0; i < names.size(); i++) {
            if (names.get(i) == null || modules.get(i) == null) throw SmeltException.of("Module.nest", "name or module %d is null", i);
            for (var entry : NestedNames.every(modules.get(i).namedParameters()).entrySet())
                if (named.putIfAbsent(names.get(i) + "." + entry.getKey(), entry.getValue()) != null)
                    throw SmeltException.of("Module.nest", "two parameters are named %s.%s", names.get(i), entry.getKey());
        }
        return new NestedNames(named);
    }

    /// `x`, checked to be a tensor: what a layer's `forward` calls first, so that a null input is
    /// a [SmeltException] naming the layer rather than a NullPointerException inside it.
    static Tensor input(String layer, Tensor x) {
        if (x == null) throw SmeltException.of(layer, "the input is null");
        return x;
    }
}
