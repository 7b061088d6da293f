// SPDX-License-Identifier: Apache-2.0
package dev.smelt.benchmarks;

import dev.smelt.codegen.MicroKernel;
import dev.smelt.codegen.MicroKernelShape;
import dev.smelt.ir.DType;
import dev.smelt.runtime.matmul.MicroKernels;
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

/// One call of the matmul micro-kernel on a packed block of `depth` steps of K, f32, the machine's
/// tile (12 rows × 2 vectors of 16 lanes with AVX-512): the plain-Java scalar tile that serves a
/// cold JVM's first products against the generated vector tile, side by side in one run. Multiply-
/// adds per call: rows × columns × depth (24,576 at depth 64 on AVX-512).
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"--add-modules", "jdk.incubator.vector"})
public class TileBench {
    @Param({"scalar", "vector"})
    public String tile;

    @Param({"64", "256"})
    public int depth;

    private MicroKernel kernel;
    private float[] a, b, c;
    private int columns;

    @Setup
    public void setUp() {
        var shape = MicroKernelShape.of(DType.F32);
        kernel = tile.equals("scalar") ? MicroKernels.scalar(shape) : MicroKernels.vector(shape);
        columns = shape.columns();
        a = new float[shape.rows() * depth];
        b = new float[columns * depth];
        c = new float[shape.rows() * columns];
        for (int i = 0; i < a.length; i++) a[i] = (i % 7) * 0.25f;
        for (int i = 0; i < b.length; i++) b[i] = (i % 5) * 0.5f;
    }

    @Benchmark
    public float[] run() {
        kernel.run(a, 0, b, 0, depth, c, 0, columns, false);
        return c;
    }
}
