// SPDX-License-Identifier: Apache-2.0
package dev.smelt.benchmarks;

import dev.smelt.Compiled;
import dev.smelt.Generator;
import dev.smelt.Jit;
import dev.smelt.Tensor;
import java.util.Arrays;
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

/// `softmax(-1)` and `layerNorm(1024)` over the last axis of an f32[4096, 1024], one thread.
/// `compiled` is the composite under [Jit#compile] (one row kernel, a new result per call), and
/// `compiledInto` the same writing into a tensor allocated once ([Compiled#applyInto]). `eager` is the same maths as
/// eager code op by op (max, sub, exp, sum, div), each op its own kernel: the baseline of the
/// target. `eagerComposite` calls the composite eagerly, which the runtime plans as one program, so
/// it is already fused (informational). `handWritten` is [HandRowOps], the loops written with the
/// Vector API into an array allocated once (like for like with `compiledInto`), and
/// `handWrittenNewArray` the same allocating its result (like for like with `compiled`). Targets: compiled ≤ 2.5 ms and ≥ 2× eager (PyTorch 1.13
/// here: 4.0 ms and 3.8 ms). `causalSoftmax` is softmax on scores under a causal mask, -∞ past
/// column `r mod cols` of row r, as an unmasked attention's softmax sees them: `exp` meets -∞ in
/// about half of its lanes (informational).
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 5, time = 1) // covers the background warm-up of the vector variant (TieredKernel)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"--add-modules", "jdk.incubator.vector", "-Dsmelt.threads=1"})
public class RowOpsBench {
    static final long SEED = 11;
    static final double EPS = 1e-5; // layerNorm's default
    /// Rows the reference interpreter checks: rows are independent, so a prefix is a fair sample.
    static final int PREFIX_ROWS = 16;

    @Param({"softmax", "layerNorm", "causalSoftmax"})
    public String op;

    /// `-p rows=64` runs it small.
    @Param("4096")
    public int rows;

    @Param("1024")
    public int cols;

    Tensor x, into;
    float[] xs, out;
    Compiled compiledOp;

    /// The composite, as a user writes it.
    Tensor composite(Tensor x) {
        return switch (op) {
            case "softmax", "causalSoftmax" -> x.softmax(-1);
            case "layerNorm" -> x.layerNorm(cols);
            default -> throw new IllegalArgumentException("unknown op " + op);
        };
    }

    /// The same maths op by op, each op eager and its own kernel.
    Tensor opByOp(Tensor x) {
        return switch (op) {
            case "softmax", "causalSoftmax" -> {
                Tensor exps = x.sub(x.max(-1, true)).exp();            // exp(x - max)
                yield exps.div(exps.sum(-1, true));                     // / Σ exp(x - max)
            }
            case "layerNorm" -> {
                Tensor centred = x.sub(x.mean(-1, true));                // x - mean
                yield centred.mul(centred.square().mean(-1, true).add(EPS).rsqrt()); // / √(var + eps)
            }
            default -> throw new IllegalArgumentException("unknown op " + op);
        };
    }

    @Setup
    public void kernelsAgree() {
        x = Tensor.randn(new Generator(SEED), rows, cols);
        if (op.equals("causalSoftmax")) x = causal(x);
        into = Tensor.zeros(rows, cols);
        xs = x.toFloatArray();
        out = new float[rows * cols];
        compiledOp = Jit.compile(this::composite);
        float[] fused = compiled().toFloatArray();
        int prefixRows = Math.min(rows, PREFIX_ROWS);
        var prefix = Tensor.of(Arrays.copyOf(x.toFloatArray(), prefixRows * cols), prefixRows, cols);
        float[] interpreted = Jit.trace(this::composite, prefix).interpret(prefix).getFirst().toFloatArray();
        Tolerance.ROW_REDUCTION.check(op + ": compiled vs interpreter", interpreted, Arrays.copyOf(fused, prefixRows * cols));
        Tolerance.ROW_REDUCTION.check(op + ": compiledInto vs compiled", fused, compiledInto().toFloatArray());
        Tolerance.ROW_REDUCTION.check(op + ": eager vs compiled", fused, eager().toFloatArray());
        Tolerance.ROW_REDUCTION.check(op + ": eagerComposite vs compiled", fused, eagerComposite().toFloatArray());
        Tolerance.ROW_REDUCTION.check(op + ": handWritten vs compiled", fused, handWritten());
    }

    /// After the timed iterations the tiered kernels run their vector variants: check those too.
    @TearDown
    public void kernelsStillAgree() {
        float[] fused = compiled().toFloatArray();
        Tolerance.ROW_REDUCTION.check(op + ": compiled (warmed up) vs eager", eager().toFloatArray(), fused);
        into = Tensor.zeros(rows, cols); // a blank target, so a call that writes nothing cannot pass
        Tolerance.ROW_REDUCTION.check(op + ": compiledInto (warmed up) vs compiled", fused, compiledInto().toFloatArray());
        Tolerance.ROW_REDUCTION.check(op + ": eagerComposite (warmed up) vs compiled", fused, eagerComposite().toFloatArray());
        Arrays.fill(out, 0);
        Tolerance.ROW_REDUCTION.check(op + ": handWritten (warmed up) vs compiled", fused, handWritten());
    }

    @Benchmark
    public Tensor compiled() {
        return compiledOp.apply(x);
    }

    /// compiled into a tensor allocated once in @Setup (informational).
    @Benchmark
    public Tensor compiledInto() {
        return compiledOp.applyInto(into, x);
    }

    @Benchmark
    public Tensor eager() {
        return opByOp(x);
    }

    @Benchmark
    public Tensor eagerComposite() {
        return composite(x);
    }

    @Benchmark
    public float[] handWritten() {
        handLoops(out);
        return out;
    }

    /// handWritten into a new array per call, as `compiled` returns a new tensor: the difference to
    /// handWritten is the cost of allocating (zeroing) the result.
    @Benchmark
    public float[] handWrittenNewArray() {
        float[] result = new float[rows * cols];
        handLoops(result);
        return result;
    }

    // -∞ past column r mod cols of row r.
    private Tensor causal(Tensor scores) {
        float[] values = scores.toFloatArray();
        for (int r = 0; r < rows; r++)
            java.util.Arrays.fill(values, r * cols + r % cols + 1, (r + 1) * cols, Float.NEGATIVE_INFINITY);
        return Tensor.of(values, rows, cols);
    }

    private void handLoops(float[] result) {
        switch (op) {
            case "softmax", "causalSoftmax" -> HandRowOps.softmax(xs, result, rows, cols);
            case "layerNorm" -> HandRowOps.layerNorm(xs, result, rows, cols, (float) EPS);
            default -> throw new IllegalArgumentException("unknown op " + op);
        }
    }
}
