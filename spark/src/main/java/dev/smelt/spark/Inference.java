// SPDX-License-Identifier: Apache-2.0
package dev.smelt.spark;

import dev.smelt.Tensor;
import dev.smelt.ir.SmeltException;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.function.BiFunction;
import java.util.function.Function;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.api.java.UDF1;
import org.apache.spark.sql.expressions.UserDefinedFunction;
import org.apache.spark.sql.functions;
import org.apache.spark.sql.types.DataTypes;

/// Batch inference with a [ShippedFunction] of one `f32[n, features]` argument: the rows of a
/// partition are gathered into batches of up to `batchSize` rows, each batch is one call of the
/// compiled program, and its first result is split back into one `float[]` per row. For
/// `Dataset.mapPartitions` and `RDD.mapPartitions`; [SmeltTransformer] is the Spark ML stage
/// built on it and [#udf] the row-at-a-time SQL function.
public final class Inference {
    private Inference() {}

    /// Each row's result for `rows` (each `features` floats), batch by batch and lazily: a
    /// partition is never held whole.
    public static Iterator<float[]> predict(ShippedFunction function, Iterator<float[]> rows, int batchSize) {
        return predict(function, rows, row -> row, (row, result) -> result, batchSize);
    }

    /// For each of `items`, `combine` of it and the result for its `features`, batch by batch.
    public static <T, R> Iterator<R> predict(ShippedFunction function, Iterator<T> items, Function<T, float[]> features, BiFunction<T, float[], R> combine, int batchSize) {
        requireBatchSize(batchSize);
        if (features == null || combine == null) throw SmeltException.of("Inference.predict", "the features and combine functions must be non-null");
        var executable = Executables.of(function);
        return new Batched<>(items, batchSize, batch -> {
            var rows = new ArrayList<float[]>(batch.size());
            for (T item : batch) rows.add(features.apply(item));
            var results = run(executable, rows);
            var out = new ArrayList<R>(batch.size());
            for (int i = 0; i < batch.size(); i++) out.add(combine.apply(batch.get(i), results.get(i)));
            return out;
        });
    }

    /// `rows` with one more field, the result for the features in field `column` (`array<float>`,
    /// `array<double>` or a vector), as `float[]`: for `Dataset<Row>.mapPartitions` with
    /// `Encoders.row` of the schema plus that column. Spark hands such rows' arrays over element by
    /// element (boxed); [SmeltTransformer] avoids that.
    public static Iterator<Row> predictRows(ShippedFunction function, Iterator<Row> rows, int column, int batchSize) {
        return predict(function, rows, row -> Rows.floats(row.get(column)), (row, result) -> {
            var values = new Object[row.length() + 1];
            for (int f = 0; f < row.length(); f++) values[f] = row.get(f);
            values[row.length()] = result;
            return RowFactory.create(values);
        }, batchSize);
    }

    /// A SQL function of a feature column (`array<float>`, `array<double>` or a vector) returning
    /// `array<float>`, the function broadcast in the active session. Spark calls it row by row, so
    /// each call is a batch of one; the
    /// [SmeltTransformer] batches and is the faster way over a whole column.
    public static UserDefinedFunction udf(ShippedFunction function) {
        if (function == null) throw SmeltException.of("Inference.udf", "the shipped function is null");
        function.validate("Inference.udf");
        var spark = SparkSession.getActiveSession();
        if (spark.isEmpty()) throw SmeltException.of("Inference.udf", "there is no active Spark session to broadcast the function in");
        var shipped = JavaSparkContext.fromSparkContext(spark.get().sparkContext()).broadcast(function);
        UDF1<Object, float[]> one = value -> run(Executables.of(shipped.value()), List.of(Rows.floats(value))).getFirst();
        return functions.udf(one, DataTypes.createArrayType(DataTypes.FloatType, false));
    }

    /// Registers [#udf] under `name` for SQL: `SELECT name(features) FROM …`.
    public static UserDefinedFunction register(SparkSession spark, String name, ShippedFunction function) {
        if (spark == null || name == null) throw SmeltException.of("Inference.register", "the session and the name must be non-null");
        return spark.udf().register(name, udf(function));
    }

    static void requireBatchSize(int batchSize) {
        if (batchSize < 1) throw SmeltException.of("Inference", "the batch size must be at least 1, not %d", batchSize);
    }

    // One program call for `rows`, each the same length: the first result, split by rows.
    private static List<float[]> run(Executables.Executable executable, List<float[]> rows) {
        for (int i = 0; i < rows.size(); i++)
            if (rows.get(i) == null) throw SmeltException.of("Inference", "row %d of a batch is null; drop or fill such rows first", i);
        int n = rows.size(), features = rows.getFirst().length;
        var data = new float[n * features];
        for (int i = 0; i < n; i++) {
            float[] row = rows.get(i);
            if (row.length != features)
                throw SmeltException.of("Inference", "row %d of a batch has %d features, the first has %d; every row of a column must have as many", i, row.length, features);
            System.arraycopy(row, 0, data, i * features, features);
        }
        Tensor result = executable.apply(n, Tensor.of(data, n, features)).getFirst();
        if (result.rank() < 1 || result.shape().dim(0) != n)
            throw SmeltException.of("Inference", "the function's first result is %s for a batch of %d rows; its axis 0 must be the batch", result.shape(), n);
        float[] values = result.toFloatArray();
        int width = values.length / n;
        var out = new ArrayList<float[]>(n);
        for (int i = 0; i < n; i++) out.add(java.util.Arrays.copyOfRange(values, i * width, (i + 1) * width));
        return out;
    }

    /// An iterator that pulls up to `size` items of `source`, maps them as one batch, and hands
    /// the results out one by one.
    private static final class Batched<T, R> implements Iterator<R> {
        private final Iterator<T> source;
        private final int size;
        private final Function<List<T>, List<R>> map;
        private Iterator<R> current = java.util.Collections.emptyIterator();

        Batched(Iterator<T> source, int size, Function<List<T>, List<R>> map) {
            if (source == null) throw SmeltException.of("Inference", "the iterator of rows is null");
            this.source = source;
            this.size = size;
            this.map = map;
        }

        @Override
        public boolean hasNext() {
            if (current.hasNext()) return true;
            if (!source.hasNext()) return false;
            var batch = new ArrayList<T>(size);
            while (batch.size() < size && source.hasNext()) batch.add(source.next());
            current = map.apply(batch).iterator();
            return current.hasNext();
        }

        @Override
        public R next() {
            if (!hasNext()) throw new NoSuchElementException();
            return current.next();
        }
    }
}
