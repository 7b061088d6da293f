// SPDX-License-Identifier: Apache-2.0
package dev.smelt.optim;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.smelt.Generator;
import dev.smelt.Tensor;
import dev.smelt.ir.DType;
import dev.smelt.nn.Activations;
import dev.smelt.nn.Linear;
import dev.smelt.nn.Sequential;
import dev.smelt.stress.Settings;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/// A long training run (`smelt.stress.trainingSteps`, 100,000 in the `stress` profile) of an MLP
/// with Adam through one compiled [TrainStep], alternating two batch sizes (two programs). The
/// run is cut into ten windows; after the first (warm-up: compilation, vector variants taking
/// over), the heap in use after a full GC and the median step time must stay flat: the last
/// windows within generous margins of the early ones, so that a leak per step or a slowdown shows
/// and a busy machine does not. The loss must stay finite and fall.
@Tag("stress")
class LongTrainingTest {
    private static final int WINDOWS = 10;

    /// One window's median step time, heap after GC and mean loss.
    private record Window(long medianNanos, long heapBytes, double meanLoss) {}

    @Test
    void heapAndStepTimeStayFlatOverALongRun() {
        int steps = Settings.integer("trainingSteps", 2_000);
        var generator = new Generator(7);
        var model = new Sequential(new Linear(64, 128, generator), new Activations.Tanh(), new Linear(128, 64, generator), new Activations.ReLU(),
                new Linear(64, 10, generator));
        TrainStep step = new Adam(model.parameters(), 1e-3).compile((x, y) -> model.forward(x).crossEntropy(y));
        List<Tensor[]> batches = batches(generator);
        var windows = new ArrayList<Window>();
        for (int w = 0; w < WINDOWS; w++) windows.add(window(step, batches, w * (steps / WINDOWS), steps / WINDOWS));
        windows.forEach(window -> System.out.printf("LongTrainingTest: median step %.3f ms, heap after GC %,d KiB, mean loss %.4f%n",
                window.medianNanos() / 1e6, window.heapBytes() >> 10, window.meanLoss()));
        var settled = windows.subList(1, WINDOWS);
        long heapEarly = settled.subList(0, 3).stream().mapToLong(Window::heapBytes).max().orElseThrow();
        long heapLate = settled.subList(settled.size() - 3, settled.size()).stream().mapToLong(Window::heapBytes).min().orElseThrow();
        assertTrue(heapLate < heapEarly + Math.max(32 << 20, heapEarly / 2), "heap after GC grew from %,d to %,d KiB".formatted(heapEarly >> 10, heapLate >> 10));
        long timeEarly = settled.subList(0, 3).stream().mapToLong(Window::medianNanos).min().orElseThrow();
        long timeLate = settled.subList(settled.size() - 3, settled.size()).stream().mapToLong(Window::medianNanos).min().orElseThrow();
        assertTrue(timeLate < 3 * timeEarly, "median step time grew from %.3f to %.3f ms".formatted(timeEarly / 1e6, timeLate / 1e6));
        assertTrue(windows.getLast().meanLoss() < windows.getFirst().meanLoss(), "the loss did not fall: " + windows);
    }

    private static Window window(TrainStep step, List<Tensor[]> batches, int first, int count) {
        long[] nanos = new long[count];
        double loss = 0;
        for (int i = 0; i < count; i++) {
            Tensor[] batch = batches.get((first + i) % batches.size());
            long start = System.nanoTime();
            double value = step.apply(batch);
            nanos[i] = System.nanoTime() - start;
            assertTrue(Double.isFinite(value), "step " + (first + i) + " gave loss " + value);
            loss += value;
        }
        Arrays.sort(nanos);
        return new Window(nanos[count / 2], heapAfterGc(), loss / count);
    }

    /// Batches of 32 and 17 rows (two batch signatures): inputs, and classes that a linear rule
    /// assigns so there is something to learn.
    private static List<Tensor[]> batches(Generator generator) {
        var batches = new ArrayList<Tensor[]>();
        for (int b = 0; b < 16; b++) {
            int rows = b % 2 == 0 ? 32 : 17;
            Tensor x = Tensor.randn(generator, rows, 64);
            Tensor classes = x.slice(1, 0, 10).argmax(1);
            batches.add(new Tensor[] {x, classes.to(DType.I32)});
        }
        return batches;
    }

    private static long heapAfterGc() {
        System.gc();
        return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
    }
}
