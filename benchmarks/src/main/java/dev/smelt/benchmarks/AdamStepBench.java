// SPDX-License-Identifier: Apache-2.0
package dev.smelt.benchmarks;

import dev.smelt.Generator;
import dev.smelt.Tensor;
import dev.smelt.nn.Activations;
import dev.smelt.nn.Linear;
import dev.smelt.nn.Sequential;
import dev.smelt.optim.Adam;
import dev.smelt.optim.Optimizer;
import dev.smelt.optim.SGD;
import dev.smelt.optim.TrainStep;
import java.lang.management.ManagementFactory;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.openjdk.jmh.annotations.AuxCounters;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/// One training step of a small MLP (16-32-4, batch 8, cross-entropy; `-p layers=64-128-10 -p
/// batch=32` for the digits MLP of issue 18), one thread, with Adam or SGD: the step itself is
/// microseconds, so what a training loop does around it shows (issue 18: no class loaded after the
/// first step, at most 4 KB allocated per step beyond the returned tensors; run with `-prof gc`).
/// `classesLoaded` counts the classes the JVM loaded during each iteration. `gc.alloc.rate.norm`
/// counts every thread's allocation, so `@Setup` takes at least 10,000 steps and 10 s before JMH's
/// warm-up: the background warm-ups (the tiny matmul's, the vector variants') are over by then, or
/// their allocation would count as the step's. The batch array is made once, so the call's
/// varargs array does not count either.
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"--add-modules", "jdk.incubator.vector", "-Dsmelt.threads=1"})
public class AdamStepBench {
    static final int SETTLING_STEPS = 10_000;
    static final long SETTLING_NANOS = 10_000_000_000L;

    @Param({"Adam", "SGD"})
    public String optimizer;

    /// Layer widths, input first (JMH splits `-p` values at commas).
    @Param("16-32-4")
    public String layers;

    @Param("8")
    public int batch;

    TrainStep step;
    Tensor[] arguments;

    @Setup
    public void trainingLowersTheLoss() {
        var generator = new Generator(1);
        int[] widths = Arrays.stream(layers.split("-")).mapToInt(Integer::parseInt).toArray();
        var model = new Sequential(new Linear(widths[0], widths[1], generator), new Activations.ReLU(), new Linear(widths[1], widths[2], generator));
        var parameters = model.parameters();
        Optimizer chosen = switch (optimizer) {
            case "Adam" -> new Adam(parameters, 1e-3);
            case "SGD" -> new SGD(parameters, 1e-2);
            default -> throw new IllegalArgumentException("optimizer " + optimizer + ": expected Adam or SGD");
        };
        step = chosen.compile((a, b) -> model.forward(a).crossEntropy(b));
        int[] labels = IntStream.range(0, batch).map(i -> i % widths[2]).toArray();
        arguments = new Tensor[] {Tensor.randn(generator, batch, widths[0]), Tensor.of(labels, batch)};
        double first = step.apply(arguments), later = first;
        for (int i = 0; i < 200; i++) later = step.apply(arguments);
        if (!(later < first)) throw new IllegalStateException("200 %s steps did not lower the loss: %s -> %s".formatted(optimizer, first, later));
        long start = System.nanoTime();
        for (int i = 0; i < SETTLING_STEPS || System.nanoTime() - start < SETTLING_NANOS; i++) step.apply(arguments);
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
        double loss = step.apply(arguments);
        classes.update();
        return loss;
    }
}
