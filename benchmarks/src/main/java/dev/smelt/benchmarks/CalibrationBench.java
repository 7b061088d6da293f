// SPDX-License-Identifier: Apache-2.0
package dev.smelt.benchmarks;

import dev.smelt.Compiled;
import dev.smelt.Generator;
import dev.smelt.Jit;
import dev.smelt.Tensor;
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

/// Measures the weights of `dev.smelt.fusion.CalibratedCosts` (the `CostModel` Smelt plans with) on this machine, one thread, with kernels
/// Smelt generates (`report.py` turns the times into the weights and prints them beside the
/// constants):
/// - `read`: `sum(x)` over 16M f32 (64 MiB) → READ_NS_PER_BYTE = time / 64 MiB;
/// - `copy`: `-x` over 16M f32 → WRITE_NS_PER_BYTE = (copy − read) / 64 MiB;
/// - `launch`: `-x` over 16 floats → LAUNCH_NS;
/// - `column`: `sum(x, 0)` over f32[1024,1024], read down the columns, 16 neighbouring columns at
///   once since column reductions are vectorised across rows: a contiguous read, READ_NS_PER_BYTE;
/// - `gather`: `sum(x, 0)` of every 64th column of f32[1024,1024] (no two rows are neighbours,
///   so the loop runs down each column and gathers a cache line per element) → STRIDED_READ_NS_PER_BYTE = time / 64 KiB;
/// - `neg`, `add8`, `div`, `exp`, `log`, `sin`, `pow` over 64K floats (L2-resident): each operation's cost
///   per element is (time − neg) / 64K (`add8` chains eight adds: CHEAP_NS is an eighth of it);
///   `cos`, `tanh`, `sigmoid`, `silu` and `geluTanh` check that pricing the rewritten steps of the
///   transcendentals (`kernel.Transcendentals`) holds for the rest of them; `tanhWide` is `tanh` over
///   [-12, 12), a quarter of it past |x| = 9.1 where the argument is clamped (before the clamp, a
///   vector with one such lane took the lane-by-lane fallback whole); `logZeros` is `log` where a
///   quarter of the values are 0, as masked probabilities are (-∞ is blended in, no fallback).
/// SPILL_NS comes from `FusionBench` `wide`: greedy against the cost model, per excess register.
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 4, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"--add-modules", "jdk.incubator.vector", "-Dsmelt.threads=1"})
public class CalibrationBench {
    static final int STREAM = 1 << 24, CACHED = 1 << 16, TINY = 16, COLUMN = 1024;

    @Param({"read", "copy", "launch", "column", "gather", "neg", "add8", "div", "exp", "log", "sin", "pow", "cos", "tanh", "tanhWide", "logZeros", "sigmoid", "silu", "geluTanh"})
    public String op;

    Tensor x, out;
    Compiled function;

    @Setup
    public void compile() {
        int size = switch (op) {
            case "read", "copy" -> STREAM;
            case "launch" -> TINY;
            case "column", "gather" -> COLUMN * COLUMN;
            default -> CACHED;
        };
        x = switch (op) {
            case "tanhWide" -> Tensor.rand(new Generator(3), size).mul(24).sub(12);
            case "logZeros" -> Tensor.rand(new Generator(3), size).sub(0.25).relu();
            default -> Tensor.rand(new Generator(3), size).add(0.5);
        };
        Jit.Function1 fn = switch (op) {
            case "read" -> t -> t.sum();
            case "column" -> t -> t.reshape(COLUMN, COLUMN).sum(0);
            case "gather" -> t -> t.reshape(COLUMN, COLUMN).slice(1, 0, COLUMN, 64).sum(0);
            case "copy", "launch", "neg" -> Tensor::neg;
            case "add8" -> t -> t.add(1).add(2).add(3).add(4).add(5).add(6).add(7).add(8);
            case "div" -> t -> t.reciprocal();
            case "exp" -> Tensor::exp;
            case "log", "logZeros" -> Tensor::log;
            case "sin" -> Tensor::sin;
            case "cos" -> Tensor::cos;
            case "tanh", "tanhWide" -> Tensor::tanh;
            case "sigmoid" -> Tensor::sigmoid;
            case "silu" -> Tensor::silu;
            case "geluTanh" -> Tensor::geluTanh;
            case "pow" -> t -> t.pow(t);
            default -> throw new IllegalArgumentException("unknown op " + op);
        };
        function = Jit.compile(fn);
        out = function.apply(x);
    }

    @Benchmark
    public Tensor run() { return function.applyInto(out, x); }
}
