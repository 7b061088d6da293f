// SPDX-License-Identifier: Apache-2.0
package dev.smelt.kernel;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.smelt.ir.BinaryOp;
import dev.smelt.ir.DType;
import dev.smelt.ir.ReduceOp;
import dev.smelt.ir.Shape;
import java.util.List;
import org.junit.jupiter.api.Test;

/// Where [KernelCheck] lets an [Expr.Element] be read: only after its reduction has visited every
/// point of the row, and only where the point is known.
class KernelCheckTest {
    private static final Shape SPACE = Shape.of(4, 33);
    private static final Expr X = new Expr.Load(0, DType.F32);
    private static final Expr SQUARE = new Expr.Binary(BinaryOp.MUL, X, X);

    @Test
    void elementsAreReadByLaterReductionsAndFullOutputsOnly() {
        var e0 = new Expr.Element(0, DType.F32);
        kernel(List.of(sum(SQUARE), sum(e0)), full(e0));
        assertRejected("kernel: element 0 read outside a later reduction or full output", List.of(sum(e0)), full(X));
        assertRejected("kernel: element 0 read outside a later reduction or full output", List.of(sum(SQUARE)), row(e0));
        assertRejected("kernel: element 0 read as f64", List.of(sum(SQUARE)), full(new Expr.Cast(new Expr.Element(0, DType.F64), DType.F32)));
        assertRejected("kernel: element 0 of an arg-reduction", List.of(new Kernel.Reduction(ReduceOp.ARGMAX, SQUARE)), full(e0));
    }

    private static Kernel.Reduction sum(Expr value) { return new Kernel.Reduction(ReduceOp.SUM, value); }

    private static Kernel.Output full(Expr value) { return new Kernel.Output(value, SPACE.size(), IndexMap.contiguous(SPACE), false); }

    private static Kernel.Output row(Expr value) { return new Kernel.Output(value, 4, new IndexMap(0, List.of(1, 0)), true); }

    private static Kernel kernel(List<Kernel.Reduction> reductions, Kernel.Output output) {
        return new Kernel(SPACE, 1, List.of(new Kernel.Input(DType.F32, SPACE.size(), IndexMap.contiguous(SPACE))), reductions, List.of(output));
    }

    private static void assertRejected(String message, List<Kernel.Reduction> reductions, Kernel.Output output) {
        assertEquals(message, assertThrows(IllegalArgumentException.class, () -> kernel(reductions, output)).getMessage());
    }
}
