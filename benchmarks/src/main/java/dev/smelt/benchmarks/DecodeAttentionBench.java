// SPDX-License-Identifier: Apache-2.0
package dev.smelt.benchmarks;

import dev.smelt.Compiled;
import dev.smelt.Generator;
import dev.smelt.Jit;
import dev.smelt.Tensor;
import dev.smelt.ir.DType;
import java.util.List;
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
import org.openjdk.jmh.annotations.Warmup;

/// A decode step's attention as stories110M runs it: one query per head, 12 heads of 64, over a
/// KV cache of 1,024 positions through a mask that keeps those up to `position`, one layer's cache
/// after another (12 layers), one thread. Between two calls a 32 MB array is read a twelfth at a
/// time, so that each call finds its cache rows in memory, as a decode does after streaming the
/// layer's weights. The op is the 12 calls and the reads; `callUs` (a secondary result, summed over
/// the iteration, with `calls`) is the calls' own time: one call is `callUs / calls` µs.
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = {"--add-modules", "jdk.incubator.vector", "-Dsmelt.threads=1", "-Xmx3g", "-XX:+UseTransparentHugePages"})
public class DecodeAttentionBench {
    static final int HEADS = 12, POSITIONS = 1024, DEPTH = 64, LAYERS = 12;

    @Param({"127", "255", "1000"})
    public int position;

    Compiled attention;
    Tensor query, at;
    Tensor[] keys = new Tensor[LAYERS], values = new Tensor[LAYERS];
    float[] evict = new float[32 << 20 >> 2];

    @Setup(Level.Trial)
    public void setUp() {
        var generator = new Generator(3);
        query = Tensor.randn(generator, HEADS, 1, DEPTH);
        for (int l = 0; l < LAYERS; l++) {
            keys[l] = Tensor.randn(generator, HEADS, POSITIONS, DEPTH);
            values[l] = Tensor.randn(generator, HEADS, POSITIONS, DEPTH);
        }
        at = Tensor.zeros(DType.I32);
        at.set(position);
        attention = Jit.compile(a -> List.of(Tensor.scaledDotProductAttention(a.get(0), a.get(1), a.get(2),
                Tensor.arange(POSITIONS).le(a.get(3)).reshape(1, POSITIONS))), 4);
        java.util.Arrays.fill(evict, 1);
    }

    /// `decode`'s secondary results, summed over the iteration: the calls' microseconds, and how many.
    @AuxCounters(AuxCounters.Type.EVENTS)
    @State(Scope.Thread)
    public static class Calls {
        public double callUs;
        public long calls;

        @Setup(Level.Iteration)
        public void clear() {
            callUs = 0;
            calls = 0;
        }
    }

    @Benchmark
    public float decode(Calls calls) {
        float sum = 0;
        int chunk = evict.length / LAYERS;
        for (int l = 0; l < LAYERS; l++) {
            for (int i = l * chunk, end = i + chunk; i < end; i += 16) sum += evict[i];
            long start = System.nanoTime();
            Tensor out = attention.apply(query, keys[l], values[l], at);
            calls.callUs += (System.nanoTime() - start) / 1e3;
            calls.calls++;
            sum += (float) out.get(0, 0, 0);
        }
        return sum;
    }
}
