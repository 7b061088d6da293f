// SPDX-License-Identifier: Apache-2.0
package dev.smelt.optim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.smelt.Generator;
import dev.smelt.Tensor;
import dev.smelt.nn.Activations;
import dev.smelt.nn.Linear;
import dev.smelt.nn.Sequential;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedClass;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;
import org.junit.jupiter.api.Test;

/// A training step once its program is compiled (issue 18): later steps load no class and allocate
/// little beyond what they return (a `double`), so that a training loop neither grows the
/// metaspace nor leans on the garbage collector. The model is AdamStepBench's (16-32-4 MLP, batch 8).
///
/// Neither check times anything, so a busy machine cannot fail them. Classes are those the JVM's
/// flight recorder saw loaded on this thread: Smelt's warm-up threads may still define vector
/// variants meanwhile, once per kernel, and that is not the step's doing. Allocation is counted on
/// this thread too, in windows, and the best window must be within [#BYTES_PER_STEP]: a window may
/// catch the JIT recompiling a method, whose interim code allocates what escape analysis removes.
class SteadyStepsTest {
    private static final int STEPS = 10_000;
    /// About four times what a step allocates, C1 or C2 (`Compiled.applyUpdating`'s two lists of
    /// storages), and a quarter of the 4 KB.
    private static final long BYTES_PER_STEP = 1024;

    private static TrainStep adamStep(Tensor x, Tensor y) {
        var generator = new Generator(1);
        var model = new Sequential(new Linear(16, 32, generator), new Activations.ReLU(), new Linear(32, 4, generator));
        var step = new Adam(model.parameters(), 1e-3).compile((a, b) -> model.forward(a).crossEntropy(b));
        step.apply(x, y);
        return step;
    }

    private static Tensor batch() { return Tensor.randn(new Generator(2), 8, 16); }

    private static Tensor labels() { return Tensor.of(new int[] {0, 1, 2, 3, 0, 1, 2, 3}, 8); }

    @Test
    void stepsAfterTheFirstLoadNoClass() throws IOException {
        Tensor x = batch(), y = labels();
        var step = adamStep(x, y);
        Path file = Files.createTempFile("steady-steps", ".jfr");
        try (var recording = new Recording()) {
            recording.enable("jdk.ClassLoad").withThreshold(Duration.ZERO).withStackTrace();
            recording.start();
            for (int i = 1; i < STEPS; i++) step.apply(x, y);
            recording.stop();
            recording.dump(file);
            long thread = Thread.currentThread().threadId();
            List<RecordedEvent> loads = RecordingFile.readAllEvents(file).stream()
                    .filter(event -> event.getThread() != null && event.getThread().getJavaThreadId() == thread && !byTheRecorder(event)).toList();
            List<String> loaded = loads.stream().map(event -> event.<RecordedClass>getValue("loadedClass").getName()).toList();
            // the first load's stack says which path loaded it: seen once under load, not reproduced since
            assertEquals(List.of(), loaded, () -> "classes loaded by steps 2 to %,d; the first from%n%s".formatted(STEPS, loads.getFirst().getStackTrace()));
        } finally {
            Files.delete(file);
        }
    }

    // Stopping a recording loads the recorder's own classes on the thread that stops it.
    private static boolean byTheRecorder(RecordedEvent event) {
        var stack = event.getStackTrace();
        return stack != null && stack.getFrames().stream().anyMatch(frame -> frame.getMethod().getType().getName().startsWith("jdk.jfr."));
    }

    @Test
    void aStepAllocatesLittleBeyondItsLoss() {
        Tensor x = batch(), y = labels();
        var step = adamStep(x, y);
        var threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        long thread = Thread.currentThread().threadId();
        for (int i = 0; i < 2_000; i++) step.apply(x, y);
        long[] perStep = new long[5];
        Tensor[] batch = {x, y}; // the caller's varargs array, made once
        for (int window = 0; window < perStep.length; window++) {
            long before = threads.getThreadAllocatedBytes(thread);
            for (int i = 0; i < 1_000; i++) step.apply(batch);
            perStep[window] = (threads.getThreadAllocatedBytes(thread) - before) / 1_000;
        }
        long best = Arrays.stream(perStep).min().orElseThrow();
        assertTrue(best <= BYTES_PER_STEP, "bytes per step in windows of 1,000 steps: %s".formatted(Arrays.toString(perStep)));
    }
}
