// SPDX-License-Identifier: Apache-2.0
package dev.smelt.spark;

import dev.smelt.Jit;
import dev.smelt.Tensor;
import dev.smelt.Traced;
import dev.smelt.autograd.Autograd;
import dev.smelt.autograd.Nodes;
import dev.smelt.ir.DType;
import dev.smelt.ir.Graph;
import dev.smelt.ir.Node;
import dev.smelt.ir.SmeltException;
import dev.smelt.nn.Module;
import dev.smelt.nn.Parameter;
import java.io.Serializable;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.broadcast.Broadcast;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Encoders;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.NumericType;
import scala.Tuple2;
import scala.jdk.javaapi.CollectionConverters;

/// Synchronous data-parallel training on Spark: `workers` replicas of `model`, one per task of a
/// barrier stage, each computing the gradients of its slice of every global batch; the gradients
/// are summed by a ring all-reduce between the tasks and averaged, and every replica applies the
/// same update ([Replica]). The driver gets the trained parameters.
///
/// Global batch `t` is rows `t·G … t·G+G-1` of the DataFrame in its order (`G` = [#batchSize]);
/// replica `w` takes rows `w·G/W …` of each. Only whole global batches are used; each epoch visits
/// them in an order drawn from the seed. As the loss is a mean over the batch, the average of the
/// replicas' gradients is the gradient of the whole global batch: training equals one process
/// training on the same batches, up to the order in which the sums are taken.
///
/// Spark runs a barrier stage's tasks all at once and restarts them all when one fails (up to
/// `spark.stage.maxConsecutiveAttempts`, 4 by default); each attempt starts again from the
/// shipped weights, so a retried stage gives the same result.
/// Every exchange waits at most [#timeout], and [#deadline] bounds the whole job.
public final class DataParallel {
    private final Module model;
    private final Jit.Function2 loss;
    private final UpdateRule rule;
    private int workers = 2, batchSize = 64, epochs = 1;
    private long seed;
    private Duration timeout = Duration.ofSeconds(60), deadline = Duration.ofHours(1);
    private StepListener listener = (worker, step, value) -> {};

    /// Training of `model`'s parameters (all `f32`) to minimise `loss` of a batch of features
    /// (`f32[n, features]`) and labels (`i32[n]` from an integer column, else `f32[n]`), a mean
    /// over the batch, with the optimizer `rule`.
    public DataParallel(Module model, Jit.Function2 loss, UpdateRule rule) {
        if (model == null || loss == null || rule == null) throw SmeltException.of("DataParallel", "the model, the loss and the update rule must be non-null");
        if (model.parameters().isEmpty()) throw SmeltException.of("DataParallel", "the model has no parameters to train");
        for (var entry : model.namedParameters().entrySet())
            if (entry.getValue().value().dtype() != DType.F32)
                throw SmeltException.of("DataParallel", "parameter %s is %s; data-parallel training exchanges f32 gradients", entry.getKey(), entry.getValue().value().dtype());
        this.model = model;
        this.loss = loss;
        this.rule = rule;
    }

    /// Replicas, one barrier task each: the cluster needs this many free task slots at once. Default 2.
    public DataParallel workers(int count) {
        if (count < 1) throw SmeltException.of("DataParallel", "needs at least one worker, not %d", count);
        workers = count;
        return this;
    }

    /// Rows per global batch, split evenly over the workers. Default 64.
    public DataParallel batchSize(int rows) {
        if (rows < 1) throw SmeltException.of("DataParallel", "the batch size must be at least 1, not %d", rows);
        batchSize = rows;
        return this;
    }

    /// Passes over the data. Default 1.
    public DataParallel epochs(int count) {
        if (count < 1) throw SmeltException.of("DataParallel", "needs at least one epoch, not %d", count);
        epochs = count;
        return this;
    }

    /// The seed of each epoch's batch order. Default 0.
    public DataParallel seed(long value) { seed = value; return this; }

    /// The longest any replica waits for another (connecting, or one exchange). Default 60 s.
    public DataParallel timeout(Duration value) {
        if (value == null || value.isNegative() || value.isZero()) throw SmeltException.of("DataParallel", "the timeout must be positive, not %s", value);
        timeout = value;
        return this;
    }

    /// The longest [#fit] runs, retries included, before its job is cancelled. Default 1 hour.
    public DataParallel deadline(Duration value) {
        if (value == null || value.isNegative() || value.isZero()) throw SmeltException.of("DataParallel", "the deadline must be positive, not %s", value);
        deadline = value;
        return this;
    }

    /// Called on the executors after every step ([StepListener]).
    public DataParallel listener(StepListener value) {
        if (value == null) throw SmeltException.of("DataParallel", "the listener is null");
        listener = value;
        return this;
    }

    /// The trained parameters by name (as [Module#stateDict] names them), the loss of each step
    /// averaged over the replicas, and replica 0's median step time and the all-reduce's share of it.
    public record Result(Map<String, Tensor> state, double[] losses, double medianStepMillis, double allReduceShare) {}

    /// Trains on `data`'s `features` (`array<float>`, `array<double>` or a vector) and `label`
    /// (numeric) columns.
    public Result fit(Dataset<Row> data, String features, String label) {
        if (data == null) throw SmeltException.of("DataParallel.fit", "the data is null");
        Rows.requireFeatures("DataParallel.fit", data.schema(), features);
        DataType labelType = label == null || !List.of(data.schema().fieldNames()).contains(label) ? null : data.schema().apply(label).dataType();
        if (!(labelType instanceof NumericType))
            throw SmeltException.of("DataParallel.fit", "the label column '%s' must be numeric; the columns are %s", label, data.schema().simpleString());
        if (batchSize % workers != 0) throw SmeltException.of("DataParallel.fit", "the batch size %d does not split evenly over %d workers", batchSize, workers);
        boolean integerLabels = labelType.equals(DataTypes.IntegerType) || labelType.equals(DataTypes.LongType)
                || labelType.equals(DataTypes.ShortType) || labelType.equals(DataTypes.ByteType);
        Dataset<Tuple2<float[], Double>> columns = data.select(Rows.asFloatArray("DataParallel.fit", data.schema(), features), Rows.asDouble("DataParallel.fit", label))
                .as(Encoders.tuple(data.sparkSession().implicits().newFloatArrayEncoder(), Encoders.DOUBLE()));
        long rows = columns.count();
        long batches = rows / batchSize;
        if (batches < 1) throw SmeltException.of("DataParallel.fit", "the data has %d rows, fewer than one batch of %d", rows, batchSize);
        int width = columns.first()._1().length;
        int local = batchSize / workers;
        var names = List.copyOf(model.namedParameters().keySet());
        ShippedFunction program = gradientProgram(local, width, integerLabels);
        var settings = new Replica.Settings(local, width, integerLabels, names, epochs, seed, timeout, listener);
        return run(columns, program, settings, batches * batchSize);
    }

    // The loss and its gradients with respect to every parameter, for one replica's batch.
    ShippedFunction gradientProgram(int local, int width, boolean integerLabels) {
        Tensor labels = integerLabels ? Tensor.zeros(DType.I32, local) : Tensor.zeros(local);
        Traced traced = Jit.trace(args -> List.of(loss.apply(args.get(0), args.get(1))), List.of(Tensor.zeros(local, width), labels));
        Graph graph = traced.graph();
        var captured = new IdentityHashMap<Tensor, Integer>();
        for (int i = 0; i < traced.captures().size(); i++) captured.putIfAbsent(traced.captures().get(i), i);
        var wrt = new ArrayList<Node.Input>();
        var named = model.namedParameters();
        var values = new java.util.LinkedHashMap<String, Tensor>();
        for (Map.Entry<String, Parameter> entry : named.entrySet()) {
            Integer capture = captured.get(entry.getValue().value());
            if (capture == null) throw SmeltException.of("DataParallel", "the loss does not read parameter %s; train only the parameters it reads", entry.getKey());
            wrt.add(graph.inputs().get(traced.arguments() + capture));
            values.put(entry.getKey(), entry.getValue().value());
        }
        var outputs = new ArrayList<Node>();
        outputs.add(Autograd.loss(graph));
        outputs.addAll(Autograd.gradients(graph, wrt, new Nodes(graph)));
        return ShippedFunction.fixed(traced.withGraph(new Graph(graph.inputs(), outputs)), values);
    }

    // Each row to its replica (by its place in its global batch), then one barrier task per replica.
    private Result run(Dataset<Tuple2<float[], Double>> columns, ShippedFunction program, Replica.Settings settings, long used) {
        var spark = JavaSparkContext.fromSparkContext(columns.sparkSession().sparkContext());
        Broadcast<ShippedFunction> shipped = spark.broadcast(program);
        try {
            int count = workers, global = batchSize, local = settings.localBatch();
            UpdateRule update = rule;
            var examples = columns.javaRDD().zipWithIndex()
                    .filter(pair -> pair._2() < used)
                    .mapToPair(pair -> new Tuple2<>((int) (pair._2() % global / local), new Example(pair._2(), pair._1()._1(), pair._1()._2())))
                    .partitionBy(new org.apache.spark.HashPartitioner(count))
                    .values();
            scala.Function1<scala.collection.Iterator<Example>, scala.collection.Iterator<Replica.Outcome>> train = (scala.Function1<scala.collection.Iterator<Example>, scala.collection.Iterator<Replica.Outcome>> & Serializable)
                    partition -> CollectionConverters.asScala(Replica.train(shipped.value(), update, settings, CollectionConverters.asJava(partition)));
            var stage = examples.rdd().barrier().mapPartitions(train, false, scala.reflect.ClassTag$.MODULE$.apply(Replica.Outcome.class));
            var outcomes = new ArrayList<>(collectWithin(spark, stage));
            outcomes.sort(Comparator.comparingInt(Replica.Outcome::worker));
            return result(outcomes);
        } finally {
            shipped.destroy();
        }
    }

    // The stage's outcomes, or the job cancelled at the deadline.
    private List<Replica.Outcome> collectWithin(JavaSparkContext spark, org.apache.spark.rdd.RDD<Replica.Outcome> stage) {
        String group = "smelt-data-parallel-" + UUID.randomUUID();
        spark.setJobGroup(group, "Smelt data-parallel training", true);
        var canceller = Executors.newSingleThreadScheduledExecutor(Thread.ofPlatform().daemon().name("smelt-deadline").factory());
        var cancel = canceller.schedule(() -> spark.cancelJobGroup(group), deadline.toMillis(), TimeUnit.MILLISECONDS);
        try {
            // Through a shuffle: Spark restarts a failed barrier stage only when it is a shuffle map
            // stage; a failed barrier result stage aborts the job.
            return stage.toJavaRDD().repartition(1).collect();
        } catch (Exception e) { // Scala throws SparkException, a checked exception, undeclared
            if (e instanceof SmeltException smelt) throw smelt;
            String reason = cancel.isDone() ? "it did not finish within the deadline of " + deadline : "Spark gave up after its retries";
            var error = SmeltException.of("DataParallel.fit", "training failed: %s. Cause: %s", reason, rootMessage(e));
            error.initCause(e);
            throw error;
        } finally {
            cancel.cancel(false);
            canceller.shutdownNow();
            spark.clearJobGroup();
        }
    }

    private static Result result(List<Replica.Outcome> outcomes) {
        var state = Replica.agreedState(outcomes);
        Replica.Outcome first = outcomes.getFirst();
        long[] steps = first.stepNanos().clone();
        java.util.Arrays.sort(steps);
        long reduce = java.util.Arrays.stream(first.reduceNanos()).sum(), all = java.util.Arrays.stream(first.stepNanos()).sum();
        return new Result(state, first.losses(), steps[steps.length / 2] / 1e6, all == 0 ? 0 : (double) reduce / all);
    }

    private static String rootMessage(Throwable e) {
        Throwable root = e;
        while (root.getCause() != null && root.getCause() != root) root = root.getCause();
        return e == root ? String.valueOf(e.getMessage()) : e.getMessage() + " (root: " + root + ")";
    }
}
