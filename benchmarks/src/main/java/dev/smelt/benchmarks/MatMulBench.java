// SPDX-License-Identifier: Apache-2.0
package dev.smelt.benchmarks;

import dev.smelt.Compiled;
import dev.smelt.Generator;
import dev.smelt.Jit;
import dev.smelt.Tensor;
import dev.smelt.fusion.FusionPlanner;
import dev.smelt.kernel.KernelFunction;
import dev.smelt.kernel.MatMulKernel;
import dev.smelt.runtime.matmul.MatMulFunction;
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

/// The generated matmul (f32). `report.py` turns times into GFLOP/s (2·M·N·K per call) and checks
/// the targets:
/// - [Square]: sgemm n³ for n = 128…2048 on one thread ([Square.OneThread], `-Dsmelt.threads=1`)
///   and two ([Square.TwoThreads]); ≥ 85 GFLOP/s at 1024 on one, ≥ 1.8× that on two;
/// - [Mlp]: 128×784·784×256, plain, and `relu(x@w + b)` fused against the matmul followed by a
///   separately compiled `relu(y + b)`; fused ≥ 1.2× faster (also at 4096×64·64×1024, and the
///   most fusion can save at each shape);
/// - [Transposes]: `x@w`, `xᵀ@w`, `x@wᵀ`, `xᵀ@wᵀ` at 1024, read in place; each within 15% of `x@w`;
/// - [Tiny]: 8³ and 32³ per call against a naive triple loop; ≥ 5× faster. `kernelOnly` calls the
///   matmul's kernel function on arrays directly, without `Compiled.apply`'s per-call work
///   (signature check, buffer allocation), to show which of the two the time goes to; `overhead`
///   is that per-call work alone (a compiled `a + b` on one element each), and `eagerOverhead` the
///   same op run eagerly (tracing a one-op graph, finding its program, running it).
///
/// The nested classes extend this one for its (inherited) JMH settings. Every state checks its results against a double-precision triple loop in `@Setup`, within
/// K·ε·Σ|a||b| per element (f32 summation's bound), before anything is timed.
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 5, time = 1) // covers the background warm-up of the vector micro-kernel
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"--add-modules", "jdk.incubator.vector", "-Dsmelt.threads=1"})
public abstract class MatMulBench {
    static final long SEED = 5;

    static Tensor matmul(Tensor a, Tensor b) { return a.matmul(b); }

    @State(Scope.Benchmark)
    public abstract static class Square extends MatMulBench {
        @Param({"128", "256", "512", "1024", "2048"})
        public int size;
        Tensor a, b;
        Compiled compiled = Jit.compile(MatMulBench::matmul);

        @Setup
        public void kernelsAgree() {
            var generator = new Generator(SEED);
            a = Tensor.randn(generator, size, size);
            b = Tensor.randn(generator, size, size);
            Reference.check("sgemm " + size, a.toFloatArray(), b.toFloatArray(), sgemm().toFloatArray(), size, size, size);
        }

        @Benchmark
        public Tensor sgemm() { return compiled.apply(a, b); }

        public static class OneThread extends Square {}

        @Fork(value = 1, jvmArgsAppend = {"--add-modules", "jdk.incubator.vector", "-Dsmelt.threads=2"})
        public static class TwoThreads extends Square {}
    }

    /// `relu(x@w + b)` fused into the matmul against the matmul followed by a separately compiled
    /// `relu(y + b)`, at an MLP layer's shape (a batch of 128 MNIST images, 784 pixels, into 256
    /// units: the issue's) and at a wide, shallow one (K = 64) whose product is as large as the
    /// work on it. `epilogueOnly` is the separate kernel alone, on the product: fusing can save at
    /// most that, so `(matmul + epilogueOnly) / matmul` bounds what fusion can gain at a shape.
    @State(Scope.Benchmark)
    public static class Mlp extends MatMulBench {
        @Param({"128x784x256", "4096x64x1024"})
        public String shape;
        int m, k, n;
        Tensor x, w, bias, product;
        Compiled plain = Jit.compile(MatMulBench::matmul);
        Compiled fused = Jit.compile((Tensor x, Tensor w, Tensor b) -> x.matmul(w).add(b).relu());
        Compiled epilogue = Jit.compile((Tensor y, Tensor b) -> y.add(b).relu());

        @Setup
        public void kernelsAgree() {
            int[] mkn = java.util.Arrays.stream(shape.split("x")).mapToInt(Integer::parseInt).toArray();
            m = mkn[0];
            k = mkn[1];
            n = mkn[2];
            var generator = new Generator(SEED);
            x = Tensor.randn(generator, m, k);
            w = Tensor.randn(generator, k, n);
            bias = Tensor.randn(generator, n);
            product = matmul();
            float[] withBias = product.toFloatArray(), b = bias.toFloatArray();
            Reference.check("x@w", x.toFloatArray(), w.toFloatArray(), product.toFloatArray(), m, n, k);
            for (int i = 0; i < withBias.length; i++) withBias[i] = Math.max(0f, withBias[i] + b[i % n]);
            Tolerance.EXACT.check("relu(y + b) alone vs by hand from x@w", withBias, epilogueOnly().toFloatArray());
            // Products may differ in their last bits from call to call (the first calls run before the vector micro-kernel is warm).
            new Tolerance(0, 1e-3).check("relu(x@w + b) separately vs by hand", withBias, unfused().toFloatArray());
            new Tolerance(0, 1e-3).check("relu(x@w + b) fused vs by hand", withBias, fused().toFloatArray());
        }

        @Benchmark
        public Tensor matmul() { return plain.apply(x, w); }

        @Benchmark
        public Tensor fused() { return fused.apply(x, w, bias); }

        @Benchmark
        public Tensor unfused() { return epilogue.apply(plain.apply(x, w), bias); }

        @Benchmark
        public Tensor epilogueOnly() { return epilogue.apply(product, bias); }
    }

    /// A linear layer's `x @ wᵀ` (w stored `[N, K]`) at the shapes of the GPT step (M×K×N: 8·128
    /// tokens of width 256, its 1024-wide feed-forward and 4096-word classifier, forward and the
    /// backward's `dy @ w` shapes), on two threads: how the work is split between them
    /// and what each packs is part of what this measures.
    @State(Scope.Benchmark)
    @Fork(value = 1, jvmArgsAppend = {"--add-modules", "jdk.incubator.vector", "-Dsmelt.threads=2"})
    public static class Linear extends MatMulBench {
        @Param({"1024x256x256", "1024x1024x256", "1024x256x1024", "1024x4096x256", "4096x1024x256"})
        public String shape;
        Tensor x, w;
        Compiled compiled = Jit.compile((Tensor x, Tensor w) -> x.matmul(w.t()));

        @Setup
        public void kernelsAgree() {
            int[] mkn = java.util.Arrays.stream(shape.split("x")).mapToInt(Integer::parseInt).toArray();
            var generator = new Generator(SEED);
            x = Tensor.randn(generator, mkn[0], mkn[1]);
            w = Tensor.randn(generator, mkn[2], mkn[1]);
            Reference.check("x@wT " + shape, x.toFloatArray(), w.t().contiguous().toFloatArray(), linear().toFloatArray(), mkn[0], mkn[2], mkn[1]);
        }

        @Benchmark
        public Tensor linear() { return compiled.apply(x, w); }
    }

    /// Transposed operands stored transposed and read through strides: `xᵀ@w` takes x as `[K, M]`.
    @State(Scope.Benchmark)
    public static class Transposes extends MatMulBench {
        static final int SIZE = 1024;
        @Param({"plain", "transposeA", "transposeB", "both"})
        public String variant;
        Tensor a, b;
        Compiled compiled;

        @Setup
        public void kernelsAgree() {
            var generator = new Generator(SEED);
            a = Tensor.randn(generator, SIZE, SIZE);
            b = Tensor.randn(generator, SIZE, SIZE);
            boolean ta = variant.equals("transposeA") || variant.equals("both"), tb = variant.equals("transposeB") || variant.equals("both");
            compiled = Jit.compile((Tensor x, Tensor y) -> (ta ? x.t() : x).matmul(tb ? y.t() : y));
            float[] left = (ta ? a.t() : a).contiguous().toFloatArray(), right = (tb ? b.t() : b).contiguous().toFloatArray();
            Reference.check("sgemm " + variant, left, right, sgemm().toFloatArray(), SIZE, SIZE, SIZE);
        }

        @Benchmark
        public Tensor sgemm() { return compiled.apply(a, b); }
    }

    /// Per-call cost of tiny products, against the triple loop a user would write.
    @State(Scope.Benchmark)
    public static class Tiny extends MatMulBench {
        @Param({"8", "32"})
        public int size;
        Tensor a, b;
        float[] as, bs;
        Compiled compiled = Jit.compile(MatMulBench::matmul);
        Compiled add = Jit.compile((Tensor x, Tensor y) -> x.add(y));
        Tensor one = Tensor.of(new float[] {1.5f}, 1, 1), other = Tensor.of(new float[] {2.25f}, 1, 1);
        KernelFunction kernel;
        Object[] buffers;
        int units;

        @Setup
        public void kernelsAgree() {
            var generator = new Generator(SEED);
            a = Tensor.randn(generator, size, size);
            b = Tensor.randn(generator, size, size);
            as = a.toFloatArray();
            bs = b.toFloatArray();
            var product = (MatMulKernel) FusionPlanner.plan(Jit.trace(MatMulBench::matmul, a, b).graph()).launches().getFirst().kernel();
            kernel = MatMulFunction.of(product, null);
            units = product.workItems();
            buffers = new Object[] {as, bs, new float[size * size]};
            Reference.check("tiny " + size, as, bs, compiled().toFloatArray(), size, size, size);
            Reference.check("kernel only " + size, as, bs, (float[]) kernelOnly(), size, size, size);
            Reference.check("naive " + size, as, bs, naive(), size, size, size);
            Tolerance.EXACT.check("compiled 1.5 + 2.25", new float[] {3.75f}, overhead().toFloatArray());
            Tolerance.EXACT.check("eager 1.5 + 2.25", new float[] {3.75f}, eagerOverhead().toFloatArray());
        }

        @Benchmark
        public Tensor compiled() { return compiled.apply(a, b); }

        /// Per-call cost of a compiled function whose kernel does one add.
        @Benchmark
        public Tensor overhead() { return add.apply(one, other); }

        /// The same add run eagerly.
        @Benchmark
        public Tensor eagerOverhead() { return one.add(other); }

        @Benchmark
        public Object kernelOnly() {
            kernel.run(buffers, 0, units);
            return buffers[2];
        }

        @Benchmark
        public float[] naive() {
            int n = size;
            float[] c = new float[n * n];
            for (int i = 0; i < n; i++)
                for (int j = 0; j < n; j++) {
                    float sum = 0;
                    for (int k = 0; k < n; k++) sum += as[i * n + k] * bs[k * n + j];
                    c[i * n + j] = sum;
                }
            return c;
        }
    }

    /// The double-precision triple loop and f32 summation's error bound.
    static final class Reference {
        private Reference() {}

        /// Checks `c = a·b` (row-major M×K and K×N) on the first rows (all of them for small M).
        static void check(String what, float[] a, float[] b, float[] c, int m, int n, int k) {
            for (int i = 0; i < Math.min(m, 16); i++)
                for (int j = 0; j < n; j++) {
                    double exact = 0, magnitude = 0;
                    for (int p = 0; p < k; p++) {
                        exact += (double) a[i * k + p] * b[p * n + j];
                        magnitude += Math.abs((double) a[i * k + p] * b[p * n + j]);
                    }
                    if (Math.abs(c[i * n + j] - exact) > (k + 1) * Math.ulp(1f) * magnitude)
                        throw new AssertionError("%s: C[%d][%d] is %s, exact %s".formatted(what, i, j, c[i * n + j], exact));
                }
        }
    }
}
