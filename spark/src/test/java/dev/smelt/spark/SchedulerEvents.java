// SPDX-License-Identifier: Apache-2.0
package dev.smelt.spark;

import java.time.LocalTime;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.Success$;
import org.apache.spark.scheduler.SparkListener;
import org.apache.spark.scheduler.SparkListenerExecutorAdded;
import org.apache.spark.scheduler.SparkListenerExecutorRemoved;
import org.apache.spark.scheduler.SparkListenerJobEnd;
import org.apache.spark.scheduler.SparkListenerStageCompleted;
import org.apache.spark.scheduler.SparkListenerStageSubmitted;
import org.apache.spark.scheduler.SparkListenerTaskEnd;
import org.apache.spark.scheduler.SparkListenerTaskStart;
import org.apache.spark.sql.SparkSession;

/// What the driver's scheduler did while a test ran (executors added and lost, stage attempts,
/// tasks and how they ended), kept in memory and shown only when the test fails: the logs are
/// quiet in tests, and a failure that happens once in many runs must explain itself.
final class SchedulerEvents extends SparkListener {
    private final List<String> events = new ArrayList<>();

    /// Runs `test` with the events recorded; a failure carries them in its message.
    static void recording(SparkSession spark, Runnable test) {
        var recorder = new SchedulerEvents();
        spark.sparkContext().addSparkListener(recorder);
        try {
            test.run();
        } catch (RuntimeException | Error failure) {
            throw new AssertionError(failure.getMessage() + "\nwhat the scheduler did:\n" + recorder, failure);
        } finally {
            spark.sparkContext().removeSparkListener(recorder);
        }
    }

    private synchronized void add(String format, Object... values) { events.add(LocalTime.now().truncatedTo(ChronoUnit.MILLIS) + " " + format.formatted(values)); }

    @Override
    public synchronized String toString() { return String.join("\n", events); }

    @Override
    public void onExecutorAdded(SparkListenerExecutorAdded event) { add("executor %s added on %s", event.executorId(), event.executorInfo().executorHost()); }

    @Override
    public void onExecutorRemoved(SparkListenerExecutorRemoved event) { add("executor %s removed: %s", event.executorId(), event.reason()); }

    @Override
    public void onStageSubmitted(SparkListenerStageSubmitted event) {
        add("stage %d attempt %d submitted: %s, %d tasks", event.stageInfo().stageId(), event.stageInfo().attemptNumber(), event.stageInfo().name(), event.stageInfo().numTasks());
    }

    @Override
    public void onStageCompleted(SparkListenerStageCompleted event) {
        var info = event.stageInfo();
        add("stage %d attempt %d %s", info.stageId(), info.attemptNumber(), info.failureReason().isDefined() ? "failed: " + info.failureReason().get().lines().findFirst().orElse("") : "completed");
    }

    @Override
    public void onTaskStart(SparkListenerTaskStart event) {
        add("task %d (stage %d.%d, partition %d) started on executor %s", event.taskInfo().taskId(), event.stageId(), event.stageAttemptId(), event.taskInfo().index(), event.taskInfo().executorId());
    }

    @Override
    public void onTaskEnd(SparkListenerTaskEnd event) {
        String reason = event.reason() == Success$.MODULE$ ? "succeeded" : "ended: " + event.reason().toString().lines().findFirst().orElse("");
        add("task %d (stage %d.%d) %s", event.taskInfo().taskId(), event.stageId(), event.stageAttemptId(), reason);
    }

    @Override
    public void onJobEnd(SparkListenerJobEnd event) { add("job %d ended: %s", event.jobId(), event.jobResult()); }
}
