// SPDX-License-Identifier: Apache-2.0
package dev.smelt.codegen;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.smelt.ir.DType;
import dev.smelt.ir.ReduceOp;
import dev.smelt.ir.Shape;
import dev.smelt.kernel.Expr;
import dev.smelt.kernel.IndexMap;
import dev.smelt.kernel.Kernel;
import java.util.List;
import org.junit.jupiter.api.Test;

class LoopSpaceTest {
    static final Expr X = new Expr.Load(0, DType.F32);

    static Kernel kernel(Shape space, int reducedRank, IndexMap in, Expr value, List<Kernel.Reduction> reductions) {
        var out = IndexMap.contiguous(space);
        return new Kernel(space, reducedRank, List.of(new Kernel.Input(DType.F32, 10_000, in)), reductions,
                List.of(new Kernel.Output(value, space.size(), out, false)));
    }

    @Test
    void contiguousAxesMergeIntoOneLoop() {
        var space = Shape.of(64, 3, 5);
        var loops = LoopSpace.of(kernel(space, 0, IndexMap.contiguous(space), X, List.of()));
        assertEquals(List.of(960), loops.dims());
        assertEquals(List.of(0, 0, 0), loops.axisOf());
        assertEquals(1, loops.innerStride(0));
    }

    @Test
    void permutedAndBroadcastAxesStaySeparate() {
        var space = Shape.of(4, 6);
        assertEquals(List.of(4, 6), LoopSpace.of(kernel(space, 0, new IndexMap(0, List.of(1, 4)), X, List.of())).dims());
        assertEquals(List.of(4, 6), LoopSpace.of(kernel(space, 0, new IndexMap(2, List.of(0, 1)), X, List.of())).dims());
    }

    @Test
    void axesOfSizeOneDropAndIndexedAxesNeverMerge() {
        var loops = LoopSpace.of(kernel(Shape.of(1, 5, 1), 0, IndexMap.contiguous(Shape.of(1, 5, 1)), X, List.of()));
        assertEquals(List.of(5), loops.dims());
        assertEquals(List.of(-1, 0, -1), loops.axisOf());
        var space = Shape.of(4, 6);
        var indexed = LoopSpace.of(kernel(space, 0, IndexMap.contiguous(space), new Expr.Cast(new Expr.Index(1, DType.I32), DType.F32), List.of()));
        assertEquals(List.of(4, 6), indexed.dims());
    }

    @Test
    void outerAndReducedAxesMergeSeparately() {
        var space = Shape.of(2, 3, 4, 5);
        var loops = LoopSpace.of(kernel(space, 2, IndexMap.contiguous(space), X, List.of(new Kernel.Reduction(ReduceOp.SUM, X))));
        assertEquals(List.of(6, 20), loops.dims());
        assertEquals(1, loops.outerRank());
    }

    @Test
    void anEmptyGroupGetsAnAxisOfSizeOne() {
        var rows = Shape.of(7, 1);
        var loops = LoopSpace.of(kernel(rows, 1, IndexMap.contiguous(rows), X, List.of(new Kernel.Reduction(ReduceOp.MAX, X))));
        assertEquals(List.of(7, 1), loops.dims());
        assertEquals(0, loops.innerStride(0));
        assertEquals(List.of(1), LoopSpace.of(kernel(Shape.of(), 0, new IndexMap(0, List.of()), X, List.of())).dims());
    }
}
