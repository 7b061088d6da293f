// SPDX-License-Identifier: Apache-2.0
package dev.smelt.spark;

import dev.smelt.SmeltException;
import java.io.Serial;
import java.util.Arrays;
import org.apache.spark.api.java.function.MapPartitionsFunction;
import org.apache.spark.ml.Transformer;
import org.apache.spark.ml.param.IntParam;
import org.apache.spark.ml.param.Param;
import org.apache.spark.ml.param.ParamMap;
import org.apache.spark.ml.param.ParamValidators;
import org.apache.spark.ml.util.Identifiable;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Encoders;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.types.StructType;

/// A Spark ML stage that runs a compiled model over a feature column: `transform` adds the column
/// [#outputCol], each row's first result as `array<float>`, computed in batches of [#batchSize]
/// rows per partition ([Inference#predictRows]). The model travels as a [ShippedFunction],
/// checked here when the stage is made, and is compiled once per executor JVM.
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

    @Override
    public Dataset<Row> transform(Dataset<?> dataset) {
        StructType schema = transformSchema(dataset.schema());
        int column = Arrays.asList(dataset.schema().fieldNames()).indexOf($(inputCol));
        int rows = (Integer) $(batchSize);
        ShippedFunction shipped = function; // the closure carries these, not the stage
        MapPartitionsFunction<Row, Row> partition = iterator -> Inference.predictRows(shipped, iterator, column, rows);
        return dataset.toDF().mapPartitions(partition, Encoders.row(schema));
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
