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
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/// A per-head product `einsum("tdh,hde->hte")` at t 512, d 1024, h 4, e 512, one thread, where
/// each head's operand has neither its rows nor its steps of K contiguous. `headsLast`: compiled
/// as written (the planner's `Relayout` writes the operand out row-major first); `headsFirst`:
/// the same product of an operand the caller already laid out as `[h, t, d]` (the floor);
/// `headsMiddle`: the optimisation seed's `(t, h, d)` layout, `"thd,hde->hte"`, packed in place.
/// Run it against a jar from before `Relayout` (alternating) for the in-place packing it replaced:
/// that jar's `headsLast` is the strided gather. `fusion.Relayout` quotes the figures.
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"--add-modules", "jdk.incubator.vector", "-Dsmelt.threads=1"})
public class RelayoutBench {
    static final int T = 512, D = 1024, H = 4, E = 512;

    Tensor last, first, middle, w;
    Compiled headsLast, headsFirst, headsMiddle;

    @Setup
    public void productsAgree() {
        var generator = new Generator(1);
        last = Tensor.randn(generator, T, D, H);
        first = last.permute(2, 0, 1).contiguous();
        middle = last.permute(0, 2, 1).contiguous();
        w = Tensor.randn(generator, H, D, E);
        headsLast = Jit.compile((Tensor x, Tensor y) -> Tensor.einsum("tdh,hde->hte", x, y));
        headsFirst = Jit.compile((Tensor x, Tensor y) -> Tensor.einsum("htd,hde->hte", x, y));
        headsMiddle = Jit.compile((Tensor x, Tensor y) -> Tensor.einsum("thd,hde->hte", x, y));
        float[] expected = headsFirst.apply(first, w).toFloatArray();
        var tolerance = new Tolerance(1e-4, 1e-3); // sums of 1024 products of normal values, in other orders
        tolerance.check("heads last", expected, headsLast.apply(last, w).toFloatArray());
        tolerance.check("heads in the middle", expected, headsMiddle.apply(middle, w).toFloatArray());
    }

    @Benchmark
    public Tensor headsLast() { return headsLast.apply(last, w); }

    @Benchmark
    public Tensor headsFirst() { return headsFirst.apply(first, w); }

    @Benchmark
    public Tensor headsMiddle() { return headsMiddle.apply(middle, w); }
}
