// SPDX-License-Identifier: Apache-2.0
package dev.smelt.spark;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.smelt.Generator;
import dev.smelt.Tensor;
import dev.smelt.ir.SmeltException;
import dev.smelt.nn.Activations;
import dev.smelt.nn.Linear;
import dev.smelt.nn.Sequential;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.apache.spark.api.java.function.MapPartitionsFunction;
import org.apache.spark.ml.linalg.VectorUDT;
import org.apache.spark.ml.linalg.Vectors;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Encoders;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/// Batch inference on Spark `local[2]`: the transformer, the partition helper and the SQL function
/// give each row what the model gives it eagerly, for odd batch sizes, partitions of one row and
/// every supported column type; bad columns and unbatchable functions are refused on the driver.
class InferenceTest {
    static SparkSession spark;
    static final int FEATURES = 13;
    static final Sequential MODEL = new Sequential(new Linear(FEATURES, 17, new Generator(3)), new Activations.ReLU(), new Linear(17, 5, new Generator(4)));

    @BeforeAll
    static void start() { spark = SparkClusters.local(2); }

    @AfterAll
    static void stop() { spark.stop(); }

    static List<float[]> rows(int count, long seed) {
        var random = new Random(seed);
        var rows = new ArrayList<float[]>();
        for (int i = 0; i < count; i++) {
            var row = new float[FEATURES];
            for (int f = 0; f < FEATURES; f++) row[f] = (float) random.nextGaussian();
            rows.add(row);
        }
        return rows;
    }

    static float[] eager(float[] row) { return MODEL.forward(Tensor.of(row, 1, FEATURES)).toFloatArray(); }

    /// Rows of (index, features): the index says which eager result a scored row must equal.
    static List<Row> indexed(List<float[]> rows) {
        var data = new ArrayList<Row>();
        for (int i = 0; i < rows.size(); i++) data.add(RowFactory.create(i, rows.get(i)));
        return data;
    }

    @Test
    void theTransformerGivesEachRowTheEagerResultForAnyBatchSizeAndPartitioning() {
        var shipped = ShippedFunction.batched(MODEL::forward, FEATURES);
        var rows = rows(41, 1);
        var schema = new StructType().add("id", DataTypes.IntegerType).add("features", DataTypes.createArrayType(DataTypes.FloatType));
        var data = indexed(rows);
        for (int partitions : new int[] {1, 3, 41})
            for (int batch : new int[] {1, 4, 7, 64}) {
                Dataset<Row> frame = spark.createDataFrame(data, schema).repartition(partitions);
                var stage = new SmeltTransformer(shipped).setInputCol("features").setOutputCol("out").setBatchSize(batch);
                var scored = stage.transform(frame).collectAsList();
                assertEquals(rows.size(), scored.size());
                for (Row row : scored) {
                    float[] out = Rows.floats(row.getAs("out"));
                    assertArrayEquals(eager(rows.get(row.getInt(0))), out, 1e-5f, "row " + row.getInt(0) + ", batch " + batch + ", partitions " + partitions);
                }
            }
    }

    @Test
    void vectorAndDoubleColumnsAndTheSqlFunctionAgree() {
        var shipped = ShippedFunction.batched(MODEL::forward, FEATURES);
        var rows = rows(9, 2);
        var schema = new StructType().add("id", DataTypes.IntegerType).add("v", new VectorUDT()).add("d", DataTypes.createArrayType(DataTypes.DoubleType));
        var data = new ArrayList<Row>();
        for (int i = 0; i < rows.size(); i++) {
            var doubles = new double[FEATURES];
            for (int f = 0; f < FEATURES; f++) doubles[f] = rows.get(i)[f];
            data.add(RowFactory.create(i, Vectors.dense(doubles), doubles));
        }
        Dataset<Row> frame = spark.createDataFrame(data, schema);
        var byVector = new SmeltTransformer(shipped).setInputCol("v").setOutputCol("a").setBatchSize(4).transform(frame);
        var both = new SmeltTransformer(shipped).setInputCol("d").setOutputCol("b").setBatchSize(3).transform(byVector);
        Inference.register(spark, "smelt_model", shipped);
        both.createOrReplaceTempView("scored");
        for (Row row : spark.sql("SELECT id, a, b, smelt_model(d) AS c FROM scored").collectAsList()) {
            float[] expected = eager(rows.get(row.getInt(0)));
            for (String column : List.of("a", "b", "c")) assertArrayEquals(expected, Rows.floats(row.getAs(column)), 1e-5f, column);
        }
    }

    @Test
    void thePartitionHelperBatchesLazily() {
        var shipped = ShippedFunction.batched(MODEL::forward, FEATURES);
        var rows = rows(10, 3);
        var results = new ArrayList<float[]>();
        Inference.predict(shipped, rows.iterator(), 4).forEachRemaining(results::add);
        assertEquals(10, results.size());
        for (int i = 0; i < rows.size(); i++) assertArrayEquals(eager(rows.get(i)), results.get(i), 1e-5f);
        assertTrue(!Inference.predict(shipped, List.<float[]>of().iterator(), 4).hasNext());
    }

    /// The Row helper in a `mapPartitions` of the user's own, and the transformer on a frame whose
    /// only column is the features.
    @Test
    void theRowHelperAndAFrameOfFeaturesAlone() {
        var shipped = ShippedFunction.batched(MODEL::forward, FEATURES);
        var rows = rows(23, 4);
        var schema = new StructType().add("features", DataTypes.createArrayType(DataTypes.FloatType));
        var data = new ArrayList<Row>();
        for (float[] row : rows) data.add(RowFactory.create((Object) row));
        Dataset<Row> frame = spark.createDataFrame(data, schema).coalesce(1);
        var withOut = schema.add("out", DataTypes.createArrayType(DataTypes.FloatType));
        var helper = frame.mapPartitions((MapPartitionsFunction<Row, Row>) it -> Inference.predictRows(shipped, it, 0, 6), Encoders.row(withOut)).collectAsList();
        var stage = new SmeltTransformer(shipped).setBatchSize(6).transform(frame).collectAsList();
        for (int i = 0; i < rows.size(); i++) {
            assertArrayEquals(eager(rows.get(i)), Rows.floats(helper.get(i).get(1)), 1e-5f, "helper, row " + i);
            assertArrayEquals(rows.get(i), Rows.floats(stage.get(i).get(0)), "the features are kept");
            assertArrayEquals(eager(rows.get(i)), Rows.floats(stage.get(i).get(1)), 1e-5f, "transformer, row " + i);
        }
    }

    @Test
    void badStagesAreRefusedOnTheDriver() {
        var shipped = ShippedFunction.batched(MODEL::forward, FEATURES);
        var frame = spark.createDataFrame(List.of(RowFactory.create(1, "x")), new StructType().add("id", DataTypes.IntegerType).add("s", DataTypes.StringType));
        var missing = assertThrows(SmeltException.class, () -> new SmeltTransformer(shipped).setInputCol("features").transform(frame));
        assertTrue(missing.getMessage().contains("there is no column 'features'"), missing.getMessage());
        var text = assertThrows(SmeltException.class, () -> new SmeltTransformer(shipped).setInputCol("s").transform(frame));
        assertTrue(text.getMessage().contains("column 's' is string"), text.getMessage());
        var taken = assertThrows(SmeltException.class, () -> new SmeltTransformer(shipped).setInputCol("id").setOutputCol("id").transformSchema(frame.schema()));
        assertTrue(taken.getMessage().contains("column 'id' is int") || taken.getMessage().contains("exists already"), taken.getMessage());
        assertThrows(SmeltException.class, () -> new SmeltTransformer(shipped).setBatchSize(0));
    }

    /// Column names with dots are names, not paths into a struct; a null row or feature fails
    /// with Smelt's message, not a NullPointerException or the encoder's tuple field; an output
    /// column that differs from another only by case is refused, as Spark would find it ambiguous.
    @Test
    void dottedNamesNullFeaturesAndCaseClashes() {
        var shipped = ShippedFunction.batched(MODEL::forward, FEATURES);
        var rows = rows(3, 5);
        var schema = new StructType().add("id.x", DataTypes.IntegerType).add("f.x", DataTypes.createArrayType(DataTypes.FloatType));
        var data = indexed(rows);
        var scored = new SmeltTransformer(shipped).setInputCol("f.x").setOutputCol("out").transform(spark.createDataFrame(data, schema)).collectAsList();
        for (Row row : scored) assertArrayEquals(eager(rows.get(row.getInt(0))), Rows.floats(row.getAs("out")), 1e-5f);
        Float[] withNull = {1f, null, 2f, 3f};
        for (Object features : new Object[] {null, withNull}) {
            var bad = spark.createDataFrame(List.of(RowFactory.create(0, rows.get(0)), RowFactory.create(1, features)), schema);
            var e = assertThrows(Exception.class, () -> new SmeltTransformer(shipped).setInputCol("f.x").setOutputCol("out").transform(bad).collectAsList());
            assertTrue(String.valueOf(e.getMessage()).contains("SmeltTransformer: a row's features in column 'f.x'"), e.getMessage());
        }
        var inference = assertThrows(SmeltException.class, () -> Inference.predict(shipped, java.util.Arrays.asList(new float[FEATURES], null).iterator(), 4).forEachRemaining(r -> {}));
        assertTrue(inference.getMessage().contains("row 1 of a batch is null"), inference.getMessage());
        var clash = assertThrows(SmeltException.class, () -> new SmeltTransformer(shipped).setInputCol("f.x").setOutputCol("F.X").transformSchema(schema));
        assertTrue(clash.getMessage().contains("exists already (as 'f.x')"), clash.getMessage());
    }

    @Test
    void aFunctionThatMixesRowsIsRefused() {
        var e = assertThrows(SmeltException.class, () -> ShippedFunction.batched(x -> x.sub(x.mean(0)), FEATURES));
        assertTrue(e.getMessage().contains("depends on the batch size beyond its shapes"), e.getMessage());
    }
}
