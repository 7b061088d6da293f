// SPDX-License-Identifier: Apache-2.0
package dev.smelt.benchmarks;

import dev.smelt.Compiled;
import dev.smelt.Generator;
import dev.smelt.Jit;
import dev.smelt.Tensor;
import dev.smelt.ir.DType;
import java.util.Arrays;
import java.util.List;
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

/// Embedding lookup, compiled, in a table of `vocab` rows of width `dim` for `tokens` ids:
/// `indexSelect`, a gather reading one row per id, against `oneHot`, the one-hot product
/// `oneHot(ids)·table` Embedding used before. And a KV-cache write of one position into a
/// [`heads`, 1024, dim] cache: `cacheInPlace` updates the donated cache (`applyUpdating`, the
/// kernel writes one row per head), `cacheCopy` returns a new cache (the functional update copies it).
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 4, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"--add-modules", "jdk.incubator.vector", "-Dsmelt.threads=1"})
public class IndexingBench {
    static final int VOCAB = 32000, CONTEXT = 1024, HEADS = 6;

    @Param({"288", "768"})
    public int dim;

    @Param({"1", "64"})
    public int tokens;

    Tensor table, ids, cache, row, position;
    Compiled select, oneHot, update;

    @Setup
    public void resultsAgree() {
        var g = new Generator(1);
        table = Tensor.randn(g, VOCAB, dim);
        ids = Tensor.of(new java.util.Random(2).ints(tokens, 0, VOCAB).toArray());
        select = Jit.compile((t, i) -> t.indexSelect(0, i));
        oneHot = Jit.compile((t, i) -> i.oneHot(VOCAB).to(DType.F32).matmul(t));
        if (!Arrays.equals(select.apply(table, ids).toFloatArray(), oneHot.apply(table, ids).toFloatArray()))
            throw new AssertionError("indexSelect and the one-hot product look up different rows");
        cache = Tensor.zeros(HEADS, CONTEXT, dim);
        row = Tensor.randn(g, HEADS, 1, dim);
        position = Tensor.scalar(DType.I32, 517);
        update = Jit.compile((c, p, r) -> c.sliceUpdate(1, p, r));
        var copied = update.apply(cache, position, row);
        update.applyUpdating(List.of(cache), cache, position, row);
        if (!Arrays.equals(copied.toFloatArray(), cache.toFloatArray())) throw new AssertionError("the in-place update differs from the copy");
        if (!update.explain().contains("in the array of input 0")) throw new AssertionError("the cache update is not in place:\n" + update.explain());
    }

    @Benchmark
    public Tensor indexSelect() { return select.apply(table, ids); }

    @Benchmark
    public Tensor oneHot() { return oneHot.apply(table, ids); }

    @Benchmark
    public Tensor cacheInPlace() {
        update.applyUpdating(List.of(cache), cache, position, row);
        return cache;
    }

    @Benchmark
    public Tensor cacheCopy() { return update.apply(cache, position, row); }
}
