// SPDX-License-Identifier: Apache-2.0
package dev.smelt.optim;

import dev.smelt.Jit;
import dev.smelt.Tensor;
import dev.smelt.autograd.Nodes;
import dev.smelt.ir.DType;
import dev.smelt.ir.Node;
import dev.smelt.ir.SmeltException;
import dev.smelt.nn.Parameter;
import dev.smelt.nn.StateDict;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/// An optimizer over a fixed list of parameters, with per-parameter state tensors (momentum,
/// moment estimates). Its update rule is graph IR: [#compile] makes a [TrainStep] whose one program
/// computes the loss, the gradients and every update. Hyper-parameters enter that program as rank-0
/// inputs, so changing them (or the step count) never recompiles.
///
/// [#stateDict] is PyTorch's `optimizer.state_dict()` made flat: `step`, the steps taken (a 0-d
/// `i32`), and each state tensor of parameter `i` of [#parameters] under `state.i.<name>`, with
/// PyTorch's names (Adam's `exp_avg` and `exp_avg_sq`, SGD's `momentum_buffer`). Parameters are
/// numbered by position, as PyTorch numbers them. Hyper-parameters are not part of it: they are
/// the constructor's arguments and setters, which code sets again.
public abstract sealed class Optimizer permits SGD, Adam {
    private final List<Parameter> parameters;
    private final List<String> stateNames;
    private final List<List<Tensor>> state = new ArrayList<>();
    double learningRate;
    double weightDecay;
    int steps;

    /// `stateNames`: the names of each parameter's state tensors, in [#update]'s order.
    Optimizer(List<Parameter> parameters, List<String> stateNames, double learningRate, double weightDecay) {
        if (parameters == null || parameters.isEmpty()) throw SmeltException.of(name(), "needs at least one parameter");
        Set<Tensor> seen = Collections.newSetFromMap(new IdentityHashMap<>());
        for (int i = 0; i < parameters.size(); i++) {
            Parameter p = parameters.get(i);
            if (p == null) throw SmeltException.of(name(), "parameter %d is null", i);
            if (!seen.add(p.value())) throw SmeltException.of(name(), "parameter %s is listed twice", p);
        }
        this.parameters = List.copyOf(parameters);
        this.stateNames = stateNames;
        for (Parameter p : parameters) {
            var tensors = new ArrayList<Tensor>();
            for (int i = 0; i < stateNames.size(); i++) tensors.add(Tensor.zeros(p.value().dtype(), p.value().shape().toArray()));
            state.add(List.copyOf(tensors));
        }
        learningRate(learningRate);
        weightDecay(weightDecay);
    }

    /// The parameters it updates, in order.
    public List<Parameter> parameters() { return parameters; }

    /// Parameter `index`'s state tensors, updated in place by each step.
    public List<Tensor> state(int index) {
        if (index < 0 || index >= state.size())
            throw SmeltException.of(name(), "parameter index %d is out of range; expected 0..%d", index, state.size() - 1);
        return state.get(index);
    }

    /// Steps taken so far.
    public int steps() { return steps; }

    /// The optimizer's state by flat name (see the class comment): the state tensors are the live
    /// ones, not copies, so a later step changes them; `step` is a new tensor.
    public Map<String, Tensor> stateDict() {
        var dictionary = new LinkedHashMap<String, Tensor>();
        dictionary.put("step", Tensor.scalar(DType.I32, steps));
        for (int i = 0; i < parameters.size(); i++)
            for (int s = 0; s < stateNames.size(); s++) dictionary.put("state." + i + "." + stateNames.get(s), state.get(i).get(s));
        return Collections.unmodifiableMap(dictionary);
    }

    /// Copies `dictionary` into the state tensors in place and sets the step count, so a compiled
    /// [TrainStep] continues from it at its next call. Strict: missing or unexpected names, shape or
    /// dtype mismatches and a negative step are listed in one [SmeltException], and then nothing
    /// has changed.
    public void loadStateDict(Map<String, Tensor> dictionary) {
        String op = name() + ".loadStateDict";
        Tensor step = dictionary == null ? null : dictionary.get("step");
        if (step != null && !step.isTraced() && step.dtype() == DType.I32 && step.rank() == 0 && step.item() < 0)
            throw SmeltException.of(op, "step is %d; expected a count ≥ 0", (int) step.item());
        var live = stateDict();
        Tensor counter = live.get("step");
        StateDict.load(op, live, dictionary);
        steps = (int) counter.item();
    }

    /// The current learning rate.
    public double learningRate() { return learningRate; }

    /// Takes effect at the next step, without recompiling.
    public Optimizer learningRate(double value) {
        if (!(value >= 0) || Double.isInfinite(value)) throw SmeltException.of(name(), "learning rate must be finite and ≥ 0, got %s", value);
        learningRate = value;
        return this;
    }

    /// Sets the weight decay (finite, `≥ 0`) for the next step, without recompiling.
    public Optimizer weightDecay(double value) {
        if (!(value >= 0) || Double.isInfinite(value)) throw SmeltException.of(name(), "weight decay must be finite and ≥ 0, got %s", value);
        weightDecay = value;
        return this;
    }

    /// A training step: `loss` of the batch tensors is differentiated with respect to every
    /// parameter it reads, and the parameters and state are updated in place, in one program.
    public TrainStep compile(Jit.Function1 loss) {
        if (loss == null) throw SmeltException.of(name(), "the loss function is null");
        return new TrainStep(this, args -> Arrays.asList(loss.apply(args.get(0))), 1);
    }

    /// [#compile(Jit.Function1)] for a loss of two batch tensors, such as inputs and labels.
    public TrainStep compile(Jit.Function2 loss) {
        if (loss == null) throw SmeltException.of(name(), "the loss function is null");
        return new TrainStep(this, args -> Arrays.asList(loss.apply(args.get(0), args.get(1))), 2);
    }

    /// [#compile(Jit.Function1)] for a loss of `arity` batch tensors.
    public TrainStep compile(Jit.FunctionN loss, int arity) {
        if (loss == null) throw SmeltException.of(name(), "the loss function is null");
        if (arity < 0) throw SmeltException.of(name(), "arity %d is negative; it is the number of batch tensors", arity);
        return new TrainStep(this, loss, arity);
    }

    /// The names of the runtime scalars [#update] reads, in order.
    abstract List<String> hyperParameterNames();

    /// Writes their values for the step about to run (the step count is already advanced) into
    /// `values`, in that order.
    abstract void hyperParameters(double[] values);

    /// The new value of parameter `p` and its new state, from its gradient `g`, its state and the
    /// hyper-parameters (rank-0 nodes of `p`'s dtype). Pointwise, so each update fuses into few kernels.
    abstract List<Node> update(Nodes b, Node p, Node g, List<Node> state, List<Node> hyper);

    String name() { return getClass().getSimpleName(); }
}
