// SPDX-License-Identifier: Apache-2.0
package dev.smelt.benchmarks;

import dev.smelt.Compiled;
import dev.smelt.Generator;
import dev.smelt.Jit;
import dev.smelt.Tensor;
import java.util.concurrent.TimeUnit;
import org.ejml.data.FMatrixRMaj;
import org.ejml.dense.row.CommonOps_FDRM;
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

/// Smelt's generated matmul against EJML 0.46.1 (pure Java, `CommonOps_FDRM.mult`, single
/// threaded) in one run, f32, one thread each: n³ for n = 128, 512, 1024, and the MLP's
/// 128×784·784×256. Only in the `peers` profile (`mvn -Ppeers -pl benchmarks -am package`), which
/// downloads EJML from Maven Central; the default build stays free of other tensor libraries.
/// ND4J and DJL, which the issue also names, are not included: both need native libraries.
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"--add-modules", "jdk.incubator.vector", "-Dsmelt.threads=1"})
public class PeersBench {
    /// `m x k x n`.
    @Param({"128x128x128", "512x512x512", "1024x1024x1024", "128x784x256"})
    public String shape;

    Tensor a, b;
    Compiled smelt = Jit.compile((x, y) -> x.matmul(y));
    FMatrixRMaj ea, eb, ec;

    @Setup
    public void librariesAgree() {
        String[] dims = shape.split("x");
        int m = Integer.parseInt(dims[0]), k = Integer.parseInt(dims[1]), n = Integer.parseInt(dims[2]);
        var generator = new Generator(7);
        a = Tensor.randn(generator, m, k);
        b = Tensor.randn(generator, k, n);
        ea = new FMatrixRMaj(m, k, true, a.toFloatArray());
        eb = new FMatrixRMaj(k, n, true, b.toFloatArray());
        ec = new FMatrixRMaj(m, n);
        MatMulBench.Reference.check("smelt " + shape, a.toFloatArray(), b.toFloatArray(), smelt().toFloatArray(), m, n, k);
        MatMulBench.Reference.check("ejml " + shape, a.toFloatArray(), b.toFloatArray(), ejml().data, m, n, k);
    }

    @Benchmark
    public Tensor smelt() { return smelt.apply(a, b); }

    @Benchmark
    public FMatrixRMaj ejml() {
        CommonOps_FDRM.mult(ea, eb, ec);
        return ec;
    }
}
