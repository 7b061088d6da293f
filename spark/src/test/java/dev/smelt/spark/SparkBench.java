// SPDX-License-Identifier: Apache-2.0
package dev.smelt.spark;

import dev.smelt.Generator;
import dev.smelt.Tensor;
import dev.smelt.nn.Activations;
import dev.smelt.nn.Linear;
import dev.smelt.nn.Sequential;
import dev.smelt.optim.SGD;
import dev.smelt.optim.TrainStep;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.function.LongSupplier;
import org.apache.spark.api.java.function.MapFunction;
import org.apache.spark.api.java.function.MapPartitionsFunction;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Encoders;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;

/// The Spark benchmarks of issue 22, a harness rather than JMH: each measurement is a whole Spark
/// job in its own cluster, timed by the wall clock, repeated, the median reported (the first run
/// of each, which compiles in the executors, is a warm-up). Run with
/// `mvn -q -pl spark -am test-compile exec:exec -Dspark.example=SparkBench -Dspark.args="inference 1000000"`
/// (or `plain 1000000`, this JVM's measurement alone, or `training 8192`).
///
/// - inference: an MLP 784-512-10 over `rows` generated rows of 784 floats (a pseudo-random
///   function of the row id, made in the executors), batches of 256, on `local-cluster` with 1 and
///   with 2 executors of one core each, and in this JVM without Spark through the same
///   [Inference#predict] on the same rows; plus the Spark job that only makes the rows.
/// - training: the same MLP, synthetic labels, global batch 256, SGD, with 1 and 2 replicas, and
///   one process with Smelt's [TrainStep] on the same batches.
public final class SparkBench {
    static final int FEATURES = 784, HIDDEN = 512, CLASSES = 10, BATCH = 256, REPEATS = 2;

    private SparkBench() {}

    public static void main(String[] args) throws IOException {
        System.out.printf("smelt.threads in this JVM: %s%n", System.getProperty("smelt.threads", "one per core"));
        String what = args.length > 0 ? args[0] : "inference";
        int rows = args.length > 1 ? Integer.parseInt(args[1]) : 1_000_000;
        switch (what) {
            case "inference" -> inference(rows, true);
            case "plain" -> inference(rows, false);
            default -> training(rows);
        }
    }

    static Sequential mlp() {
        return new Sequential(new Linear(FEATURES, HIDDEN, new Generator(1)), new Activations.ReLU(), new Linear(HIDDEN, CLASSES, new Generator(2)));
    }

    /// Row `id`'s features: xorshift from the id, in [-1, 1).
    static float[] row(long id) {
        var row = new float[FEATURES];
        long x = id * 0x9E3779B97F4A7C15L + 1;
        for (int i = 0; i < FEATURES; i++) {
            x ^= x << 13;
            x ^= x >>> 7;
            x ^= x << 17;
            row[i] = (x >>> 40) / (float) (1L << 23) - 1;
        }
        return row;
    }

    static void inference(int rows, boolean withSpark) throws IOException {
        var shipped = ShippedFunction.batched(mlp()::forward, FEATURES);
        System.out.printf("inference: MLP %d-%d-%d, %,d rows, batches of %d, %d runs each, median%n", FEATURES, HIDDEN, CLASSES, rows, BATCH, REPEATS);
        report("plain JVM, Inference.predict", rows, median(() -> {
            var ids = new Iterator<float[]>() {
                long next;
                public boolean hasNext() { return next < rows; }
                public float[] next() { return row(next++); }
            };
            long count = 0;
            for (var out = Inference.predict(shipped, ids, BATCH); out.hasNext(); out.next()) count++;
            return count;
        }));
        for (int executors = 1; withSpark && executors <= 2; executors++) {
            // One Spark core per executor, so one Smelt thread: kernels split over all cores otherwise.
            try (SparkSession spark = SparkClusters.cluster(executors, "-Dsmelt.threads=1")) {
                var generated = generate(spark, rows, 8);
                report("Spark, " + executors + " executor(s), rows only", rows, median(generated::count));
                var stage = new SmeltTransformer(shipped).setBatchSize(BATCH);
                report("Spark, " + executors + " executor(s), SmeltTransformer", rows, median(() -> stage.transform(generated).count()));
            }
        }
    }

    // The rows as a column `features`, made in the executors (as float[], which Spark's encoder copies whole).
    static Dataset<Row> generate(SparkSession spark, long rows, int partitions) {
        MapFunction<Long, float[]> make = SparkBench::row;
        return spark.range(0, rows, 1, partitions).map(make, spark.implicits().newFloatArrayEncoder()).toDF("features");
    }

    static void training(int rows) throws IOException {
        System.out.printf("training: MLP %d-%d-%d, %,d rows, global batch %d, SGD%n", FEATURES, HIDDEN, CLASSES, rows, BATCH);
        var labels = new int[rows];
        for (int i = 0; i < rows; i++) labels[i] = Math.floorMod(Arrays.hashCode(row(i)), CLASSES);
        var model = mlp();
        TrainStep step = new SGD(model.parameters(), 0.01).compile((x, y) -> model.forward(x).crossEntropy(y));
        var times = new ArrayList<Long>();
        for (int b = 0; b + BATCH <= rows; b += BATCH) {
            var x = new float[BATCH * FEATURES];
            for (int i = 0; i < BATCH; i++) System.arraycopy(row(b + i), 0, x, i * FEATURES, FEATURES);
            var y = Tensor.of(Arrays.copyOfRange(labels, b, b + BATCH), BATCH);
            var features = Tensor.of(x, BATCH, FEATURES);
            long start = System.nanoTime();
            step.apply(features, y);
            times.add(System.nanoTime() - start);
        }
        times.sort(null);
        System.out.printf("  one process, TrainStep: median step %.2f ms%n", times.get(times.size() / 2) / 1e6);
        var alone = mlp();
        var parallel = new DataParallel(alone, (x, y) -> alone.forward(x).crossEntropy(y), new UpdateRule.Sgd(0.01, 0));
        var examples = new ArrayList<Example>();
        for (int i = 0; i < rows / BATCH * BATCH; i++) examples.add(new Example(i, row(i), labels[i]));
        var settings = new Replica.Settings(BATCH, FEATURES, true, List.copyOf(alone.namedParameters().keySet()), 1, 0, java.time.Duration.ofMinutes(1), (w, s, l) -> {});
        for (int run = 0; run < 2; run++) {
            var loop = new Replica.Loop(parallel.gradientProgram(BATCH, FEATURES, true), new UpdateRule.Sgd(0.01, 0), settings, 0, 1, examples);
            try (var ring = Ring.connect(0, List.of("alone:0"), null, java.time.Duration.ofMinutes(1), () -> false)) {
                long[] steps = loop.run(ring, () -> false).stepNanos().clone();
                Arrays.sort(steps);
                System.out.printf("  one process, a replica's loop without Spark%s: median step %.2f ms%n", run == 0 ? " (warm-up)" : "", steps[steps.length / 2] / 1e6);
            }
        }
        try (SparkSession spark = SparkClusters.cluster(2, "-Dsmelt.threads=1")) {
            var schema = new StructType().add("features", DataTypes.createArrayType(DataTypes.FloatType, false), false).add("label", DataTypes.IntegerType, false);
            MapPartitionsFunction<Long, Row> make = ids -> new Iterator<>() {
                public boolean hasNext() { return ids.hasNext(); }
                public Row next() {
                    long id = ids.next();
                    return RowFactory.create(row(id), labels[(int) id]);
                }
            };
            var data = spark.range(0, rows, 1, 2).mapPartitions(make, Encoders.row(schema)).cache();
            data.count();
            for (int workers = 1; workers <= 2; workers++)
                for (int run = 0; run < 2; run++) {
                    var replica = mlp();
                    var result = new DataParallel(replica, (x, y) -> replica.forward(x).crossEntropy(y), new UpdateRule.Sgd(0.01, 0))
                            .workers(workers).batchSize(BATCH).fit(data, "features", "label");
                    System.out.printf("  %d replica(s)%s: %d steps, median step %.2f ms, all-reduce %.0f%% of the step time%n", workers, run == 0 ? " (warm-up)" : "",
                            result.losses().length, result.medianStepMillis(), 100 * result.allReduceShare());
                }
        }
    }

    private static List<Long> median(LongSupplier run) {
        var times = new ArrayList<Long>();
        for (int i = 0; i <= REPEATS; i++) {
            long start = System.nanoTime();
            run.getAsLong();
            if (i > 0) times.add(System.nanoTime() - start); // run 0 warms up
        }
        return times;
    }

    private static void report(String what, int rows, List<Long> times) {
        var sorted = new ArrayList<>(times);
        sorted.sort(null);
        long median = sorted.get(sorted.size() / 2);
        System.out.printf("  %-48s %8.0f rows/s  (median %.2f s of %s)%n", what, rows / (median / 1e9), median / 1e9,
                times.stream().map(t -> "%.2f".formatted(t / 1e9)).toList());
    }
}
