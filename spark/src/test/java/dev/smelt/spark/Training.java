// SPDX-License-Identifier: Apache-2.0
package dev.smelt.spark;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.smelt.Generator;
import dev.smelt.Tensor;
import dev.smelt.ir.SmeltException;
import dev.smelt.nn.Activations;
import dev.smelt.nn.Linear;
import dev.smelt.nn.Sequential;
import dev.smelt.optim.Optimizer;
import dev.smelt.optim.TrainStep;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Map;
import java.util.Random;
import java.util.stream.IntStream;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;

/// What the training tests share: a small classification problem as a DataFrame and the
/// single-process training it must agree with.
final class Training {
    static final int FEATURES = 11, CLASSES = 3;

    private Training() {}

    static Sequential model() {
        return new Sequential(new Linear(FEATURES, 16, new Generator(7)), new Activations.ReLU(), new Linear(16, CLASSES, new Generator(8)));
    }

    record Data(float[][] features, int[] labels) {
        Dataset<Row> frame(SparkSession spark, int partitions) {
            var schema = new StructType().add("features", DataTypes.createArrayType(DataTypes.FloatType)).add("label", DataTypes.IntegerType);
            var rows = new ArrayList<Row>();
            for (int i = 0; i < labels.length; i++) rows.add(RowFactory.create(features[i], labels[i]));
            return spark.createDataFrame(rows, schema).coalesce(partitions);
        }
    }

    static Data data(int rows, long seed) {
        var random = new Random(seed);
        var features = new float[rows][FEATURES];
        var labels = new int[rows];
        for (int i = 0; i < rows; i++) {
            labels[i] = random.nextInt(CLASSES);
            for (int f = 0; f < FEATURES; f++) features[i][f] = (float) (random.nextGaussian() + (f % CLASSES == labels[i] ? 1 : 0));
        }
        return new Data(features, labels);
    }

    /// One process, the same global batches in the same order as [Replica] visits them.
    static Map<String, Tensor> singleProcess(Data data, Sequential model, Optimizer optimizer, int batch, int epochs, long seed) {
        TrainStep step = optimizer.compile((x, y) -> model.forward(x).crossEntropy(y));
        int batches = data.labels().length / batch;
        for (int epoch = 0; epoch < epochs; epoch++) {
            var order = new ArrayList<>(IntStream.range(0, batches).boxed().toList());
            Collections.shuffle(order, new Random(seed * 1_000_003 + epoch));
            for (int b : order) {
                var x = new float[batch * FEATURES];
                var y = new int[batch];
                for (int i = 0; i < batch; i++) {
                    System.arraycopy(data.features()[b * batch + i], 0, x, i * FEATURES, FEATURES);
                    y[i] = data.labels()[b * batch + i];
                }
                step.apply(Tensor.of(x, batch, FEATURES), Tensor.of(y, batch));
            }
        }
        return model.stateDict();
    }

    /// The largest difference between two state dictionaries.
    static double maxDifference(Map<String, Tensor> a, Map<String, Tensor> b) {
        assertEquals(a.keySet(), b.keySet());
        double max = 0;
        for (String name : a.keySet()) {
            float[] x = a.get(name).toFloatArray(), y = b.get(name).toFloatArray();
            assertEquals(x.length, y.length, name);
            for (int i = 0; i < x.length; i++) max = Math.max(max, Math.abs(x[i] - y[i]));
        }
        return max;
    }

    static void assertRefused(Runnable run, String fragment) {
        var e = assertThrows(SmeltException.class, run::run);
        assertTrue(e.getMessage().contains(fragment), e.getMessage());
    }
}
