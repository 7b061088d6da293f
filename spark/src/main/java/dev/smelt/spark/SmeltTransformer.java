// SPDX-License-Identifier: Apache-2.0
package dev.smelt.spark;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.struct;

import dev.smelt.ir.SmeltException;
import java.io.Serial;
import java.util.ArrayList;
import org.apache.spark.SparkContext;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.api.java.function.MapPartitionsFunction;
import org.apache.spark.broadcast.Broadcast;
import org.apache.spark.ml.Transformer;
import org.apache.spark.ml.param.IntParam;
import org.apache.spark.ml.param.Param;
import org.apache.spark.ml.param.ParamMap;
import org.apache.spark.ml.param.ParamValidators;
import org.apache.spark.ml.util.Identifiable;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Encoder;
import org.apache.spark.sql.Encoders;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import scala.Tuple2;
import scala.Tuple3;

/// A Spark ML stage that runs a compiled model over a feature column: `transform` adds the column
/// [#outputCol], each row's first result as `array<float>`, computed in batches of [#batchSize]
/// rows per partition ([Inference#predict]). The model travels as a [ShippedFunction],
/// checked here when the stage is made, broadcast once per Spark context, and compiled once per
/// executor JVM.
///
/// ```java
/// var stage = new SmeltTransformer(ShippedFunction.batched(model::forward, 784))
///         .setInputCol("features").setOutputCol("logits").setBatchSize(256);
/// Dataset<Row> scored = stage.transform(images);
/// ```
public final class SmeltTransformer extends Transformer {
    @Serial private static final long serialVersionUID = 1L;
    private final String uid;
    private final ShippedFunction function;
    // Spark ML finds a stage's parameters by reflection, as its public methods that return a Param.
    private final Param<String> inputCol;
    private final Param<String> outputCol;
    private final IntParam batchSize;
    private transient Broadcast<ShippedFunction> broadcast;
    private transient SparkContext broadcastContext;

    /// A stage running `function`, which must be [ShippedFunction#isBatched].
    public SmeltTransformer(ShippedFunction function) { this(Identifiable.randomUID("smelt"), function); }

    /// [#SmeltTransformer(ShippedFunction)] with its ML identifier given.
    public SmeltTransformer(String uid, ShippedFunction function) {
        if (function == null) throw SmeltException.of("SmeltTransformer", "the shipped function is null");
        if (!function.isBatched()) throw SmeltException.of("SmeltTransformer", "%s has fixed shapes; make it with ShippedFunction.batched so any batch size runs", function);
        function.validate("SmeltTransformer");
        this.uid = uid;
        this.function = function;
        this.inputCol = new Param<>(this, "inputCol", "the feature column: array<float>, array<double> or vector");
        this.outputCol = new Param<>(this, "outputCol", "the new column of results, array<float>");
        this.batchSize = new IntParam(this, "batchSize", "rows per program call (≥ 1)", ParamValidators.gtEq(1));
        setDefault(inputCol, "features");
        setDefault(outputCol, "prediction");
        setDefault(batchSize, 256);
    }

    /// The feature column: `array<float>`, `array<double>` or an ML vector. Default `features`.
    public Param<String> inputCol() { return inputCol; }

    /// The new column of results, `array<float>`. Default `prediction`.
    public Param<String> outputCol() { return outputCol; }

    /// Rows per program call, at least 1. Default 256.
    public IntParam batchSize() { return batchSize; }

    /// Sets [#inputCol].
    public SmeltTransformer setInputCol(String column) { set(inputCol, column); return this; }

    /// Sets [#outputCol].
    public SmeltTransformer setOutputCol(String column) { set(outputCol, column); return this; }

    /// Sets [#batchSize].
    public SmeltTransformer setBatchSize(int rows) {
        Inference.requireBatchSize(rows);
        set(batchSize, rows);
        return this;
    }

    /// The function it runs.
    public ShippedFunction function() { return function; }

    /// The features travel as a primitive `float[]` (Spark's encoder for it copies the array
    /// whole), not inside a generic `Row`, which would box every element both ways: the feature
    /// column is cast to `array<float>` by Spark itself, and the other columns go alongside as one
    /// struct. The output keeps the input's columns in their order.
    @Override
    public Dataset<Row> transform(Dataset<?> dataset) {
        transformSchema(dataset.schema());
        String input = $(inputCol), output = $(outputCol);
        boolean floats = Rows.isFloatArray(dataset.schema(), input);
        Column features = Rows.asFloatArray("SmeltTransformer", dataset.schema(), input);
        var rest = new ArrayList<Column>();
        var restSchema = new StructType();
        for (StructField field : dataset.schema().fields())
            if (!(floats && field.name().equals(input))) {
                rest.add(Rows.named(field.name()));
                restSchema = restSchema.add(field);
            }
        Encoder<float[]> array = dataset.sparkSession().implicits().newFloatArrayEncoder();
        Dataset<Tuple2<Row, float[]>> pairs = dataset.select(struct(rest.toArray(Column[]::new)).as("_1"), features.as("_2")).as(Encoders.tuple(Encoders.row(restSchema), array));
        int rows = (Integer) $(batchSize);
        Broadcast<ShippedFunction> shipped = broadcast(dataset.sparkSession()); // the closure carries these, not the stage
        MapPartitionsFunction<Tuple2<Row, float[]>, Tuple3<Row, float[], float[]>> partition =
                iterator -> Inference.predict(shipped.value(), iterator, Tuple2::_2, (pair, result) -> new Tuple3<>(pair._1(), pair._2(), result), rows);
        var scored = pairs.mapPartitions(partition, Encoders.tuple(Encoders.row(restSchema), array, array));
        var columns = new ArrayList<Column>();
        for (String name : dataset.schema().fieldNames())
            columns.add((floats && name.equals(input) ? col("_2") : col("_1").getField(name)).as(name));
        columns.add(col("_3").as(output));
        return scored.select(columns.toArray(Column[]::new));
    }

    // The function as a broadcast of `spark`'s context, made once per stage and context: each
    // executor fetches the weights once, not with every task.
    private synchronized Broadcast<ShippedFunction> broadcast(SparkSession spark) {
        if (broadcast == null || broadcastContext != spark.sparkContext()) {
            broadcast = JavaSparkContext.fromSparkContext(spark.sparkContext()).broadcast(function);
            broadcastContext = spark.sparkContext();
        }
        return broadcast;
    }

    @Override
    public StructType transformSchema(StructType schema) {
        Rows.requireFeatures("SmeltTransformer", schema, $(inputCol));
        return Rows.withOutput("SmeltTransformer", schema, $(outputCol));
    }

    @Override
    public SmeltTransformer copy(ParamMap extra) { return copyValues(new SmeltTransformer(uid, function), extra); }

    @Override
    public String uid() { return uid; }
}
