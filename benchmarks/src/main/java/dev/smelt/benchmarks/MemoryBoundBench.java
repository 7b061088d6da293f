// SPDX-License-Identifier: Apache-2.0
package dev.smelt.benchmarks;

import dev.smelt.Compiled;
import dev.smelt.Generator;
import dev.smelt.Jit;
import dev.smelt.Tensor;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import jdk.incubator.vector.FloatVector;
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

/// `a·b + c` over f32[16M]: memory bound, 16 bytes per element (three reads, one write). `compiled`
/// (a new result per call) and `compiledInto` (into a tensor allocated once, [Compiled#applyInto])
/// are measured against STREAM's `triad` (`a = b + s·c`, 12 bytes per element) written with the
/// Vector API, the same `a·b + c` loop by hand (`handWritten` into an array allocated once,
/// `handWrittenNewArray` into a new one), and a plain scalar loop. Target: compiledInto moves ≥ 80%
/// of the triad's GB/s (both write into an existing array). The two subclasses fork with `-Dsmelt.threads=1` and `=2`; the hand
/// loops split their range the same way over a plain thread pool. `report.py` converts to GB/s.
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 5, time = 1) // covers the background warm-up of the vector variant (TieredKernel)
@Measurement(iterations = 5, time = 1)
public abstract class MemoryBoundBench {
    static final VectorSpecies<Float> SPECIES = FloatVector.SPECIES_PREFERRED;
    static final long SEED = 7;
    static final float SCALAR = 3f;
    static final int PREFIX = 1 << 12;

    @Fork(value = 1, jvmArgsAppend = {"--add-modules", "jdk.incubator.vector", "-Dsmelt.threads=1"})
    public static class OneThread extends MemoryBoundBench {}

    @Fork(value = 1, jvmArgsAppend = {"--add-modules", "jdk.incubator.vector", "-Dsmelt.threads=2"})
    public static class TwoThreads extends MemoryBoundBench {}

    /// 16M floats: 64 MB per array, far beyond the caches. `-p size=4096` runs it small.
    @Param("16777216")
    public int size;

    /// The same property the compiled kernels read, so both sides use the same number of threads.
    final int threads = Integer.getInteger("smelt.threads", 1);

    Tensor a, b, c, into;
    float[] as, bs, cs, out;
    Compiled compiledMulAdd;
    ExecutorService pool;

    static Tensor mulAdd(Tensor a, Tensor b, Tensor c) {
        return a.mul(b).add(c);
    }

    /// A range `[start, end)` of elements, run on one thread.
    interface Block {
        void run(int start, int end);
    }

    @Setup
    public void kernelsAgree() {
        pool = Executors.newFixedThreadPool(Math.max(1, threads - 1));
        var generator = new Generator(SEED);
        a = Tensor.randn(generator, size);
        b = Tensor.randn(generator, size);
        c = Tensor.randn(generator, size);
        as = a.toFloatArray();
        bs = b.toFloatArray();
        cs = c.toFloatArray();
        out = new float[size];
        into = Tensor.zeros(size);
        compiledMulAdd = Jit.compile(MemoryBoundBench::mulAdd);
        float[] fused = compiled().toFloatArray();
        int n = Math.min(size, PREFIX);
        Tolerance.EXACT.check("compiled vs interpreter", interpreted(n), Arrays.copyOf(fused, n));
        Tolerance.EXACT.check("compiledInto vs compiled", fused, compiledInto().toFloatArray());
        Tolerance.EXACT.check("handWritten vs compiled", fused, handWritten().clone());
        Tolerance.EXACT.check("handWrittenNewArray vs compiled", fused, handWrittenNewArray());
        Tolerance.EXACT.check("scalarLoop vs compiled", fused, scalarLoop().clone());
        float[] expected = new float[size];
        for (int i = 0; i < size; i++) expected[i] = bs[i] + SCALAR * cs[i];
        Tolerance.EXACT.check("triad vs its formula", expected, triad());
    }

    /// After the timed iterations the tiered kernel runs its vector variant: check it too.
    @TearDown
    public void kernelsStillAgree() {
        try {
            float[] fused = compiled().toFloatArray();
            Tolerance.EXACT.check("compiled (warmed up) vs handWritten", handWritten().clone(), fused);
            into = Tensor.zeros(size); // a blank target, so a call that writes nothing cannot pass
            Tolerance.EXACT.check("compiledInto (warmed up) vs compiled", fused, compiledInto().toFloatArray());
        } finally {
            pool.shutdownNow();
        }
    }

    @Benchmark
    public Tensor compiled() {
        return compiledMulAdd.apply(a, b, c);
    }

    /// compiled into a tensor allocated once in @Setup, as handWritten and triad write into theirs.
    @Benchmark
    public Tensor compiledInto() {
        return compiledMulAdd.applyInto(into, a, b, c);
    }

    @Benchmark
    public float[] handWritten() {
        return mulAddInto(out);
    }

    /// handWritten into a new array per call, as `compiled` returns its result: the difference to
    /// handWritten is the cost of allocating (zeroing) 64 MB.
    @Benchmark
    public float[] handWrittenNewArray() {
        return mulAddInto(new float[size]);
    }

    private float[] mulAddInto(float[] target) {
        inBlocks((start, end) -> {
            int i = start;
            for (int bound = start + SPECIES.loopBound(end - start); i < bound; i += SPECIES.length())
                FloatVector.fromArray(SPECIES, as, i).mul(FloatVector.fromArray(SPECIES, bs, i))
                        .add(FloatVector.fromArray(SPECIES, cs, i)).intoArray(target, i);
            for (; i < end; i++) target[i] = as[i] * bs[i] + cs[i];
        });
        return target;
    }

    /// The same `a·b + c` as a plain loop, which C2 may vectorise by itself.
    @Benchmark
    public float[] scalarLoop() {
        inBlocks((start, end) -> {
            for (int i = start; i < end; i++) out[i] = as[i] * bs[i] + cs[i];
        });
        return out;
    }

    /// STREAM's triad `a[i] = b[i] + s·c[i]`, the memory-bandwidth baseline (two reads, one write).
    @Benchmark
    public float[] triad() {
        inBlocks((start, end) -> {
            int i = start;
            for (int bound = start + SPECIES.loopBound(end - start); i < bound; i += SPECIES.length())
                FloatVector.fromArray(SPECIES, cs, i).mul(SCALAR).add(FloatVector.fromArray(SPECIES, bs, i)).intoArray(out, i);
            for (; i < end; i++) out[i] = bs[i] + SCALAR * cs[i];
        });
        return out;
    }

    /// Runs `block` over one range per thread, the first on this thread and the rest on the pool,
    /// with boundaries on multiples of 64 elements, as the runtime's Executor splits a kernel.
    private void inBlocks(Block block) {
        var rest = new ArrayList<Future<?>>();
        for (int t = 1; t < threads; t++) {
            int start = boundary(t), end = boundary(t + 1);
            rest.add(pool.submit(() -> block.run(start, end)));
        }
        block.run(0, boundary(1));
        try {
            for (var future : rest) future.get();
        } catch (InterruptedException | ExecutionException e) {
            throw new IllegalStateException(e);
        }
    }

    private int boundary(int t) {
        return t >= threads ? size : (int) ((long) size * t / threads / 64 * 64);
    }

    private float[] interpreted(int n) {
        Tensor pa = prefix(as, n), pb = prefix(bs, n), pc = prefix(cs, n);
        return Jit.trace(MemoryBoundBench::mulAdd, pa, pb, pc).interpret(pa, pb, pc).getFirst().toFloatArray();
    }

    private static Tensor prefix(float[] data, int n) {
        return Tensor.of(Arrays.copyOf(data, n), n);
    }
}
