// SPDX-License-Identifier: Apache-2.0
package dev.smelt.spark;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.smelt.optim.SGD;
import dev.smelt.Tensor;
import java.time.Duration;
import java.util.Map;
import org.apache.spark.TaskContext;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/// Data-parallel training on Spark `local[2]`: two replicas give what one process gives on the
/// same global batches, a replica that fails mid-training is restarted with its stage and the
/// result is unchanged, and bad settings are refused on the driver.
class DataParallelTest {
    static SparkSession spark;

    @BeforeAll
    static void start() { spark = SparkClusters.local(2); }

    @AfterAll
    static void stop() { spark.stop(); }

    @Test
    void twoWorkersTrainAsOneProcessOnTheSameGlobalBatches() {
        assertTrainsAsOneProcess(spark, null);
    }

    /// A replica throws at step 3 of the stage's first attempt: Spark restarts both, each from the
    /// shipped weights, and the result is as if nothing had failed.
    @Test
    void aReplicaThatFailsMidTrainingIsRestartedWithItsStageAndTheResultIsUnchanged() {
        assertTrainsAsOneProcess(spark, (worker, step, loss) -> {
            if (worker == 1 && step == 3 && TaskContext.get().stageAttemptNumber() == 0) throw new IllegalStateException("injected failure");
        });
    }

    /// Two replicas against one process on the same global batches, SGD with momentum. They
    /// differ only in the order of the sums over the batch: a float sum of `G` terms is within
    /// `G·ε·Σ|terms|` of the exact one, so a step's gradient differs by at most `G·ε·A` per weight,
    /// with `A = 10` bounding a row's gradient here (features about N(0,1)+1, `|∂ℓ/∂logit| ≤ 1`,
    /// small weights); momentum carries a difference on for `1/(1−momentum)` steps, and `steps`
    /// of them add up.
    static void assertTrainsAsOneProcess(SparkSession spark, StepListener listener) { assertTrainsAsOneProcess(spark, listener, Duration.ofMinutes(3)); }

    /// [#assertTrainsAsOneProcess(SparkSession, StepListener)] with training cancelled at `deadline`.
    static void assertTrainsAsOneProcess(SparkSession spark, StepListener listener, Duration deadline) {
        var data = Training.data(200, 1);
        int batch = 32, epochs = 2, steps = 200 / batch * epochs;
        double lr = 0.1, momentum = 0.5;
        var model = Training.model();
        var training = new DataParallel(model, (x, y) -> model.forward(x).crossEntropy(y), new UpdateRule.Sgd(lr, momentum))
                .workers(2).batchSize(batch).epochs(epochs).seed(5).timeout(Duration.ofSeconds(20)).deadline(deadline);
        if (listener != null) training.listener(listener);
        var result = training.fit(data.frame(spark, 3), "features", "label");
        var reference = Training.model();
        Map<String, Tensor> expected = Training.singleProcess(data, reference, new SGD(reference.parameters(), lr, momentum, 0, 0, false), batch, epochs, 5);
        assertEquals(steps, result.losses().length);
        double tolerance = steps * lr / (1 - momentum) * batch * Math.ulp(1f) * 10;
        double difference = Training.maxDifference(expected, result.state());
        assertTrue(difference <= tolerance, "difference " + difference + " > tolerance " + tolerance);
        assertTrue(result.losses()[steps - 1] < result.losses()[0], "the loss went down");
    }

    /// A replica that hangs in every attempt: the job is cancelled at the deadline and the driver
    /// gets a SmeltException saying so, long before the hang would end.
    @Test
    void aHungReplicaIsCancelledAtTheDeadline() {
        var model = Training.model();
        var training = new DataParallel(model, (x, y) -> model.forward(x).crossEntropy(y), new UpdateRule.Adam(1e-3))
                .batchSize(8).timeout(Duration.ofMinutes(5)).deadline(Duration.ofSeconds(4)).listener((worker, step, loss) -> {
                    if (worker == 1) java.util.concurrent.locks.LockSupport.parkNanos(120_000_000_000L);
                });
        long start = System.nanoTime();
        Training.assertRefused(() -> training.fit(Training.data(40, 3).frame(spark, 2), "features", "label"), "did not finish within the deadline of PT4S");
        assertTrue(System.nanoTime() - start < 60e9, "returned soon after the deadline");
    }

    @Test
    void badSettingsAreRefusedOnTheDriver() {
        var model = Training.model();
        var data = Training.data(40, 2).frame(spark, 1);
        var training = new DataParallel(model, (x, y) -> model.forward(x).crossEntropy(y), new UpdateRule.Adam(1e-3));
        Training.assertRefused(() -> training.workers(3).batchSize(32).fit(data, "features", "label"), "does not split evenly over 3 workers");
        Training.assertRefused(() -> training.workers(2).batchSize(64).fit(data, "features", "label"), "40 rows, fewer than one batch of 64");
        Training.assertRefused(() -> training.batchSize(8).fit(data, "pixels", "label"), "there is no column 'pixels'");
        Training.assertRefused(() -> training.fit(data, "features", "features"), "must be numeric");
        var other = Training.model();
        Training.assertRefused(() -> new DataParallel(model, (x, y) -> other.forward(x).crossEntropy(y), new UpdateRule.Adam(1e-3)).batchSize(8).fit(data, "features", "label"),
                "does not read parameter 0.weight");
        Training.assertRefused(() -> new UpdateRule.Sgd(-1, 0), "learning rate");
        Training.assertRefused(() -> training.timeout(Duration.ZERO), "must be positive");
    }
}
