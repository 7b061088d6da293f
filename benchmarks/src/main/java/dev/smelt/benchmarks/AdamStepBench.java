// SPDX-License-Identifier: Apache-2.0
package dev.smelt.benchmarks;

import dev.smelt.Generator;
import dev.smelt.Tensor;
import dev.smelt.nn.Activations;
import dev.smelt.nn.Linear;
import dev.smelt.nn.Sequential;
import dev.smelt.optim.Adam;
import dev.smelt.optim.TrainStep;
import java.lang.management.ManagementFactory;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.AuxCounters;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/// One Adam step of a small MLP (16-32-4, batch 8, cross-entropy), one thread: the step itself is
/// microseconds, so what a training loop does around it shows (issue 18: no class loaded after the
/// first step, at most 4 KB allocated per step beyond the returned tensors; run with `-prof gc`).
/// `classesLoaded` counts the classes the JVM loaded during each iteration.
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"--add-modules", "jdk.incubator.vector", "-Dsmelt.threads=1"})
public class AdamStepBench {
    TrainStep step;
    Tensor x, y;

    @Setup
    public void trainingLowersTheLoss() {
        var generator = new Generator(1);
        var model = new Sequential(new Linear(16, 32, generator), new Activations.ReLU(), new Linear(32, 4, generator));
        step = new Adam(model.parameters(), 1e-3).compile((a, b) -> model.forward(a).crossEntropy(b));
        x = Tensor.randn(generator, 8, 16);
        y = Tensor.of(new int[] {0, 1, 2, 3, 0, 1, 2, 3}, 8);
        double first = step.apply(x, y), later = first;
        for (int i = 0; i < 200; i++) later = step.apply(x, y);
        if (!(later < first)) throw new IllegalStateException("200 Adam steps did not lower the loss: %s -> %s".formatted(first, later));
    }

    @State(Scope.Thread)
    @AuxCounters(AuxCounters.Type.EVENTS)
    public static class Classes {
        private static final java.lang.management.ClassLoadingMXBean BEAN = ManagementFactory.getClassLoadingMXBean();
        private long start;
        public long classesLoaded;

        @Setup(Level.Iteration)
        public void start() {
            start = BEAN.getTotalLoadedClassCount();
            classesLoaded = 0;
        }

        void update() { classesLoaded = BEAN.getTotalLoadedClassCount() - start; }
    }

    @Benchmark
    public double step(Classes classes) {
        double loss = step.apply(x, y);
        classes.update();
        return loss;
    }
}
