// SPDX-License-Identifier: Apache-2.0
package dev.smelt.spark;

import dev.smelt.ir.SmeltException;
import java.util.List;
import org.apache.spark.ml.linalg.Vector;
import org.apache.spark.ml.linalg.VectorUDT;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.functions;
import org.apache.spark.sql.types.ArrayType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;

/// A feature column's values as the float rows a model reads: `array<float>`, `array<double>` or
/// an ML `Vector` column. Spark hands an `array<float>` to Java as a Scala `ArraySeq` over a
/// `float[]`, which is read without boxing.
final class Rows {
    private Rows() {}

    /// Checks that `column` of `schema` holds features: a float or double array, or a vector.
    static void requireFeatures(String op, StructType schema, String column) {
        if (column == null) throw SmeltException.of(op, "the input column is not set");
        if (!List.of(schema.fieldNames()).contains(column))
            throw SmeltException.of(op, "there is no column '%s'; the columns are %s", column, List.of(schema.fieldNames()));
        DataType type = schema.apply(column).dataType();
        boolean array = type instanceof ArrayType a && (a.elementType().equals(DataTypes.FloatType) || a.elementType().equals(DataTypes.DoubleType));
        if (!array && !(type instanceof VectorUDT))
            throw SmeltException.of(op, "column '%s' is %s; expected array<float>, array<double> or an ML vector", column, type.simpleString());
    }

    /// `column` of `schema` (checked by [#requireFeatures]) as `array<float>`, converted by Spark
    /// itself, so that it reaches Java as a primitive `float[]` through Spark's encoder for it. A
    /// null row or element fails the task with `op`'s message: the encoder would refuse it naming
    /// its own tuple's field, and a null row would reach Smelt as a NullPointerException.
    static Column asFloatArray(String op, StructType schema, String column) {
        Column floats = schema.apply(column).dataType() instanceof VectorUDT ? org.apache.spark.ml.functions.vector_to_array(named(column), "float32")
                : named(column).cast(DataTypes.createArrayType(DataTypes.FloatType));
        return functions.when(floats.isNull(), refused(op, "a row's features in column '%s' are null; drop or fill such rows first", column))
                .when(functions.exists(floats, Column::isNull), refused(op, "a row's features in column '%s' hold a null; drop or fill such rows first", column))
                .otherwise(floats);
    }

    /// `column` of `schema` as a double, a null failing the task with `op`'s message.
    static Column asDouble(String op, String column) {
        Column value = named(column).cast(DataTypes.DoubleType);
        return functions.when(value.isNull(), refused(op, "a row's label in column '%s' is null; drop or fill such rows first", column)).otherwise(value);
    }

    /// The column called `name`, dots and all: `col("f.x")` would read field `x` of a struct `f`.
    static Column named(String name) { return functions.col("`" + name.replace("`", "``") + "`"); }

    private static Column refused(String op, String format, Object... values) {
        return functions.raise_error(functions.lit(op + ": " + format.formatted(values)));
    }

    /// Whether `column` of `schema` is `array<float>` already, so that the cast gives back its values exactly.
    static boolean isFloatArray(StructType schema, String column) {
        return schema.apply(column).dataType() instanceof ArrayType a && a.elementType().equals(DataTypes.FloatType);
    }

    /// `schema` with a new `array<float>` column `output`.
    static StructType withOutput(String op, StructType schema, String output) {
        if (output == null) throw SmeltException.of(op, "the output column is not set");
        // Spark matches names regardless of case by default, so `Features` beside `features` is ambiguous
        for (String name : schema.fieldNames())
            if (name.equalsIgnoreCase(output)) throw SmeltException.of(op, "the output column '%s' exists already (as '%s')", output, name);
        return schema.add(new StructField(output, DataTypes.createArrayType(DataTypes.FloatType, false), true, org.apache.spark.sql.types.Metadata.empty()));
    }

    /// One row's features: `value` is what `Row.get` returned for the column.
    static float[] floats(Object value) {
        return switch (value) {
            case null -> throw SmeltException.of("Smelt on Spark", "a row's features are null; drop or fill such rows first");
            case scala.collection.mutable.ArraySeq.ofFloat seq -> seq.array();
            case scala.collection.immutable.ArraySeq.ofFloat seq -> seq.unsafeArray();
            case float[] array -> array;
            case Vector vector -> floats(vector.toArray());
            case double[] array -> floats(array);
            case scala.collection.mutable.ArraySeq.ofDouble seq -> floats(seq.array());
            case scala.collection.immutable.ArraySeq.ofDouble seq -> floats(seq.unsafeArray());
            case scala.collection.Seq<?> seq -> boxed(scala.jdk.javaapi.CollectionConverters.asJava(seq));
            case List<?> list -> boxed(list);
            default -> throw SmeltException.of("Smelt on Spark", "a row's features are a %s; expected a float or double array or a vector", value.getClass().getName());
        };
    }

    private static float[] floats(double[] values) {
        var floats = new float[values.length];
        for (int i = 0; i < values.length; i++) floats[i] = (float) values[i];
        return floats;
    }

    private static float[] boxed(List<?> values) {
        var floats = new float[values.size()];
        for (int i = 0; i < floats.length; i++) {
            if (!(values.get(i) instanceof Number n)) throw SmeltException.of("Smelt on Spark", "feature %d of a row is %s, not a number", i, values.get(i));
            floats[i] = n.floatValue();
        }
        return floats;
    }
}
