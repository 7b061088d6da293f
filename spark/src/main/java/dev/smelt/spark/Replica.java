// SPDX-License-Identifier: Apache-2.0
package dev.smelt.spark;

import dev.smelt.Compiled;
import dev.smelt.Jit;
import dev.smelt.SafeTensors;
import dev.smelt.Tensor;
import dev.smelt.ir.SmeltException;
import dev.smelt.nn.Parameter;
import dev.smelt.optim.TrainStep;
import java.io.IOException;
import java.io.Serializable;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.function.BooleanSupplier;
import java.util.stream.IntStream;
import org.apache.spark.BarrierTaskContext;

/// One task of [DataParallel] training: a replica of the model in an executor. Every replica
/// starts from the same shipped weights, computes the gradients of its slice of each global batch
/// with the shipped gradient program, sums them with the others over the [Ring], divides by the
/// number of replicas and applies the same optimizer to the same averaged gradient, so the
/// replicas stay identical step after step.
///
/// The optimizer is Smelt's own [TrainStep], compiled over a loss whose gradient with respect to
/// each parameter is the averaged gradient itself: `Σᵢ sum(pᵢ·gᵢ)`, with `gᵢ` an argument, has
/// `∂/∂pᵢ = gᵢ·1`, exactly. So the update is the very program single-process training runs.
final class Replica {
    private Replica() {}

    /// What every replica is told: the slice of each global batch it takes, the parameters' names
    /// in the gradient program's output order, and the loop's settings.
    record Settings(int localBatch, int features, boolean integerLabels, List<String> parameters, int epochs, long seed,
                    Duration timeout, StepListener listener) implements Serializable {}

    /// What a replica hands back: its trained parameters as safetensors bytes, the averaged loss of
    /// each step, and each step's time and the all-reduce's part of it.
    record Outcome(int worker, byte[] state, double[] losses, long[] stepNanos, long[] reduceNanos) implements Serializable {}

    /// Trains on this task's `examples` and returns its one outcome.
    static Iterator<Outcome> train(ShippedFunction program, UpdateRule rule, Settings settings, Iterator<Example> examples) {
        var context = BarrierTaskContext.get();
        int worker = context.partitionId(), workers = context.getTaskInfos().length;
        var rows = new ArrayList<Example>();
        examples.forEachRemaining(rows::add);
        rows.sort(Comparator.comparingLong(Example::index));
        try (var server = new ServerSocket(0, workers)) {
            String executor = context.getTaskInfos()[worker].address();
            String host = executor.contains(":") ? executor.substring(0, executor.lastIndexOf(':')) : executor;
            String[] addresses = context.allGather(host + ":" + server.getLocalPort());
            try (Ring ring = Ring.connect(worker, List.of(addresses), server, settings.timeout(), context::isInterrupted)) {
                return List.of(new Replica.Loop(program, rule, settings, worker, workers, rows).run(ring, context::isInterrupted)).iterator();
            }
        } catch (IOException e) {
            throw SmeltException.of("DataParallel", "replica %d could not open a socket for the all-reduce: %s", worker, e);
        }
    }

    /// The training loop of one replica, over its rows in global order.
    static final class Loop {
        private final Settings settings;
        private final int worker, workers, batches;
        private final List<Example> rows;
        private final List<Parameter> parameters = new ArrayList<>();
        private final Compiled gradients;
        private final TrainStep update;

        Loop(ShippedFunction program, UpdateRule rule, Settings settings, int worker, int workers, List<Example> rows) {
            this.settings = settings;
            this.worker = worker;
            this.workers = workers;
            this.rows = rows;
            if (rows.size() % settings.localBatch() != 0)
                throw SmeltException.of("DataParallel", "replica %d holds %d rows, not whole batches of %d", worker, rows.size(), settings.localBatch());
            this.batches = rows.size() / settings.localBatch();
            var weights = new LinkedHashMap<>(program.weights());
            for (String name : settings.parameters()) {
                var parameter = new Parameter(name, weights.get(name));
                parameters.add(parameter);
                weights.put(name, parameter.value()); // the gradient program reads the replica's live parameters
            }
            this.gradients = Jit.compile(program.traced(settings.localBatch(), weights));
            this.update = rule.over(parameters).compile(g -> {
                Tensor total = parameters.getFirst().value().mul(g.getFirst()).sum();
                for (int i = 1; i < parameters.size(); i++) total = total.add(parameters.get(i).value().mul(g.get(i)).sum());
                return List.of(total);
            }, parameters.size());
        }

        /// Trains, stopping with an error as soon as `cancelled` says Spark killed the task.
        Outcome run(Ring ring, BooleanSupplier cancelled) {
            int steps = batches * settings.epochs(), step = 0;
            var losses = new double[steps];
            long[] stepNanos = new long[steps], reduceNanos = new long[steps];
            int total = parameters.stream().mapToInt(p -> p.value().shape().size()).sum();
            var buffer = new float[total + 1]; // the gradients, then the loss
            var order = IntStream.range(0, batches).boxed().toList();
            for (int epoch = 0; epoch < settings.epochs(); epoch++) {
                var shuffled = new ArrayList<>(order); // the same order on every replica: the same seed
                Collections.shuffle(shuffled, new Random(settings.seed() * 1_000_003 + epoch));
                for (int batch : shuffled) {
                    if (cancelled.getAsBoolean()) throw SmeltException.of("DataParallel", "replica %d was cancelled at step %d", worker, step + 1);
                    long start = System.nanoTime();
                    var results = gradients.applyAll(batch(batch));
                    int at = 0;
                    for (int i = 0; i < parameters.size(); i++) {
                        float[] g = results.get(i + 1).toFloatArray();
                        System.arraycopy(g, 0, buffer, at, g.length);
                        at += g.length;
                    }
                    buffer[total] = (float) results.getFirst().item();
                    long reduce = System.nanoTime();
                    ring.sum(buffer);
                    reduceNanos[step] = System.nanoTime() - reduce;
                    for (int i = 0; i <= total; i++) buffer[i] /= workers;
                    update.apply(averaged(buffer));
                    losses[step] = buffer[total];
                    stepNanos[step] = System.nanoTime() - start;
                    settings.listener().afterStep(worker, ++step, losses[step - 1]);
                }
            }
            var state = new LinkedHashMap<String, Tensor>();
            for (Parameter p : parameters) state.put(p.name(), p.value());
            return new Outcome(worker, SafeTensors.bytes(state), losses, stepNanos, reduceNanos);
        }

        // The features and labels of this replica's slice of global batch `batch`.
        private Tensor[] batch(int batch) {
            int n = settings.localBatch(), f = settings.features();
            var x = new float[n * f];
            var labels = new double[n];
            for (int i = 0; i < n; i++) {
                Example example = rows.get(batch * n + i);
                if (example.features().length != f)
                    throw SmeltException.of("DataParallel", "row %d has %d features, expected %d", example.index(), example.features().length, f);
                System.arraycopy(example.features(), 0, x, i * f, f);
                labels[i] = example.label();
            }
            Tensor y = settings.integerLabels() ? Tensor.of(IntStream.range(0, n).map(i -> (int) labels[i]).toArray(), n) : Tensor.of(toFloats(labels), n);
            return new Tensor[] {Tensor.of(x, n, f), y};
        }

        private Tensor[] averaged(float[] buffer) {
            var tensors = new Tensor[parameters.size()];
            int at = 0;
            for (int i = 0; i < tensors.length; i++) {
                int[] shape = parameters.get(i).value().shape().toArray();
                int size = parameters.get(i).value().shape().size();
                tensors[i] = Tensor.of(java.util.Arrays.copyOfRange(buffer, at, at + size), shape);
                at += size;
            }
            return tensors;
        }

        private static float[] toFloats(double[] values) {
            var floats = new float[values.length];
            for (int i = 0; i < values.length; i++) floats[i] = (float) values[i];
            return floats;
        }
    }

    /// Every replica's state must be the same bytes; the first one's tensors by name.
    static Map<String, Tensor> agreedState(List<Outcome> outcomes) {
        byte[] first = outcomes.getFirst().state();
        for (Outcome outcome : outcomes)
            if (!java.util.Arrays.equals(first, outcome.state()))
                throw SmeltException.of("DataParallel", "replica %d ended with other parameters than replica %d; the replicas diverged", outcome.worker(), outcomes.getFirst().worker());
        return SafeTensors.fromBytes(first);
    }
}
