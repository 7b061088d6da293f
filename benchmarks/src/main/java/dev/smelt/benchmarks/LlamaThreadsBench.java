// SPDX-License-Identifier: Apache-2.0
package dev.smelt.benchmarks;

import dev.smelt.Generator;
import dev.smelt.WeightFormat;
import dev.smelt.models.llama.Llama2;
import dev.smelt.models.llama.Llama2Checkpoint;
import dev.smelt.models.llama.Llama2Config;
import dev.smelt.models.llama.Llama2Session;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
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
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/// Two threads against one in the same fork: `decodeOneThenTwo` decodes 256 f32 tokens with a model
/// whose programs run on one thread, then 256 with one whose programs run on two, and reports each
/// as a secondary result (`oneThreadMs`, `twoThreadsMs`: JMH adds these up over the measured
/// iterations), so that `oneThreadMs / twoThreadsMs` is the speed-up measured in one process and
/// the same seconds. In forks of their own
/// (`LlamaBench -jvmArgsPrepend -Dsmelt.threads=…`) the two figures come from minutes apart, and
/// on these shared VMs one fork's memory bandwidth differs from the next one's by up to 1.5×, as
/// much as the speed-up itself. A program takes its thread count when it is compiled
/// (`-Dsmelt.threads`, read at a model's first token), so the set-up sets it before each model's
/// first token and restores it after.
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 3, time = 5)
@Measurement(iterations = 6, time = 5)
@Fork(value = 1, jvmArgsAppend = {"--add-modules", "jdk.incubator.vector", "-Xmx3g"})
public class LlamaThreadsBench {
    @Param({"stories15M", "stories110M"})
    public String shape;

    Path file;
    final Llama2Session[] sessions = new Llama2Session[2]; // one thread, two threads
    int[] prompt;

    @Setup(Level.Trial)
    public void setUp() throws IOException {
        Llama2Config config = shape.equals("stories15M") ? Llama2Config.STORIES_15M : Llama2Config.STORIES_110M;
        file = Files.createTempFile("llama-threads-bench", ".bin");
        Llama2Checkpoint.writeRandom(file, config, new Generator(1));
        prompt = new int[LlamaBench.PROMPT];
        for (int i = 0; i < prompt.length; i++) prompt[i] = 1 + (i * 7919) % (config.vocab() - 1);
        String threads = System.getProperty("smelt.threads");
        try {
            for (int t = 0; t < 2; t++) {
                System.setProperty("smelt.threads", String.valueOf(t + 1));
                sessions[t] = new Llama2(Llama2Checkpoint.read(file, WeightFormat.F32)).session();
                for (float logit : sessions[t].next(1)) if (!Float.isFinite(logit)) throw new AssertionError("a non-finite logit");
            }
        } finally {
            if (threads == null) System.clearProperty("smelt.threads");
            else System.setProperty("smelt.threads", threads);
        }
    }

    @TearDown(Level.Trial)
    public void tearDown() throws IOException { Files.deleteIfExists(file); }

    /// The secondary results: milliseconds of decoding on one thread and on two, and how many ops
    /// (one decode of each: one thread's decode takes `oneThreadMs / decodes`).
    @AuxCounters(AuxCounters.Type.EVENTS)
    @State(Scope.Thread)
    public static class Times {
        public double oneThreadMs, twoThreadsMs;
        public long decodes;

        @Setup(Level.Iteration)
        public void clear() {
            oneThreadMs = twoThreadsMs = 0;
            decodes = 0;
        }
    }

    @Benchmark
    public float decodeOneThenTwo(Times times) {
        long start = System.nanoTime();
        float sum = LlamaBench.decode(sessions[0], prompt);
        long one = System.nanoTime();
        sum += LlamaBench.decode(sessions[1], prompt);
        times.oneThreadMs += (one - start) / 1e6;
        times.twoThreadsMs += (System.nanoTime() - one) / 1e6;
        times.decodes++;
        return sum;
    }
}
