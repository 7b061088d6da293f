// SPDX-License-Identifier: Apache-2.0
package dev.smelt.spark;

import dev.smelt.Generator;
import dev.smelt.data.Csv;
import dev.smelt.data.Dataset;
import dev.smelt.nn.Activations;
import dev.smelt.nn.Linear;
import dev.smelt.nn.Sequential;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;

/// The digits MLP of `examples/Digits` trained on Spark: the UCI digits as a DataFrame, two
/// data-parallel replicas in two executor JVMs (`local-cluster[2,1,1024]`, or the master given as
/// second argument), Adam, then the held-out fifth scored by a [SmeltTransformer] built from the
/// trained weights. Run from the repository root (README, "Smelt on Apache Spark"):
/// `mvn -q -pl spark -am test-compile exec:exec -Dexample=DigitsOnSpark`.
public final class DigitsOnSpark {
    private DigitsOnSpark() {}

    public static void main(String[] args) throws java.io.IOException {
        Path data = Path.of(args.length > 0 ? args[0] : "../examples/data/digits.csv.gz");
        String master = args.length > 1 ? args[1] : "local-cluster[2,1,1024]";
        Dataset digits = Csv.read(data, -1, false);
        Dataset.Split split = new Dataset(digits.features().div(16), digits.labels()).trainTestSplit(0.2, new Generator(0));
        try (SparkSession spark = master.startsWith("local-cluster") ? SparkClusters.cluster(2) : SparkClusters.local(2)) {
            var train = frame(spark, split.train());
            var test = frame(spark, split.test());

            Sequential model = mlp(new Generator(0));
            var result = new DataParallel(model, (x, labels) -> model.forward(x).crossEntropy(labels), new UpdateRule.Adam(1e-3))
                    .workers(2).batchSize(64).epochs(30).seed(1).fit(train, "features", "label");
            double[] losses = result.losses();
            System.out.printf("trained on %s with 2 replicas: %d steps, loss %.4f → %.4f, median step %.2f ms, all-reduce %.0f%% of it%n",
                    master, losses.length, losses[0], losses[losses.length - 1], result.medianStepMillis(), 100 * result.allReduceShare());

            Sequential trained = mlp(new Generator(1));
            trained.loadStateDict(result.state());
            var stage = new SmeltTransformer(ShippedFunction.batched(trained::forward, 64)).setInputCol("features").setOutputCol("logits").setBatchSize(128);
            List<Row> scored = stage.transform(test).select("label", "logits").collectAsList();
            long right = scored.stream().filter(row -> argmax(Rows.floats(row.get(1))) == row.getInt(0)).count();
            System.out.printf("scored %d test rows on the executors: accuracy %.1f%%%n", scored.size(), 100.0 * right / scored.size());
        }
    }

    static Sequential mlp(Generator generator) {
        return new Sequential(new Linear(64, 128, generator), new Activations.ReLU(), new Linear(128, 10, generator));
    }

    // The rows of `data` as (features array<float>, label int), in order.
    private static org.apache.spark.sql.Dataset<Row> frame(SparkSession spark, Dataset data) {
        float[] features = data.features().toFloatArray();
        int[] labels = data.labels().toIntArray();
        int width = data.features().dim(1);
        var rows = new ArrayList<Row>();
        for (int i = 0; i < labels.length; i++) rows.add(RowFactory.create(java.util.Arrays.copyOfRange(features, i * width, (i + 1) * width), labels[i]));
        var schema = new StructType().add("features", DataTypes.createArrayType(DataTypes.FloatType)).add("label", DataTypes.IntegerType);
        return spark.createDataFrame(rows, schema);
    }

    private static int argmax(float[] values) {
        int best = 0;
        for (int i = 1; i < values.length; i++) if (values[i] > values[best]) best = i;
        return best;
    }
}
