// SPDX-License-Identifier: Apache-2.0
package dev.smelt.benchmarks;

import dev.smelt.models.llama.Llama2Config;
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
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/// The ceiling of a decode's matrix-vector products on this machine, without Smelt: 256 tokens of
/// [HandGemvChain], a Llama shape's GEMVs written by hand. `LlamaBench.decode` reads the same bytes
/// and does attention, norms and the rest besides, so its two-thread gain over one is at most about
/// this one's; compare both in one run (`LlamaBench.decodeBesideLoop` runs this chain and the
/// decode in one fork).
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = {"--add-modules", "jdk.incubator.vector", "-Xmx3g"})
public class GemvChainBench {
    @Param({"stories15M", "stories110M"})
    public String shape;

    @Param({"1", "2"})
    public int threads;

    /// Whether each matrix starts on a 64-byte line, as Smelt's f32 GEMV reads W (see
    /// [HandGemvChain#HandGemvChain]); with `false` every 64-byte load of W straddles two lines.
    @Param({"true", "false"})
    public boolean aligned;

    private HandGemvChain chain;

    @Setup
    public void setUp() {
        Llama2Config config = shape.equals("stories15M") ? Llama2Config.STORIES_15M : Llama2Config.STORIES_110M;
        chain = new HandGemvChain(config, threads, aligned);
    }

    @TearDown
    public void tearDown() throws InterruptedException { chain.close(); }

    @Benchmark
    public float decode() { return chain.decode(LlamaBench.TOKENS); }
}
