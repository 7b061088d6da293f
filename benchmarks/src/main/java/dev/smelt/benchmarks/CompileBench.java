// SPDX-License-Identifier: Apache-2.0
package dev.smelt.benchmarks;

import dev.smelt.Generator;
import dev.smelt.Jit;
import dev.smelt.Tensor;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;
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

/// What compiling [Chain#apply] costs. `compileLatency`: trace, fuse, emit and define in a
/// warm JVM (target: median < 5 ms). `firstCall`: compile plus the first call on 1M floats in a
/// fresh JVM, one shot per fork (target: median over the forks < 50 ms). Both use the default
/// number of threads, as a user's program would.
@OutputTimeUnit(TimeUnit.MILLISECONDS)
public class CompileBench {
    static final long SEED = 3;

    @State(Scope.Benchmark)
    public static class Warm {
        /// 1M floats; the size only appears in the kernel's text, so compiling costs the same at any size.
        @Param("1048576")
        public int size;

        Tensor x, y;
        private float constant = 1f;

        /// A constant never used before. Kernels are cached globally by their printed text
        /// (`dev.smelt.runtime.KernelCache`), which spells constants out in full, so a chain that
        /// multiplies by a new constant is a kernel the cache has never seen and must really be
        /// generated and defined; a new `Compiled` alone would only hit the cache.
        float nextConstant() {
            constant = Math.nextUp(constant);
            return constant;
        }

        static Jit.Function2 chainTimes(float c) {
            return (x, y) -> Chain.apply(x, y).mul(c);
        }

        @Setup
        public void kernelsAgree() {
            var generator = new Generator(SEED);
            x = Tensor.randn(generator, size);
            y = Tensor.randn(generator, size);
            var function = chainTimes(nextConstant());
            float[] compiled = Jit.compile(function).apply(x, y).toFloatArray();
            int n = Math.min(size, Chain.PREFIX);
            Tolerance.ELEMENTWISE.check("compiled vs interpreter", Chain.interpreted(function, x.toFloatArray(), y.toFloatArray(), n), Arrays.copyOf(compiled, n));
        }
    }

    /// A fresh chain compiled without running it: `explain(x, y)` compiles the signature of
    /// `x, y` (trace, fuse, generate and define the kernels) and describes it; building that text
    /// costs microseconds.
    @Benchmark
    @BenchmarkMode(Mode.SampleTime)
    @Warmup(iterations = 5, time = 1)
    @Measurement(iterations = 5, time = 1)
    @Fork(value = 1, jvmArgsAppend = {"--add-modules", "jdk.incubator.vector"})
    public String compileLatency(Warm warm) {
        return Jit.compile(Warm.chainTimes(warm.nextConstant())).explain(warm.x, warm.y);
    }

    /// The first call of a freshly compiled function in a warm JVM: compile plus one call on 1M
    /// floats, for a kernel never seen before (its classes are new, so their code starts in the
    /// bytecode interpreter: the case the scalar tier is for, where a fresh Vector API kernel took
    /// about 700 ms). One shot per measurement iteration, each a new function; the JVM (Smelt's
    /// own code) was warmed by [Warm]'s setup and the benchmark's warm-up shots.
    @Benchmark
    @BenchmarkMode(Mode.SingleShotTime)
    @Warmup(iterations = 5)
    @Measurement(iterations = 21)
    @Fork(value = 1, jvmArgsAppend = {"--add-modules", "jdk.incubator.vector"})
    public Tensor firstCallWarmJvm(Warm warm, Quiet quiet) {
        return Jit.compile(Warm.chainTimes(warm.nextConstant())).apply(warm.x, warm.y);
    }

    /// Before each shot, a pause for the previous shot's background work (the vector variant's
    /// warm-up and its C2 compile) to finish: each shot is then one first call in a quiet JVM, as
    /// a program meets it, rather than a burst of new kernels competing for the two cores.
    @State(Scope.Thread)
    public static class Quiet {
        @Setup(Level.Iteration)
        public void settle() throws InterruptedException { Thread.sleep(1500); }
    }

    @State(Scope.Benchmark)
    public static class Fresh {
        @Param("1048576")
        public int size;

        Tensor x, y, result;
        int calls;

        /// Only the inputs: nothing of the compiler may run before the timed call, or it would no
        /// longer be a first call. The check therefore comes after, in [#kernelAgreed].
        @Setup
        public void inputs() {
            var generator = new Generator(SEED);
            x = Tensor.randn(generator, size);
            y = Tensor.randn(generator, size);
        }

        /// The timed call's result against the interpreter, and against the hand-written loop.
        @TearDown
        public void kernelAgreed() {
            if (calls != 1)
                throw new IllegalStateException("firstCall ran %d times in one JVM, so only the first was a first call: run it with -wi 0 -i 1 (its defaults)".formatted(calls));
            float[] xs = x.toFloatArray(), ys = y.toFloatArray(), first = result.toFloatArray(), loop = new float[size];
            int n = Math.min(size, Chain.PREFIX);
            Tolerance.ELEMENTWISE.check("first call vs interpreter", Chain.interpreted(Chain::apply, xs, ys, n), Arrays.copyOf(first, n));
            ChainBench.fusedLoop(xs, ys, loop);
            Tolerance.ELEMENTWISE.check("first call vs hand-written loop", loop, first);
        }
    }

    /// One shot per fresh JVM; ten forks give the median. This also pays for loading and linking
    /// the compiler itself (about 150 classes, their lambdas and pattern-switch bootstraps).
    @Benchmark
    @BenchmarkMode(Mode.SingleShotTime)
    @Warmup(iterations = 0)
    @Measurement(iterations = 1)
    @Fork(value = 10, jvmArgsAppend = {"--add-modules", "jdk.incubator.vector"})
    public Tensor firstCall(Fresh fresh) {
        fresh.calls++;
        fresh.result = Jit.compile(Chain::apply).apply(fresh.x, fresh.y);
        return fresh.result;
    }
}
