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
/// As in PyTorch, each parameter that keeps state has its own step count (`state['step']`): a step
/// advances it only for the parameters the loss reads, so a parameter that joins late gets the
/// update of its own first step (Adam's bias corrections at `t = 1`, SGD's undampened first
/// momentum buffer). The program advances the counts itself, since which parameters a loss reads
/// is known only when it is traced; the values that depend on a count (Adam's bias corrections)
/// are computed in double before each step from each count and fed to the program as rank-0
/// tensors of that parameter's own.
///
/// [#stateDict] is PyTorch's `optimizer.state_dict()` made flat: `step`, the steps taken (a 0-d
/// `i32`), and for parameter `i` of [#parameters] its own count under `state.i.step` (a 0-d `i32`)
/// and each state tensor under `state.i.<name>`, with PyTorch's names (Adam's `exp_avg` and
/// `exp_avg_sq`, SGD's `momentum_buffer`). Parameters are numbered by position, as PyTorch numbers
/// them. Hyper-parameters are not part of it: they are the constructor's arguments and setters,
/// which code sets again.
public abstract sealed class Optimizer permits SGD, Adam {
    private final List<Parameter> parameters;
    private final List<String> stateNames;
    private final List<List<Tensor>> state = new ArrayList<>();
    // Each parameter's own step count, a 0-d i32 the program advances; none without state
    private final List<Tensor> stepCounts = new ArrayList<>();
    // Each parameter's own runtime scalars (0-d f64), set from its count before every step
    private final List<List<Tensor>> own = new ArrayList<>();
    private final double[] ownValues;
    private static final int[] RANK_0 = {}; // the index of a 0-d tensor, shared: varargs would make one per call
    double learningRate;
    double weightDecay;
    int steps;

    /// `stateNames`: the names of each parameter's state tensors, in [#update]'s order; `ownNames`:
    /// the runtime scalars each parameter has of its own, which [#ownHyperParameters] computes from
    /// its step count. An optimizer without state keeps no step counts.
    Optimizer(List<Parameter> parameters, List<String> stateNames, List<String> ownNames, double learningRate, double weightDecay) {
        if (parameters == null || parameters.isEmpty()) throw SmeltException.of(name(), "needs at least one parameter");
        Set<Tensor> seen = Collections.newSetFromMap(new IdentityHashMap<>());
        for (int i = 0; i < parameters.size(); i++) {
            Parameter p = parameters.get(i);
            if (p == null) throw SmeltException.of(name(), "parameter %d is null", i);
            if (!seen.add(p.value())) throw SmeltException.of(name(), "parameter %s is listed twice", p);
        }
        this.parameters = List.copyOf(parameters);
        this.stateNames = stateNames;
        this.ownValues = new double[ownNames.size()];
        for (Parameter p : parameters) {
            var tensors = new ArrayList<Tensor>();
            for (int i = 0; i < stateNames.size(); i++) tensors.add(Tensor.zeros(p.value().dtype(), p.value().shape().toArray()));
            state.add(List.copyOf(tensors));
            if (!stateNames.isEmpty()) stepCounts.add(Tensor.zeros(DType.I32));
            var scalars = new ArrayList<Tensor>();
            for (int i = 0; i < ownNames.size(); i++) scalars.add(Tensor.zeros(DType.F64));
            own.add(List.copyOf(scalars));
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

    /// Parameter `index`'s own step count, PyTorch's `state['step']`: the steps that updated it
    /// (Adam), or that updated its momentum buffer (SGD, so 0 is PyTorch's buffer of `None`). 0 for
    /// an SGD made without momentum, which keeps no state.
    public int steps(int index) {
        state(index); // checks the index
        return stepCounts.isEmpty() ? 0 : (int) stepCounts.get(index).item();
    }

    /// The optimizer's state by flat name (see the class comment): the state tensors and step
    /// counts are the live ones, not copies, so a later step changes them; `step` is a new tensor.
    public Map<String, Tensor> stateDict() {
        var dictionary = new LinkedHashMap<String, Tensor>();
        dictionary.put("step", Tensor.scalar(DType.I32, steps));
        for (int i = 0; i < parameters.size(); i++) {
            if (!stepCounts.isEmpty()) dictionary.put(stepName(i), stepCounts.get(i));
            for (int s = 0; s < stateNames.size(); s++) dictionary.put("state." + i + "." + stateNames.get(s), state.get(i).get(s));
        }
        return Collections.unmodifiableMap(dictionary);
    }

    /// Copies `dictionary` into the state tensors and step counts in place and sets the steps
    /// taken, so a compiled [TrainStep] continues from it at its next call. A dictionary saved
    /// before parameters had counts of their own (a `step` and no `state.i.step`) gives its `step`
    /// to every parameter. Strict: missing or unexpected names, shape or dtype mismatches and a
    /// negative step are listed in one [SmeltException], and then nothing has changed.
    public void loadStateDict(Map<String, Tensor> dictionary) {
        String op = name() + ".loadStateDict";
        Map<String, Tensor> given = withStepCounts(dictionary);
        if (given != null) given.forEach((name, tensor) -> requireCount(op, name, tensor));
        var live = stateDict();
        Tensor counter = live.get("step");
        StateDict.load(op, live, given);
        steps = (int) counter.item();
    }

    private static String stepName(int index) { return "state." + index + ".step"; }

    // An older dictionary's one step count, given to every parameter, as its steps applied to all.
    private Map<String, Tensor> withStepCounts(Map<String, Tensor> dictionary) {
        if (dictionary == null || stepCounts.isEmpty() || !dictionary.containsKey("step")) return dictionary;
        for (int i = 0; i < parameters.size(); i++)
            if (dictionary.containsKey(stepName(i))) return dictionary;
        var completed = new LinkedHashMap<>(dictionary);
        for (int i = 0; i < parameters.size(); i++) completed.put(stepName(i), dictionary.get("step"));
        return completed;
    }

    private static void requireCount(String op, String name, Tensor count) {
        boolean isCount = name.equals("step") || name.startsWith("state.") && name.endsWith(".step");
        if (isCount && count != null && !count.isTraced() && count.dtype() == DType.I32 && count.rank() == 0 && count.item() < 0)
            throw SmeltException.of(op, "%s is %d; expected a count ≥ 0", name, (int) count.item());
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

    /// The names of the runtime scalars all parameters share, which [#update] reads first, in order.
    abstract List<String> hyperParameterNames();

    /// Writes their values for the step about to run into `values`, in that order.
    abstract void hyperParameters(double[] values);

    /// Writes the values of a parameter's own runtime scalars (the constructor's `ownNames`, which
    /// [#update] reads after the shared ones) into `values`, for the step about to run, given the
    /// parameter's step count before it.
    abstract void ownHyperParameters(int steps, double[] values);

    /// The new value of parameter `p` and its new state, from its gradient `g`, its state and the
    /// hyper-parameters (rank-0 nodes of `p`'s dtype, the shared ones then its own). Pointwise, so
    /// each update fuses into few kernels.
    abstract List<Node> update(Nodes b, Node p, Node g, List<Node> state, List<Node> hyper);

    /// Whether the step about to run keeps the new state and step counts it computes; when not,
    /// [TrainStep] has the program write them into scratch tensors, so the state stays as it was
    /// and no other program is needed.
    boolean writesState() { return true; }

    /// Parameter `index`'s step count (a 0-d `i32`, written by the program), or none without state.
    List<Tensor> stepCount(int index) { return stepCounts.isEmpty() ? List.of() : List.of(stepCounts.get(index)); }

    /// Parameter `index`'s own runtime scalars, the inputs of [#update]'s last hyper-parameters.
    List<Tensor> ownHyperParameterTensors(int index) { return own.get(index); }

    /// Sets every parameter's own runtime scalars for the step about to run, in place (a step
    /// allocates nothing for them). A parameter the loss does not read gets them too, unread.
    void prepareOwnHyperParameters() {
        for (int i = 0; i < own.size(); i++) {
            List<Tensor> scalars = own.get(i);
            if (scalars.isEmpty()) continue;
            ownHyperParameters(stepCounts.isEmpty() ? 0 : (int) stepCounts.get(i).item(), ownValues);
            for (int h = 0; h < scalars.size(); h++) scalars.get(h).set(ownValues[h], RANK_0);
        }
    }

    String name() { return getClass().getSimpleName(); }
}
