// SPDX-License-Identifier: Apache-2.0
package dev.smelt.benchmarks;

import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorSpecies;
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

/// STREAM-style read bandwidth: the sum of a 256 MB float array (8× this host's L3), with the Vector
/// API and four accumulators, on one thread and split in halves over two. The ceiling a GEMV that
/// streams its weights can reach ([GemvBench], same run): GB/s = bytes / time. The loads start at
/// [#LINE_START], on a 64-byte boundary, as the GEMV's do: G1 puts an array this large at a
/// region's start and its elements 16 bytes after (a 16-byte header), and 64-byte loads from
/// element 0 would each straddle two cache lines (1.2–1.4× slower on Zen 5).
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"--add-modules", "jdk.incubator.vector", "-Xmx2g"})
public class ReadBandwidthBench {
    private static final VectorSpecies<Float> F = FloatVector.SPECIES_PREFERRED;

    /// The first element on a 64-byte boundary of a large array (G1, 16-byte array header); the
    /// elements before it are added one by one.
    static final int LINE_START = 12;

    @Param({"1", "2"})
    public int threads;

    @Param("67108864")
    public int size;

    private float[] values;
    private ExecutorService pool;

    @Setup
    public void setUp() {
        values = new float[size];
        for (int i = 0; i < size; i++) values[i] = (i & 7) * 0.125f;
        pool = Executors.newSingleThreadExecutor();
        double expected = 0;
        for (int i = 0; i < size; i++) expected += values[i];
        if (Math.abs(sum() - expected) > 1e-3 * expected) throw new IllegalStateException("sum " + sum() + " against " + expected);
    }

    @TearDown
    public void tearDown() { pool.shutdownNow(); }

    @Benchmark
    public float sum() {
        if (threads == 1) return sum(values, 0, size);
        int half = LINE_START + (size - LINE_START) / 2 / 16 * 16; // both halves start on a boundary
        Future<Float> second = pool.submit(() -> sum(values, half, size));
        float first = sum(values, 0, half);
        try {
            return first + second.get();
        } catch (InterruptedException | ExecutionException e) {
            throw new IllegalStateException(e);
        }
    }

    /// The sum of `a[from, to)` in four vector chains, aligned loads from [#LINE_START] on (also
    /// `LlamaBench.read`, the bound of one token's weights).
    static float sum(float[] a, int from, int to) {
        FloatVector s0 = FloatVector.zero(F), s1 = s0, s2 = s0, s3 = s0;
        int i = Math.max(from, LINE_START), step = F.length();
        for (; i + 4 * step <= to; i += 4 * step) {
            s0 = s0.add(FloatVector.fromArray(F, a, i));
            s1 = s1.add(FloatVector.fromArray(F, a, i + step));
            s2 = s2.add(FloatVector.fromArray(F, a, i + 2 * step));
            s3 = s3.add(FloatVector.fromArray(F, a, i + 3 * step));
        }
        float total = s0.add(s1).add(s2.add(s3)).reduceLanes(VectorOperators.ADD);
        for (; i < to; i++) total += a[i];
        for (int j = from; j < Math.min(to, LINE_START); j++) total += a[j];
        return total;
    }
}
