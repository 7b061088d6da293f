// SPDX-License-Identifier: Apache-2.0
package dev.smelt.optim;

import dev.smelt.Compiled;
import dev.smelt.Jit;
import dev.smelt.Tensor;
import dev.smelt.Traced;
import dev.smelt.autograd.Autograd;
import dev.smelt.autograd.Nodes;
import dev.smelt.ir.DType;
import dev.smelt.ir.FusionMode;
import dev.smelt.ir.Graph;
import dev.smelt.ir.Node;
import dev.smelt.ir.Shape;
import dev.smelt.ir.SmeltException;
import dev.smelt.nn.Parameter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/// One training step compiled into one program: forward, backward and every parameter's update.
/// Per batch signature, the loss function is traced once (the parameters it reads become graph
/// inputs), the gradients with respect to the parameters are added by the backward transform, and
/// the optimizer's update nodes read them. The program's inputs are the batch, the shared
/// hyper-parameters (rank-0 `f64`), the parameters, the optimizer state and each parameter's step
/// count and own hyper-parameters (rank-0 tensors the optimizer sets before each step); its outputs
/// are the loss, the new parameters, the new state and the new step counts, written back into
/// their own storage.
///
/// The memory plan writes each new parameter and state straight into its tensor's array where the
/// old value is not read afterwards ([Compiled#applyUpdating]): SGD's `w - lr·g` runs in the
/// epilogue of the gradient's matmul, over `w` itself; `explain()` lists the slots `in the array
/// of input …`.
/// A parameter the loss does not read is left untouched, its state and step count too, as PyTorch
/// skips parameters without a gradient. Not thread-safe (it mutates the parameters): [#apply] is
/// synchronized.
public final class TrainStep {
    private final Optimizer optimizer;
    private final Compiled compiled;
    private final int batchArity;
    private final Tensor loss = Tensor.zeros(DType.F64);
    private final List<Tensor> targets = new ArrayList<>();
    // The same, but for scratch tensors in place of the optimizer's state and step counts: made
    // at the first step that keeps no state (Optimizer.writesState), then reused.
    private List<Tensor> discarding;
    // Each step's arguments: the batch, then the hyper-parameters, rank-0 tensors whose values
    // each step sets in place, so that a step allocates nothing for them.
    private final Tensor[] arguments;
    private final double[] hyperParameters;
    private static final int[] RANK_0 = {}; // the index of a 0-d tensor, shared: varargs would make one per call

    TrainStep(Optimizer optimizer, Jit.FunctionN lossFunction, int batchArity) {
        this(optimizer, Jit.compile(args -> lossFunction.apply(args.subList(0, batchArity)), batchArity + optimizer.hyperParameterNames().size(),
                traced -> withUpdates(optimizer, batchArity, traced)), batchArity);
    }

    private TrainStep(Optimizer optimizer, Compiled compiled, int batchArity) {
        this.optimizer = optimizer;
        this.batchArity = batchArity;
        this.compiled = compiled;
        int hyper = optimizer.hyperParameterNames().size();
        this.arguments = new Tensor[batchArity + hyper];
        for (int h = 0; h < hyper; h++) arguments[batchArity + h] = Tensor.zeros(DType.F64);
        this.hyperParameters = new double[hyper];
        targets.add(loss);
        for (Parameter p : optimizer.parameters()) targets.add(p.value());
        for (int i = 0; i < optimizer.parameters().size(); i++) targets.addAll(optimizer.state(i));
        for (int i = 0; i < optimizer.parameters().size(); i++) targets.addAll(optimizer.stepCount(i));
    }

    /// The same step (a separate program cache, the same optimizer) with `axes` of batch tensor
    /// `argument` dynamic, as [Compiled#dynamic]: a batch with another extent along them, such as
    /// the short last batch of an epoch, is no new signature. It is traced and planned for its size
    /// (so a mean over the batch divides by the actual batch size) and reuses the kernels.
    /// [#compiledSignatures] stays 1 across an epoch of batches 32, 32, …, 29.
    public TrainStep dynamic(int argument, int... axes) {
        if (argument < 0 || argument >= batchArity)
            throw SmeltException.of("train step", "there is no batch tensor %d to mark dynamic; the step takes %d (0…%d)", argument, batchArity, batchArity - 1);
        return new TrainStep(optimizer, compiled.dynamic(argument, axes), batchArity);
    }

    /// [#dynamic] on axis 0 of every batch tensor: the batch size may change from step to step.
    public TrainStep dynamicBatch() {
        Compiled marked = compiled;
        for (int argument = 0; argument < batchArity; argument++) marked = marked.dynamic(argument, 0);
        return new TrainStep(optimizer, marked, batchArity);
    }

    /// The same step (a separate program cache, the same optimizer) planned by fusion `mode`, as
    /// [Compiled#withFusion]: `FusionMode.NONE` runs every operation as a kernel of its own, the
    /// baseline a fused step is measured against.
    public TrainStep withFusion(FusionMode mode) { return new TrainStep(optimizer, compiled.withFusion(mode), batchArity); }

    /// Runs one step on a batch and returns the loss (before the update).
    public synchronized double apply(Tensor... batch) {
        requireBatch(batch);
        optimizer.steps++;
        optimizer.hyperParameters(hyperParameters);
        optimizer.prepareOwnHyperParameters();
        for (int h = 0; h < hyperParameters.length; h++) arguments[batchArity + h].set(hyperParameters[h], RANK_0);
        System.arraycopy(batch, 0, arguments, 0, batchArity);
        try {
            compiled.applyUpdating(optimizer.writesState() ? targets : discarding(), arguments);
        } catch (RuntimeException e) {
            optimizer.steps--;
            throw e;
        } finally {
            Arrays.fill(arguments, 0, batchArity, null); // keeps no batch alive between steps
        }
        return loss.item();
    }

    private List<Tensor> discarding() {
        if (discarding == null) {
            int kept = 1 + optimizer.parameters().size();
            discarding = new ArrayList<>(targets.subList(0, kept));
            for (Tensor state : targets.subList(kept, targets.size())) discarding.add(Tensor.zeros(state.dtype(), state.shape().toArray()));
        }
        return discarding;
    }

    /// The program of the most recent batch signature: one graph, its kernels and decisions.
    public String explain() { return compiled.explain(); }

    /// The program for `batch`'s signature, compiling it if need be but taking no step.
    public synchronized String explain(Tensor... batch) {
        requireBatch(batch);
        var arguments = new ArrayList<>(Arrays.asList(batch));
        for (int h = 0; h < optimizer.hyperParameterNames().size(); h++) arguments.add(Tensor.scalar(DType.F64, 0));
        return compiled.explain(arguments.toArray(Tensor[]::new));
    }

    private void requireBatch(Tensor[] batch) {
        if (batch == null || batch.length != batchArity)
            throw SmeltException.of("train step", "expected %d batch tensors, got %s", batchArity, batch == null ? "a null array" : batch.length);
        for (int i = 0; i < batch.length; i++)
            if (batch[i] == null) throw SmeltException.of("train step", "batch tensor %d is null", i);
    }

    /// `TrainStep(Adam (lr=0.001, …), batch_tensors=2, compiled_signatures=1)`.
    @Override
    public String toString() { return "TrainStep(%s, batch_tensors=%d, compiled_signatures=%d)".formatted(optimizer, batchArity, compiledSignatures()); }

    /// Batch signatures compiled so far (changing hyper-parameters adds none).
    public int compiledSignatures() { return compiled.compiledSignatures(); }

    // The loss graph → loss, gradients and updates. Inputs: batch and hyper-parameters (the
    // arguments), the tensors the loss read, then parameters it did not read, all state and step
    // counts, and the own hyper-parameters of the parameters it read.
    private static Traced withUpdates(Optimizer optimizer, int batchArity, Traced traced) {
        Graph graph = traced.graph();
        var inputs = new ArrayList<>(graph.inputs());
        var captures = new ArrayList<>(traced.captures());
        var parameters = optimizer.parameters();
        var slots = new ArrayList<Node.Input>();
        var read = new ArrayList<Node.Input>();
        for (Parameter p : parameters) {
            int capture = indexOf(traced.captures(), p.value());
            Node.Input input = capture >= 0 ? graph.inputs().get(traced.arguments() + capture) : extra(inputs, captures, p.value());
            slots.add(input);
            if (capture >= 0) read.add(input);
        }
        var nodes = new Nodes(graph);
        List<Node> gradients = Autograd.gradients(graph, read, nodes);
        Node lossValue = nodes.cast(nodes.reshape(Autograd.loss(graph), Shape.SCALAR), DType.F64);
        var newParameters = new ArrayList<Node>();
        var newState = new ArrayList<Node>();
        var newCounts = new ArrayList<Node>();
        for (int i = 0; i < parameters.size(); i++) {
            Node.Input p = slots.get(i);
            var state = new ArrayList<Node>();
            for (Tensor s : optimizer.state(i)) state.add(extra(inputs, captures, s));
            var count = new ArrayList<Node>();
            for (Tensor c : optimizer.stepCount(i)) count.add(extra(inputs, captures, c));
            int r = read.indexOf(p);
            if (r < 0) {
                newParameters.add(p);
                newState.addAll(state);
                newCounts.addAll(count);
                continue;
            }
            var hyper = new ArrayList<Node>();
            for (int h = 0; h < optimizer.hyperParameterNames().size(); h++) hyper.add(nodes.cast(graph.inputs().get(batchArity + h), p.dtype()));
            for (Tensor own : optimizer.ownHyperParameterTensors(i)) hyper.add(nodes.cast(extra(inputs, captures, own), p.dtype()));
            List<Node> updated = optimizer.update(nodes, p, gradients.get(r), state, hyper);
            newParameters.add(updated.getFirst());
            newState.addAll(updated.subList(1, updated.size()));
            for (Node c : count) newCounts.add(nodes.add(c, nodes.constant(1, c)));
        }
        var outputs = new ArrayList<Node>();
        outputs.add(lossValue);
        outputs.addAll(newParameters);
        outputs.addAll(newState);
        outputs.addAll(newCounts);
        return new Traced(new Graph(inputs, outputs), traced.arguments(), captures, traced.draws());
    }

    private static Node.Input extra(List<Node.Input> inputs, List<Tensor> captures, Tensor value) {
        var input = new Node.Input(inputs.size(), value.shape(), value.dtype());
        inputs.add(input);
        captures.add(value);
        return input;
    }

    private static int indexOf(List<Tensor> tensors, Tensor tensor) {
        for (int i = 0; i < tensors.size(); i++)
            if (tensors.get(i) == tensor) return i;
        return -1;
    }
}
