// SPDX-License-Identifier: Apache-2.0
package dev.smelt.plan;

import static dev.smelt.plan.Hand.*;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.smelt.ir.BinaryOp;
import dev.smelt.ir.DType;
import dev.smelt.ir.ReduceOp;
import dev.smelt.ir.Shape;
import dev.smelt.ir.UnaryOp;
import dev.smelt.kernel.Expr;
import dev.smelt.kernel.IndexMap;
import dev.smelt.kernel.Kernel;
import dev.smelt.kernel.Schedule;
import java.util.List;
import org.junit.jupiter.api.Test;

/// Which outputs may overwrite an input they read: only element for element, and only when
/// nothing in the kernel reads the old value after the write.
class InPlaceTest {
    private static boolean safe(Kernel kernel, int output, int buffer, Integer... bound) {
        return InPlace.safe(new Schedule.Launch(kernel, List.of(bound), List.of(), "test"), output, buffer);
    }

    @Test
    void aPointwiseOutputMayOverwriteAnInputAtTheSamePositions() {
        assertTrue(safe(unary(UnaryOp.SIN, 7), 0, 3, 3, 9));
        assertTrue(safe(binary(BinaryOp.MUL, 7), 0, 4, 3, 4, 9));
        assertTrue(safe(binary(BinaryOp.MUL, 7), 0, 3, 3, 3, 9), "x*x, both reads at the written position");
    }

    @Test
    void anInputReadThroughAViewOrABroadcastIsNotOverwritten() {
        var space = Shape.of(3, 2);
        var transposed = pointwise(space, List.of(input(6, map(0, 1, 3))), unary(UnaryOp.NEG, IN0));
        assertFalse(safe(transposed, 0, 3, 3, 9));
        var broadcast = pointwise(space, List.of(input(2, map(0, 0, 1))), unary(UnaryOp.NEG, IN0));
        assertFalse(safe(broadcast, 0, 3, 3, 9));
        var shifted = pointwise(Shape.of(4), List.of(input(6, map(2, 1))), unary(UnaryOp.NEG, IN0));
        assertFalse(safe(shifted, 0, 3, 3, 9), "reads position p + 2 while writing p");
    }

    @Test
    void aBufferBoundTwiceMustBeReadAtTheWrittenPositionByBoth() {
        var space = Shape.of(3, 3);
        var plusTranspose = pointwise(space, List.of(input(9, identity(3, 3)), input(9, map(0, 1, 3))), binary(BinaryOp.ADD, IN0, IN1));
        assertFalse(safe(plusTranspose, 0, 3, 3, 3, 9), "x + xᵀ reads x[j][i] after writing it");
        assertTrue(safe(plusTranspose, 0, 3, 3, 4, 9), "only the identity binding is this buffer");
        assertFalse(safe(plusTranspose, 0, 4, 3, 4, 9));
    }

    @Test
    void anOutputWrittenLaterMustNotReadTheOverwrittenInput() {
        var space = Shape.of(5);
        var outputs = List.of(new Kernel.Output(unary(UnaryOp.SIN, IN0), 5, identity(5), false),
                new Kernel.Output(unary(UnaryOp.COS, IN0), 5, identity(5), false));
        var siblings = new Kernel(space, 0, List.of(input(5, identity(5))), List.of(), outputs);
        assertFalse(safe(siblings, 0, 3, 3, 8, 9), "cos(x) would read sin(x)");
        assertTrue(safe(siblings, 1, 3, 3, 8, 9), "sin(x) was written before cos(x) overwrites x");
    }

    @Test
    void aRowKernelMayOverwriteWhatItsReductionsReadBecauseEachRowIsFoldedBeforeItIsWritten() {
        assertTrue(safe(softmax(4, 9), 0, 3, 3, 9));
    }

    @Test
    void aRowOutputOrAnElementReadAfterTheWriteIsRefused() {
        var space = Shape.of(4, 9);
        var sum = new Kernel.Reduction(ReduceOp.SUM, unary(UnaryOp.EXP, IN0));
        var full = new Kernel.Output(unary(UnaryOp.NEG, IN0), 36, identity(4, 9), false);
        var row = new Kernel.Output(new Expr.Accumulated(0, DType.F32), 4, map(0, 1, 0), true);
        var withRow = new Kernel(space, 1, List.of(input(36, identity(4, 9))), List.of(sum), List.of(full, row));
        assertTrue(safe(withRow, 0, 3, 3, 8, 9), "the row output reads only the finished sum");
        assertFalse(safe(withRow, 1, 3, 3, 8, 9), "a row output is not element for element");
        var element = new Kernel.Output(new Expr.Element(0, DType.F32), 36, identity(4, 9), false);
        var withElement = new Kernel(space, 1, List.of(input(36, identity(4, 9))), List.of(sum), List.of(full, element));
        assertFalse(safe(withElement, 0, 3, 3, 8, 9), "e0 = exp(x) at the point, which the interpreter recomputes from x");
        assertFalse(safe(withElement, 1, 3, 3, 8, 9), "out1 keeps e0, stored while r0 folds, before out0 reads x");
    }

    /// Generated code stores the elements an output keeps ([dev.smelt.kernel.ElementHome]) while
    /// their reduction folds: after that, only those elements may be read from the shared array.
    @Test
    void anOutputKeepingElementsIsWrittenWhileTheirReductionFolds() {
        var space = Shape.of(4, 9);
        var max = new Kernel.Reduction(ReduceOp.MAX, IN0);
        var shifted = unary(UnaryOp.EXP, binary(BinaryOp.SUB, IN0, new Expr.Accumulated(0, DType.F32)));
        var sum = new Kernel.Reduction(ReduceOp.SUM, shifted);
        var e1 = new Expr.Element(1, DType.F32);
        var r1 = new Expr.Accumulated(1, DType.F32);
        var inputs = List.of(input(36, identity(4, 9)));
        var softmax = new Kernel(space, 1, inputs, List.of(max, sum), List.of(full(binary(BinaryOp.DIV, e1, r1))));
        assertTrue(safe(softmax, 0, 3, 3, 9), "softmax reads x only before it stores e1");
        var rereads = new Kernel(space, 1, inputs, List.of(max, sum), List.of(full(binary(BinaryOp.MUL, binary(BinaryOp.DIV, e1, r1), IN0))));
        assertFalse(safe(rereads, 0, 3, 3, 9), "the output pass reads x where e1 was stored");
        var laterSum = new Kernel.Reduction(ReduceOp.SUM, binary(BinaryOp.MUL, new Expr.Element(0, DType.F32), IN0));
        var keptFirst = new Kernel(space, 1, inputs, List.of(new Kernel.Reduction(ReduceOp.SUM, unary(UnaryOp.EXP, IN0)), laterSum),
                List.of(full(binary(BinaryOp.DIV, new Expr.Element(0, DType.F32), r1))));
        assertFalse(safe(keptFirst, 0, 3, 3, 9), "r1 folds x after e0 is stored over it");
    }

    private static Kernel.Output full(Expr value) { return new Kernel.Output(value, 36, identity(4, 9), false); }

    @Test
    void theOutputMustBeDenseOverTheSpace() {
        var space = Shape.of(2, 3);
        var transposedWrite = new Kernel(space, 0, List.of(input(6, identity(2, 3))), List.of(),
                List.of(new Kernel.Output(unary(UnaryOp.NEG, IN0), 6, map(0, 1, 2), false)));
        assertFalse(safe(transposedWrite, 0, 3, 3, 9));
    }
}
