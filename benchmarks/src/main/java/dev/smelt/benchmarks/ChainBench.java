// SPDX-License-Identifier: Apache-2.0
package dev.smelt.benchmarks;

import dev.smelt.Compiled;
import dev.smelt.Generator;
import dev.smelt.Jit;
import dev.smelt.Tensor;
import java.util.Arrays;
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

/// `relu((sin(x)·cos(y) + x)·y)` over two f32 vectors on one thread, side by side: `compiled` (one
/// fused kernel from [Jit#compile], a new result per call), `compiledInto` (the same kernel writing
/// into a tensor allocated once, [Compiled#applyInto]), `eager` (Smelt eager: each op its own kernel
/// and its own output array), `handWritten` (the fused loop written with the Vector API, into an
/// array allocated once) and `handWrittenNewArray` (the same loop allocating its result).
/// Like for like: compiledInto vs handWritten, compiled vs handWrittenNewArray.
/// Targets: compiledInto within 1.1× of handWritten, ≥ 2× eager at 16M, and ≥ 2× / ≥ 10× faster
/// than PyTorch 1.13 eager's 3.6 ms / 260 ms at 1M / 16M on this machine (`report.py` checks them).
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
// Large kernels start on their scalar variant and switch to the vector one after a background
// warm-up of up to 3 s (TieredKernel); five 1 s warm-up iterations cover it.
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"--add-modules", "jdk.incubator.vector", "-Dsmelt.threads=1"})
public class ChainBench {
    static final VectorSpecies<Float> SPECIES = FloatVector.SPECIES_PREFERRED;
    static final long SEED = 42;

    /// 1M and 16M floats; `-p size=4096` runs it small.
    @Param({"1048576", "16777216"})
    public int size;

    Tensor x, y, into;
    float[] xs, ys, out;
    Compiled compiledChain;

    /// Builds the inputs and the compiled function (its first call, which compiles, happens here),
    /// and refuses to time variants that disagree with each other or with the interpreter.
    @Setup
    public void kernelsAgree() {
        var generator = new Generator(SEED);
        x = Tensor.randn(generator, size);
        y = Tensor.randn(generator, size);
        xs = x.toFloatArray();
        ys = y.toFloatArray();
        out = new float[size];
        into = Tensor.zeros(size);
        compiledChain = Jit.compile(Chain::apply);
        float[] fused = compiled().toFloatArray();
        int prefix = Math.min(size, Chain.PREFIX);
        Tolerance.ELEMENTWISE.check("compiled vs interpreter", Chain.interpreted(Chain::apply, xs, ys, prefix), Arrays.copyOf(fused, prefix));
        Tolerance.ELEMENTWISE.check("compiledInto vs compiled", fused, compiledInto().toFloatArray());
        Tolerance.ELEMENTWISE.check("eager vs compiled", fused, eager().toFloatArray());
        Tolerance.ELEMENTWISE.check("handWritten vs compiled", fused, handWritten());
    }

    /// After the timed iterations the tiered kernels run their vector variants: check those too.
    @TearDown
    public void kernelsStillAgree() {
        float[] fused = compiled().toFloatArray();
        Tolerance.ELEMENTWISE.check("compiled (warmed up) vs handWritten", handWritten(), fused);
        into = Tensor.zeros(size); // a blank target, so a call that writes nothing cannot pass
        Tolerance.ELEMENTWISE.check("compiledInto (warmed up) vs compiled", fused, compiledInto().toFloatArray());
        Tolerance.ELEMENTWISE.check("eager (warmed up) vs compiled", fused, eager().toFloatArray());
    }

    @Benchmark
    public Tensor compiled() {
        return compiledChain.apply(x, y);
    }

    /// compiled into a tensor allocated once in @Setup, as handWritten writes into its array.
    @Benchmark
    public Tensor compiledInto() {
        return compiledChain.applyInto(into, x, y);
    }

    @Benchmark
    public Tensor eager() {
        return Chain.apply(x, y);
    }

    @Benchmark
    public float[] handWritten() {
        fusedLoop(xs, ys, out);
        return out;
    }

    /// handWritten into a new array per call, as `compiled` and `eager` return theirs: the
    /// difference to handWritten is the cost of allocating (zeroing) the result.
    @Benchmark
    public float[] handWrittenNewArray() {
        float[] result = new float[size];
        fusedLoop(xs, ys, result);
        return result;
    }

    /// The chain as one Vector API loop with a scalar tail: what the fused kernel should compile to.
    static void fusedLoop(float[] x, float[] y, float[] out) {
        int i = 0;
        for (int bound = SPECIES.loopBound(x.length); i < bound; i += SPECIES.length()) {
            var vx = FloatVector.fromArray(SPECIES, x, i);
            var vy = FloatVector.fromArray(SPECIES, y, i);
            // FloatVector.max follows Math.max: NaN if either is NaN, and max(-0, 0) = +0, as relu
            vx.lanewise(VectorOperators.SIN).mul(vy.lanewise(VectorOperators.COS)).add(vx).mul(vy).max(0f).intoArray(out, i);
        }
        for (; i < x.length; i++)
            out[i] = Math.max(((float) Math.sin(x[i]) * (float) Math.cos(y[i]) + x[i]) * y[i], 0f);
    }
}
