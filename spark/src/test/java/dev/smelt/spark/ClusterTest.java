// SPDX-License-Identifier: Apache-2.0
package dev.smelt.spark;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.HashSet;
import org.apache.spark.TaskContext;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/// Across JVM boundaries, on `local-cluster[2,1,1024]`: two executor JVMs, which have Smelt's
/// classes but none of the driver's objects. A shipped function is compiled in each from its text
/// and gives the driver's results; training on the two gives what one process gives; an executor
/// killed mid-training is replaced and training ends with the right result, never a hang.
class ClusterTest {
    static SparkSession spark;

    @BeforeAll
    static void start() { spark = SparkClusters.cluster(2); }

    @AfterAll
    static void stop() { spark.stop(); }

    @Test
    void aShippedFunctionRunsInBothExecutorJvmsAsOnTheDriver() {
        var model = InferenceTest.MODEL;
        var rows = InferenceTest.rows(64, 9);
        var schema = new StructType().add("id", DataTypes.IntegerType).add("features", DataTypes.createArrayType(DataTypes.FloatType));
        var data = InferenceTest.indexed(rows);
        var frame = spark.createDataFrame(data, schema).repartition(4);
        var stage = new SmeltTransformer(ShippedFunction.batched(model::forward, InferenceTest.FEATURES)).setOutputCol("out").setBatchSize(5);
        var scored = stage.transform(frame).collectAsList();
        for (Row row : scored) assertArrayEquals(InferenceTest.eager(rows.get(row.getInt(0))), Rows.floats(row.getAs("out")), 1e-5f);
        assertEquals(64, scored.size());
        String driver = ManagementFactory.getRuntimeMXBean().getName();
        var jvms = new HashSet<>(frame.javaRDD().map(row -> ManagementFactory.getRuntimeMXBean().getName()).collect());
        assertTrue(!jvms.isEmpty() && !jvms.contains(driver), "the rows were scored in executor JVMs, not the driver's: " + jvms);
    }

    @Test
    void trainingOnTwoExecutorJvmsEqualsOneProcess() {
        DataParallelTest.assertTrainsAsOneProcess(spark, null);
    }

    /// Replica 1 halts its executor JVM at step 3 of the first attempt. The other replica's
    /// exchange ends (end of stream, or the timeout), the Worker starts a new executor and Spark
    /// restarts the stage, which gives the same result as if nothing had happened (in about 10 s).
    /// Training's own deadline (2 minutes) ends it first if the recovery stalls; the test's
    /// timeout stands behind that, and either failure lists what the scheduler did.
    @Test
    void aKilledExecutorIsReplacedAndTheRestartedStageGivesTheSameResult() {
        SchedulerEvents.recording(spark, () -> assertTimeoutPreemptively(Duration.ofMinutes(4), () -> DataParallelTest.assertTrainsAsOneProcess(spark,
                (worker, step, loss) -> {
                    if (worker == 1 && step == 3 && TaskContext.get().stageAttemptNumber() == 0) Runtime.getRuntime().halt(1);
                }, Duration.ofMinutes(2))));
    }

}
