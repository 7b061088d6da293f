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

/// Llama 2 decoding on a random-weight llama2.c checkpoint of the stories15M or stories110M shape
/// (written to a temporary file in `@Setup`). `decode`: 256 tokens from position 0, one
/// [Llama2Session#next] each, as llama2.c's `run.c` reports its tokens per second (tok/s = 256 /
/// the time per op); `prefill`: a 128-token prompt as one batch (tok/s = 128 / the time per op).
/// `read` streams the same bytes as one token's weights (a vectorised sum over a `float[]` of
/// the checkpoint's size, one thread, from its first element on a 64-byte boundary, as the GEMV
/// reads its weights), the bandwidth bound for one thread (of f32 weights: `format` does not
/// change it). `format` reads the matrices as f32, bf16 or int8
/// ([Llama2Checkpoint#read(Path, WeightFormat)]), so one run gives each format's tokens/s against
/// f32's. Threads: `-jvmArgsPrepend -Dsmelt.threads=1` (or 2); compare with `benchmarks/llama2c` in
/// the same session.
///
/// `decodeBesideRead` is `decode` followed by [#READS] `read`s in the same fork, with their times as
/// secondary results: `decodeMs` and `boundMs` (the reads' time scaled to 256 tokens' worth), so
/// `boundMs / decodeMs` is the fraction of the bandwidth bound the decode reaches, both measured in
/// the same process and minutes. `decodeBesideLoop` (`-p format=F32`) runs [HandGemvChain]'s
/// hand-written products of 256 tokens (W from a line boundary, on `smelt.threads` threads, at
/// most two) between the two, as `loopMs`: the ceiling of the decode's products in Java,
/// beside the bound. On these VMs a fork's read bandwidth differs by up to 1.5× from the next
/// fork's (2026-11-28, Zen 5: 22–36 GB/s one thread), so `read` and `decode` in forks of their own
/// give a ratio that varies as much.
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 3, time = 5)
@Measurement(iterations = 5, time = 5)
@Fork(value = 1, jvmArgsAppend = {"--add-modules", "jdk.incubator.vector", "-Xmx3g"})
public class LlamaBench {
    static final int TOKENS = 256, PROMPT = 128;

    @Param({"stories15M", "stories110M"})
    public String shape;

    @Param({"F32", "BF16", "INT8"})
    public WeightFormat format;

    Path file;
    Llama2 model;
    Llama2Session session, prefillSession;
    int[] prompt;
    float[] weights;

    @Setup(Level.Trial)
    public void setUp() throws IOException {
        Llama2Config config = shape.equals("stories15M") ? Llama2Config.STORIES_15M : Llama2Config.STORIES_110M;
        file = Files.createTempFile("llama-bench", ".bin");
        Llama2Checkpoint.writeRandom(file, config, new Generator(1));
        model = new Llama2(Llama2Checkpoint.read(file, format));
        session = model.session();
        prefillSession = model.session();
        prompt = new int[PROMPT];
        for (int i = 0; i < PROMPT; i++) prompt[i] = 1 + (i * 7919) % (config.vocab() - 1);
        weights = new float[(int) Math.min(Integer.MAX_VALUE - 8, config.floats())];
        java.util.Arrays.fill(weights, 1);
        // the decoded logits equal the whole-sequence forward's (checked in Llama2SessionTest); here, that they are finite
        session.reset();
        for (float logit : session.next(1)) if (!Float.isFinite(logit)) throw new AssertionError("a non-finite logit");
    }

    @TearDown(Level.Trial)
    public void tearDown() throws IOException { Files.deleteIfExists(file); }

    @Benchmark
    public float decode() { return decode(session, prompt); }

    /// [#TOKENS] tokens from position 0, the prompt's in turn.
    static float decode(Llama2Session session, int[] prompt) {
        session.reset();
        float sum = 0;
        for (int i = 0; i < TOKENS; i++) sum += session.next(prompt[i % prompt.length])[0];
        return sum;
    }

    @Benchmark
    public float prefill() {
        prefillSession.reset();
        return prefillSession.prefill(prompt)[0];
    }

    /// Reads after each decode in `decodeBesideRead`: about 6% of its time at stories110M f32.
    static final int READS = 16;

    /// `decodeBesideRead`'s secondary results, summed over the measured iterations: milliseconds of
    /// decoding 256 tokens, of reading the weights' bytes 256 times (the bound), and how many
    /// decodes: one decode's time is `decodeMs / decodes`, the fraction of the bound `boundMs / decodeMs`.
    @AuxCounters(AuxCounters.Type.EVENTS)
    @State(Scope.Thread)
    public static class Times {
        public double decodeMs, boundMs;
        public long decodes;

        @Setup(Level.Iteration)
        public void clear() {
            decodeMs = boundMs = 0;
            decodes = 0;
        }
    }

    @Benchmark
    public float decodeBesideRead(Times times) {
        long start = System.nanoTime();
        float sum = decode();
        long decoded = System.nanoTime();
        for (int r = 0; r < READS; r++) sum += read();
        times.decodeMs += (decoded - start) / 1e6;
        times.boundMs += (System.nanoTime() - decoded) / 1e6 * TOKENS / READS;
        times.decodes++;
        return sum;
    }

    /// `decodeBesideLoop`'s secondary results: as [Times], and the hand-written products' milliseconds.
    @AuxCounters(AuxCounters.Type.EVENTS)
    @State(Scope.Thread)
    public static class LoopTimes {
        public double decodeMs, loopMs, boundMs;
        public long decodes;

        @Setup(Level.Iteration)
        public void clear() {
            decodeMs = loopMs = boundMs = 0;
            decodes = 0;
        }
    }

    /// The hand-written products of `decodeBesideLoop`, made only for it (438 MB at stories110M).
    @State(Scope.Benchmark)
    public static class Loop {
        HandGemvChain chain;

        @Setup(Level.Trial)
        public void setUp(LlamaBench bench) {
            if (bench.format != WeightFormat.F32) throw new IllegalStateException("decodeBesideLoop compares f32 products: -p format=F32");
            chain = new HandGemvChain(bench.model.config(), Math.clamp(Integer.getInteger("smelt.threads", 1), 1, 2), true); // the chain splits in two at most
        }

        @TearDown(Level.Trial)
        public void tearDown() throws InterruptedException { chain.close(); }
    }

    @Benchmark
    public float decodeBesideLoop(Loop loop, LoopTimes times) {
        long start = System.nanoTime();
        float sum = decode();
        long decoded = System.nanoTime();
        sum += loop.chain.decode(TOKENS);
        long looped = System.nanoTime();
        for (int r = 0; r < READS; r++) sum += read();
        times.decodeMs += (decoded - start) / 1e6;
        times.loopMs += (looped - decoded) / 1e6;
        times.boundMs += (System.nanoTime() - looped) / 1e6 * TOKENS / READS;
        times.decodes++;
        return sum;
    }

    @Benchmark
    public float read() {
        return ReadBandwidthBench.sum(weights, 0, weights.length);
    }
}
