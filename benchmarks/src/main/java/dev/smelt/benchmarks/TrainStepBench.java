// SPDX-License-Identifier: Apache-2.0
package dev.smelt.benchmarks;

import dev.smelt.Compiled;
import dev.smelt.Generator;
import dev.smelt.Jit;
import dev.smelt.Tensor;
import dev.smelt.autograd.Autograd;
import dev.smelt.autograd.Nodes;
import dev.smelt.ir.Graph;
import dev.smelt.ir.Node;
import dev.smelt.nn.Activations;
import dev.smelt.nn.Linear;
import dev.smelt.nn.Parameter;
import dev.smelt.nn.Sequential;
import dev.smelt.optim.SGD;
import dev.smelt.optim.TrainStep;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/// One SGD training step of an MLP 784-512-10 (ReLU, cross-entropy) at batch 128, one thread.
/// `compiled`: the [TrainStep], forward, backward and update in one program. `unfused`: the same
/// loss gradients with every node its own kernel ([OpByOp]), then the update as eager ops.
/// `forward`: the compiled forward alone (informational). `compile`: compiling a fresh step.
///
/// After the check in `@Setup` the learning rate is 0 for both: a runtime scalar, so the same
/// program runs, but thousands of timed steps on one batch no longer train the model into
/// subnormal values, which would time the FPU's slow path instead of the step.
/// Targets: compiled ≤ 2.5 ms (PyTorch 1.13 here: 2.8 ms for the step, 1.1 ms for the forward) and
/// faster than unfused.
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"--add-modules", "jdk.incubator.vector", "-Dsmelt.threads=1"})
public class TrainStepBench {
    static final double LR = 0.01;
    double learningRate = LR;
    SGD sgd;

    /// `-p batch=16 -p hidden=32` runs it small.
    @Param("128")
    public int batch;

    @Param("512")
    public int hidden;

    Tensor x, labels;
    Sequential model;
    TrainStep step;
    Compiled forward;
    OpByOp gradients;
    List<Tensor> unfusedParameters;

    Tensor loss(Sequential model, Tensor x, Tensor labels) { return model.forward(x).crossEntropy(labels); }

    @Setup
    public void stepsAgree() {
        var generator = new Generator(5);
        x = Tensor.randn(generator, batch, 784);
        int[] classes = new int[batch];
        for (int i = 0; i < batch; i++) classes[i] = (i * 7) % 10;
        labels = Tensor.of(classes);
        model = new Sequential(new Linear(784, hidden, generator), new Activations.ReLU(), new Linear(hidden, 10, generator));
        unfusedParameters = model.parameters().stream().map(p -> p.value().mul(1)).toList();
        sgd = new SGD(model.parameters(), LR);
        step = sgd.compile((a, b) -> loss(model, a, b));
        forward = Jit.compile((Tensor a) -> model.forward(a));
        gradients = new OpByOp(lossGradients());
        double fused = step.apply(x, labels);
        List<Tensor> updated = unfused();
        var compiledValues = model.parameters().stream().map(Parameter::value).toList();
        for (int p = 0; p < updated.size(); p++)
            Tolerance.ROW_REDUCTION.check("parameter " + p + " after one step: compiled vs unfused", updated.get(p).toFloatArray(), compiledValues.get(p).toFloatArray());
        if (!(fused > 0)) throw new AssertionError("loss " + fused);
        sgd.learningRate(0);
        learningRate = 0;
    }

    /// The loss's gradients with respect to the parameters, as the graph the unfused run executes:
    /// arguments (x, labels, w1, b1, w2, b2).
    Graph lossGradients() {
        var arguments = new ArrayList<>(List.of(x, labels));
        arguments.addAll(unfusedParameters);
        var traced = Jit.trace(args -> {
            var layers = new Sequential(new FixedLinear(args.get(2), args.get(3)), new Activations.ReLU(), new FixedLinear(args.get(4), args.get(5)));
            return List.of(layers.forward(args.get(0)).crossEntropy(args.get(1)));
        }, arguments);
        Graph graph = traced.graph();
        var nodes = new Nodes(graph);
        List<Node> grads = Autograd.gradients(graph, graph.inputs().subList(2, 6), nodes);
        var outputs = new ArrayList<Node>(List.of(Autograd.loss(graph)));
        outputs.addAll(grads);
        return new Graph(graph.inputs(), outputs);
    }

    /// A linear layer over given tensors (traced arguments here, not parameters).
    record FixedLinear(Tensor weight, Tensor bias) implements dev.smelt.nn.Module {
        public Tensor forward(Tensor input) { return input.matmul(weight.t()).add(bias); }
    }

    @Benchmark
    public double compiled() {
        return step.apply(x, labels);
    }

    /// Gradients op by op, then `p - lr·g` as eager ops (the parameters are replaced, not updated).
    @Benchmark
    public List<Tensor> unfused() {
        var arguments = new ArrayList<>(List.of(x, labels));
        arguments.addAll(unfusedParameters);
        List<Tensor> results = gradients.run(arguments);
        var updated = new ArrayList<Tensor>();
        for (int p = 0; p < unfusedParameters.size(); p++) updated.add(unfusedParameters.get(p).sub(results.get(p + 1).mul(learningRate)));
        unfusedParameters = updated;
        return updated;
    }

    @Benchmark
    public Tensor forward() {
        return forward.apply(x);
    }

    /// A new step (new model, so a new trace) compiled, without running it: trace, backward
    /// transform, fusion and code generation. The first iteration is the fork's first compile;
    /// later ones find equal kernels in the kernel cache, as a long-running program does.
    @Benchmark
    @BenchmarkMode(Mode.SingleShotTime)
    @Warmup(iterations = 0)
    @Measurement(iterations = 5)
    public String compile() {
        var fresh = new Sequential(new Linear(784, hidden, new Generator(9)), new Activations.ReLU(), new Linear(hidden, 10, new Generator(10)));
        return new SGD(fresh.parameters(), LR).compile((a, b) -> loss(fresh, a, b)).explain(x, labels);
    }
}
