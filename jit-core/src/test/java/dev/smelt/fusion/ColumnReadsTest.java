// SPDX-License-Identifier: Apache-2.0
package dev.smelt.fusion;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.smelt.ir.DType;
import dev.smelt.ir.ReduceOp;
import dev.smelt.ir.Shape;
import dev.smelt.kernel.Expr;
import dev.smelt.kernel.IndexMap;
import dev.smelt.kernel.Kernel;
import java.util.List;
import org.junit.jupiter.api.Test;

/// The cost model prices a column reduction that codegen vectorises across rows as a contiguous
/// read, and strided reads it cannot vectorise (products, columns apart, too few columns) as strided.
class ColumnReadsTest {
    static final Machine AVX512 = new Machine(32, 512);

    /// `op(x, 0)` of a row-major `[b, f]` whose columns are `step` apart: the space `[f, b]`.
    static Kernel columnReduce(ReduceOp op, int b, int f, int step) {
        var input = new Kernel.Input(DType.F32, b * f * step, new IndexMap(0, List.of(step, f * step)));
        var reduction = new Kernel.Reduction(op, new Expr.Load(0, DType.F32));
        var out = new Kernel.Output(new Expr.Accumulated(0, reduction.dtype()), f, new IndexMap(0, List.of(1, 0)), true);
        return new Kernel(Shape.of(f, b), 1, List.of(input), List.of(reduction), List.of(out));
    }

    /// `sum(x, 1)` of a row-major `[b, f]`: the contiguous baseline.
    static Kernel rowSum(int b, int f) {
        var input = new Kernel.Input(DType.F32, b * f, IndexMap.contiguous(Shape.of(b, f)));
        var out = new Kernel.Output(new Expr.Accumulated(0, DType.F32), b, new IndexMap(0, List.of(1, 0)), true);
        return new Kernel(Shape.of(b, f), 1, List.of(input), List.of(new Kernel.Reduction(ReduceOp.SUM, new Expr.Load(0, DType.F32))), List.of(out));
    }

    @Test
    void aVectorisedColumnSumCostsWhatAContiguousSumOfItsBytesCosts() {
        var column = columnReduce(ReduceOp.SUM, 1024, 1024, 1);
        assertTrue(ColumnReads.vectorised(column, AVX512));
        assertEquals(CostModel.CALIBRATED.time(rowSum(1024, 1024), AVX512), CostModel.CALIBRATED.time(column, AVX512), 1e-6);
        assertTrue(ColumnReads.vectorised(columnReduce(ReduceOp.MAX, 7, 16, 1), AVX512));
    }

    @Test
    void stridedReadsThatStayScalarOrGatherKeepTheStridedWeight() {
        double contiguous = CostModel.CALIBRATED.time(rowSum(1024, 1024), AVX512);
        assertTrue(ColumnReads.vectorised(columnReduce(ReduceOp.ARGMAX, 1024, 1024, 1), AVX512));
        for (var kernel : List.of(columnReduce(ReduceOp.SUM, 1024, 1024, 64),
                columnReduce(ReduceOp.SUM, 1024, 15, 1), columnReduce(ReduceOp.PROD, 1024, 1024, 1))) {
            assertFalse(ColumnReads.vectorised(kernel, AVX512), kernel.toString());
            assertTrue(CostModel.CALIBRATED.time(kernel, AVX512) > 5 * contiguous * kernel.space().count() / (1024.0 * 1024), kernel.toString());
        }
    }
}
