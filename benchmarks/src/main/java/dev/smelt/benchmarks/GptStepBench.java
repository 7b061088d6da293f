// SPDX-License-Identifier: Apache-2.0
package dev.smelt.benchmarks;

import dev.smelt.Generator;
import dev.smelt.Tensor;
import dev.smelt.ir.FusionMode;
import dev.smelt.models.gpt.Gpt;
import dev.smelt.optim.Adam;
import dev.smelt.optim.TrainStep;
import java.util.Random;
import java.util.concurrent.TimeUnit;
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

/// One AdamW training step of a GPT-2-style model ([Gpt]: vocabulary 4096, 4 blocks of width 256
/// with 4 heads, 128 tokens, batch 8), the transformer workload of issue 20. `compiled`: the
/// [TrainStep] as planned; `unfused`: the same step with every operation its own kernel
/// (`FusionMode.NONE`). PyTorch 1.13's eager step on the same model is `benchmarks/gpt/gpt_step.py`
/// (run it in the same session). Threads: Smelt's default (every core); pass
/// `-jvmArgsPrepend -Dsmelt.threads=1` for one. The learning rate is 0 after `@Setup`'s check, so the
/// timed steps run the same program without training the model into another regime.
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
// 90 s of warm-up: the step reaches steady state only once C2 has compiled its kernels' vector
// variants one by one on the one C2 thread of a 2-core machine (about 30 s quiet, over a minute
// busy); a warm-up shorter than that times mostly the compiles.
@Warmup(iterations = 45, time = 2)
@Measurement(iterations = 10, time = 2)
@Fork(value = 1, jvmArgsAppend = {"--add-modules", "jdk.incubator.vector"})
public class GptStepBench {
    @Param("4")
    public int layers;

    @Param("8")
    public int batch;

    Tensor x, y;
    TrainStep compiled, unfused;

    @Setup
    public void stepsAgree() {
        var config = new Gpt.Config(4096, 128, 256, 4, layers);
        Gpt fusedModel = new Gpt(config, new Generator(1)), unfusedModel = new Gpt(config, new Generator(1));
        var fusedOptimizer = Adam.adamW(fusedModel.parameters(), 3e-4, 0.01);
        var unfusedOptimizer = Adam.adamW(unfusedModel.parameters(), 3e-4, 0.01);
        compiled = fusedOptimizer.compile((a, b) -> fusedModel.loss(a, b));
        unfused = unfusedOptimizer.compile((a, b) -> unfusedModel.loss(a, b)).withFusion(FusionMode.NONE);
        var random = new Random(2);
        int[] tokens = new int[batch * 128], targets = new int[batch * 128];
        for (int i = 0; i < tokens.length; i++) {
            tokens[i] = random.nextInt(4096);
            targets[i] = random.nextInt(4096);
        }
        x = Tensor.of(tokens).reshape(batch, 128);
        y = Tensor.of(targets).reshape(batch, 128);
        for (int step = 0; step < 2; step++) {
            double fused = compiled.apply(x, y), reference = unfused.apply(x, y);
            if (!(Math.abs(fused - reference) <= 1e-4 * Math.abs(reference)))
                throw new AssertionError("step %d: loss %s fused vs %s unfused".formatted(step, fused, reference));
        }
        fusedOptimizer.learningRate(0);
        unfusedOptimizer.learningRate(0);
    }

    @Benchmark
    public double compiled() { return compiled.apply(x, y); }

    @Benchmark
    public double unfused() { return unfused.apply(x, y); }
}
