// SPDX-License-Identifier: Apache-2.0
package dev.smelt.kernel;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.smelt.ir.BinaryOp;
import dev.smelt.ir.DType;
import dev.smelt.ir.ReduceOp;
import dev.smelt.ir.Shape;
import dev.smelt.ir.UnaryOp;
import java.util.List;
import org.junit.jupiter.api.Test;

/// Which output keeps a reduction's elements: the one dense full output of the value's dtype that
/// reads them, and each output for at most one reduction.
class ElementHomeTest {
    private static final Shape SPACE = Shape.of(4, 9);
    private static final IndexMap DENSE = IndexMap.contiguous(SPACE);
    private static final Expr X = new Expr.Load(0, DType.F32);
    private static final Expr E0 = new Expr.Element(0, DType.F32), E1 = new Expr.Element(1, DType.F32);
    private static final Expr R1 = new Expr.Accumulated(1, DType.F32);
    private static final List<Kernel.Reduction> SUMS = List.of(new Kernel.Reduction(ReduceOp.SUM, new Expr.Unary(UnaryOp.EXP, X)),
            new Kernel.Reduction(ReduceOp.SUM, new Expr.Unary(UnaryOp.SIN, X)));

    private static Kernel kernel(Kernel.Output... outputs) {
        return new Kernel(SPACE, 1, List.of(new Kernel.Input(DType.F32, 36, DENSE)), SUMS, List.of(outputs));
    }

    private static Kernel.Output full(Expr value) { return new Kernel.Output(value, 36, DENSE, false); }

    private static List<Integer> homes(Kernel kernel) { return List.of(ElementHome.of(kernel, 0), ElementHome.of(kernel, 1)); }

    @Test
    void theOutputThatAloneReadsAnElementKeepsIt() {
        assertEquals(List.of(-1, 0), homes(kernel(full(new Expr.Binary(BinaryOp.DIV, E1, R1)))), "softmax's out0 = e1 / r1");
        assertEquals(List.of(1, -1), homes(kernel(full(X), full(E0))));
    }

    @Test
    void anElementTwoOutputsReadStaysInARowArray() {
        assertEquals(List.of(-1, -1), homes(kernel(full(E0), full(new Expr.Binary(BinaryOp.MUL, E0, X)))));
    }

    @Test
    void anOutputKeepsOneReductionsElements() {
        assertEquals(List.of(0, -1), homes(kernel(full(new Expr.Binary(BinaryOp.ADD, E0, E1)))), "the first reduction's");
    }

    @Test
    void aStridedOrWiderOrRowOutputKeepsNothing() {
        var transposed = new Kernel.Output(E0, 36, new IndexMap(0, List.of(1, 4)), false);
        assertEquals(List.of(-1, -1), homes(kernel(transposed)));
        var widened = new Kernel.Output(new Expr.Cast(E0, DType.F64), 36, DENSE, false);
        assertEquals(List.of(-1, -1), homes(kernel(widened)));
        var row = new Kernel.Output(new Expr.Accumulated(0, DType.F32), 4, new IndexMap(0, List.of(1, 0)), true);
        assertEquals(List.of(-1, 0), homes(kernel(full(E1), row)));
    }
}
