// SPDX-License-Identifier: Apache-2.0
package dev.smelt.codegen;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.smelt.ir.DType;
import dev.smelt.ir.Shape;
import dev.smelt.kernel.Expr;
import dev.smelt.kernel.IndexMap;
import dev.smelt.kernel.Kernel;
import dev.smelt.runtime.KernelLoader;
import dev.smelt.testing.RandomData;
import dev.smelt.testing.RandomKernels;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.LongStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/// One class per [RowExtent#representative] must compute its kernel at every extent of the
/// outermost axis: each random kernel is rebuilt at extents 1, 2, 3, 17 and 100 of that axis, every
/// extent must map to the same representative, and the representative's class, run on each
/// extent's buffers, must match the interpreter on that extent's kernel (bit for bit when scalar).
/// A kernel reducing its outermost axis keeps a class per extent, and so does one that
/// [ColumnPlan] vectorises across its rows at that extent.
class RowExtentTest {
    private static final int[] EXTENTS = {1, 2, 3, 17, 100};
    private static final AtomicInteger SHARED = new AtomicInteger();

    static LongStream seeds() { return LongStream.range(0, KernelEmitterRandomTest.KERNELS); }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void oneClassServesEveryRowExtent(long seed) {
        var kernel = RandomKernels.generate(seed);
        var representative = RowExtent.representative(kernel);
        if (representative == kernel) return; // rows reduced, or no rows: a class per extent
        SHARED.incrementAndGet();
        var scalar = Compiled.emit(representative, Variant.SCALAR);
        var vector = Compiled.emit(representative, Variant.VECTOR);
        var scalarFunction = KernelLoader.load(scalar);
        var vectorFunction = KernelLoader.load(vector);
        for (int extent : EXTENTS) {
            var sized = withExtent(kernel, extent);
            if (sized == null || sized.space().count() > 50_000) continue; // a negative stride reaches before the buffer; too slow to interpret
            if (RowExtent.representative(sized) == sized) continue;        // vectorised across its rows at this extent: its own class
            assertEquals(representative, RowExtent.representative(sized), "seed %d, extent %d".formatted(seed, extent));
            var buffers = RandomData.buffers(seed + extent, sized);
            Differential.check(seed, new Compiled(sized, scalar, scalarFunction), buffers);
            Differential.check(seed, new Compiled(sized, vector, vectorFunction), buffers);
        }
    }

    /// The proof by emission: at every extent from 2 up (1 drops the axis, which the representative
    /// never has) the classes differ only in their names, so no code depends on the extent.
    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void classesAtTwoExtentsDifferOnlyInName(long seed) {
        var kernel = RandomKernels.generate(seed);
        if (RowExtent.representative(kernel) == kernel) return;
        for (var variant : Variant.values()) {
            String first = null;
            for (int extent : EXTENTS) {
                var sized = extent == 1 ? null : withExtent(kernel, extent);
                if (sized == null || RowExtent.representative(sized) == sized) continue;
                var generated = KernelEmitter.emit(sized, variant);
                String text = Compiled.text(generated).replace(generated.className().replace('.', '/'), "Kernel").replace(generated.sourceFile(), "kernel.ir");
                if (first == null) first = text;
                assertEquals(first, text, "seed %d, %s variant at extent %d:%n%s".formatted(seed, variant, extent, sized));
            }
        }
    }

    /// Most random kernels have rows, so the tests above check many.
    @AfterAll
    static void mostKernelsShareOneClass() {
        assertTrue(SHARED.get() > KernelEmitterRandomTest.KERNELS / 2, SHARED.get() + " of " + KernelEmitterRandomTest.KERNELS + " kernels have a representative");
    }

    @Test
    void aKernelReducingItsOutermostAxisKeepsItsOwnClass() {
        var columnSum = new Kernel(Shape.of(7), 1, List.of(new Kernel.Input(DType.F32, 7, new IndexMap(0, List.of(1)))),
                List.of(new Kernel.Reduction(dev.smelt.ir.ReduceOp.SUM, new Expr.Load(0, DType.F32))),
                List.of(new Kernel.Output(new Expr.Accumulated(0, DType.F32), 1, new IndexMap(0, List.of(0)), true)));
        assertSame(columnSum, RowExtent.representative(columnSum));
    }

    /// `kernel` with its outermost extent `extent` and every buffer just large enough, or null if a
    /// map then reaches before its buffer's start.
    private static Kernel withExtent(Kernel kernel, int extent) {
        var dims = new ArrayList<>(kernel.space().dims());
        dims.set(0, extent);
        var space = new Shape(dims);
        try {
            return new Kernel(space, kernel.reducedRank(),
                    kernel.inputs().stream().map(in -> new Kernel.Input(in.dtype(), reach(in.map(), space), in.map())).toList(),
                    kernel.reductions(),
                    kernel.outputs().stream().map(out -> new Kernel.Output(out.value(), reach(out.map(), space), out.map(), out.perRow())).toList());
        } catch (IllegalArgumentException beforeStart) {
            return null;
        }
    }

    private static int reach(IndexMap map, Shape space) {
        long high = map.offset();
        for (int axis = 0; axis < space.rank(); axis++) high += Math.max(0L, (long) (space.dim(axis) - 1) * map.stride(axis));
        return Math.toIntExact(high + 1);
    }
}
