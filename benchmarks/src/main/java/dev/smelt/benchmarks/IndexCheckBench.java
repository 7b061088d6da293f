// SPDX-License-Identifier: Apache-2.0
package dev.smelt.benchmarks;

import dev.smelt.Compiled;
import dev.smelt.Generator;
import dev.smelt.Jit;
import dev.smelt.Tensor;
import dev.smelt.ir.SmeltException;
import dev.smelt.nn.Activations;
import dev.smelt.nn.Linear;
import dev.smelt.nn.Sequential;
import dev.smelt.optim.Adam;
import dev.smelt.optim.TrainStep;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/// What checking class labels costs compiled code (issue 19): the same programs with their index
/// checks (`checks = on`, the default) and without (`off`: `-Dsmelt.indexChecks=false`, set before
/// they compile, which no real program should do), one thread. `crossEntropy` is a compiled
/// `logits.crossEntropy(labels)` on `[rows, classes]` logits; `trainStep` an Adam step of an MLP
/// (`layers`, input first) on a batch of `rows`, with cross-entropy. The ratio on / off is the
/// cost; each `@Setup` first makes sure that the checked program rejects a bad label and that both
/// compute the same loss, then calls the program until its large kernels run their vector variant
/// (at most a minute). Even so, forks of the 1024x1000 loss, checked or not, run at 0.65, 2.0,
/// 3.3 or 4.5 ms by how its kernels were compiled, far more than the checks cost: compare forks
/// of the same mode, or the small shapes. Forcing the vector variant (`-Dsmelt.tier=vector`) made
/// the 784-512-10 step 8–12× slower (20–34 ms), so the benchmark does not.
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"--add-modules", "jdk.incubator.vector", "-Dsmelt.threads=1"})
public class IndexCheckBench {
    /// A compiled cross-entropy on `logits` of `rows x classes`.
    @State(Scope.Benchmark)
    public static class Loss {
        @Param({"on", "off"})
        public String checks;

        @Param({"32x10", "1024x1000"})
        public String logits;

        Compiled loss;
        Tensor[] arguments;

        @Setup
        public void checkedProgramRejectsBadLabelsAndBothAgree() {
            useChecks(checks);
            int[] shape = Arrays.stream(logits.split("x")).mapToInt(Integer::parseInt).toArray();
            loss = Jit.compile((Tensor l, Tensor t) -> l.crossEntropy(t));
            arguments = new Tensor[] {Tensor.randn(new Generator(1), shape[0], shape[1]), labels(shape[0], shape[1])};
            if (loss.apply(arguments).toFloatArray()[0] != arguments[0].crossEntropy(arguments[1]).toFloatArray()[0])
                throw new IllegalStateException("compiled and eager losses differ");
            Tensor bad = labels(shape[0], shape[1]).add(shape[1]);
            if (checks.equals("on") && !rejects(() -> loss.apply(arguments[0], bad))) throw new IllegalStateException("a bad label passed the check");
            settle(() -> loss.apply(arguments), loss::explain);
        }
    }

    /// An Adam step of an MLP of widths `layers` (input first) on a batch of `rows`: AdamStepBench's
    /// tiny step and TrainStepBench's MLP.
    @State(Scope.Benchmark)
    public static class Step {
        @Param({"on", "off"})
        public String checks;

        @Param({"16-32-4x8", "784-512-10x128"})
        public String mlp;

        TrainStep step;
        Tensor[] batch;

        @Setup
        public void checkedStepRejectsBadLabelsAndTrainingLowersTheLoss() {
            useChecks(checks);
            String[] parts = mlp.split("x");
            int[] widths = Arrays.stream(parts[0].split("-")).mapToInt(Integer::parseInt).toArray();
            int rows = Integer.parseInt(parts[1]);
            var generator = new Generator(1);
            var model = new Sequential(new Linear(widths[0], widths[1], generator), new Activations.ReLU(), new Linear(widths[1], widths[2], generator));
            step = new Adam(model.parameters(), 1e-3).compile((x, y) -> model.forward(x).crossEntropy(y));
            batch = new Tensor[] {Tensor.randn(generator, rows, widths[0]), labels(rows, widths[2])};
            double first = step.apply(batch);
            Tensor bad = labels(rows, widths[2]).sub(widths[2]);
            if (checks.equals("on") && !rejects(() -> step.apply(batch[0], bad))) throw new IllegalStateException("a bad label passed the step's check");
            for (int i = 0; i < 200; i++) step.apply(batch);
            if (!(step.apply(batch) < first)) throw new IllegalStateException("200 steps did not lower the loss");
            settle(() -> step.apply(batch), step::explain);
        }
    }

    // Read when a program compiles: set before the state compiles its programs.
    static void useChecks(String checks) {
        if (!checks.equals("on") && !checks.equals("off")) throw new IllegalArgumentException("checks=" + checks + ": expected on or off");
        System.setProperty("smelt.indexChecks", String.valueOf(checks.equals("on")));
    }

    /// Calls until no kernel of the program is still on its scalar variant for want of a warm-up.
    static void settle(Runnable call, java.util.function.Supplier<String> explain) {
        long start = System.nanoTime();
        while (System.nanoTime() - start < 60_000_000_000L) {
            for (int i = 0; i < 100; i++) call.run();
            String text = explain.get();
            if (!text.contains("warming up") && !text.contains("not faster yet")) return;
        }
    }

    static Tensor labels(int rows, int classes) { return Tensor.of(IntStream.range(0, rows).map(i -> i * 7 % classes).toArray()); }

    static boolean rejects(Runnable call) {
        try {
            call.run();
            return false;
        } catch (SmeltException expected) {
            return expected.getMessage().startsWith("crossEntropy: target ");
        }
    }

    @Benchmark
    public Tensor crossEntropy(Loss state) { return state.loss.apply(state.arguments); }

    @Benchmark
    public double trainStep(Step state) { return state.step.apply(state.batch); }
}
