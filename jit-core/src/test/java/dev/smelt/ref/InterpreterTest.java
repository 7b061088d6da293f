// SPDX-License-Identifier: Apache-2.0
package dev.smelt.ref;

import static dev.smelt.ref.Evaluate.assertValues;
import static dev.smelt.ref.Evaluate.bool;
import static dev.smelt.ref.Evaluate.f32;
import static dev.smelt.ref.Evaluate.f64;
import static dev.smelt.ref.Evaluate.i32;
import static dev.smelt.ref.Evaluate.input;
import static dev.smelt.ref.Evaluate.run;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.smelt.ir.BinaryOp;
import dev.smelt.ir.DType;
import dev.smelt.ir.Graph;
import dev.smelt.ir.Node;
import dev.smelt.ir.Shape;
import dev.smelt.ir.Storage;
import dev.smelt.ir.UnaryOp;
import java.util.List;
import org.junit.jupiter.api.Test;

/// Known cases for the graph plumbing and the non-arithmetic leaf and elementwise nodes: inputs,
/// constants, iota, where and cast. Arithmetic is in [InterpreterArithmeticTest].
class InterpreterTest {
    static final double NAN = Double.NaN, INF = Double.POSITIVE_INFINITY;

    @Test
    void rejectsWrongInputCount() {
        var x = input(0, DType.F32, 2, 3);
        var graph = new Graph(List.of(x), List.of(new Node.Unary(UnaryOp.NEG, x)));
        var error = assertThrows(IllegalArgumentException.class, () -> Interpreter.run(graph, List.of()));
        assertEquals("expected 1 inputs, got 0", error.getMessage());
    }

    @Test
    void rejectsInputOfWrongDtypeOrSize() {
        var x = input(0, DType.F32, 2, 3);
        var y = input(1, DType.F32, 2, 3);
        var graph = new Graph(List.of(x, y), List.of(new Node.Binary(BinaryOp.ADD, x, y)));
        var wrongDtype = assertThrows(IllegalArgumentException.class,
                () -> Interpreter.run(graph, List.of(Storage.allocate(DType.F32, 6), Storage.allocate(DType.F64, 5))));
        assertEquals("input %1: expected f32[2,3] (6 elements), got f64 with 5", wrongDtype.getMessage());
        var wrongSize = assertThrows(IllegalArgumentException.class,
                () -> Interpreter.run(graph, List.of(Storage.allocate(DType.F32, 7), Storage.allocate(DType.F32, 6))));
        assertEquals("input %0: expected f32[2,3] (6 elements), got f32 with 7", wrongSize.getMessage());
    }

    @Test
    void returnsEveryOutputInOrderAndSharesSubexpressions() {
        var x = input(0, DType.F64, 3);
        var square = new Node.Binary(BinaryOp.MUL, x, x);
        var sum = new Node.Binary(BinaryOp.ADD, square, square);
        var inputs = List.of(f64(1, 2, 3));
        var outputs = Interpreter.run(new Graph(List.of(x), List.of(sum, square, x)), inputs);
        assertValues(DType.F64, new double[] {2, 8, 18}, outputs.get(0));
        assertValues(DType.F64, new double[] {1, 4, 9}, outputs.get(1));
        assertSame(inputs.getFirst(), outputs.get(2));
    }

    @Test
    void constantFillsItsShapeRoundedToItsDtype() {
        assertValues(DType.F32, new double[] {0.1f, 0.1f}, run(new Node.Constant(0.1, Shape.of(2), DType.F32)));
        assertValues(DType.I32, new double[] {-2, -2, -2}, run(new Node.Constant(-2.7, Shape.of(3, 1), DType.I32)));
        assertValues(DType.BOOL, new double[] {1}, run(new Node.Constant(NAN, Shape.SCALAR, DType.BOOL)));
        assertValues(DType.F64, new double[] {}, run(new Node.Constant(1, Shape.of(4, 0), DType.F64)));
    }

    @Test
    void iotaIsTheIndexAlongItsAxis() {
        assertValues(DType.I32, new double[] {0, 1, 2, 0, 1, 2}, run(new Node.Iota(1, Shape.of(2, 3), DType.I32)));
        assertValues(DType.F32, new double[] {0, 0, 0, 1, 1, 1}, run(new Node.Iota(0, Shape.of(2, 3), DType.F32)));
        assertValues(DType.I32, new double[] {0, 0, 1, 1}, run(new Node.Iota(0, Shape.of(2, 1, 2), DType.I32)));
        assertValues(DType.I32, new double[] {}, run(new Node.Iota(1, Shape.of(0, 3), DType.I32)));
    }

    @Test
    void whereSelectsElementwise() {
        var condition = input(0, DType.BOOL, 4);
        var ifTrue = input(1, DType.F32, 4);
        var ifFalse = input(2, DType.F32, 4);
        var where = new Node.Where(condition, ifTrue, ifFalse);
        assertValues(DType.F32, new double[] {1, -20, NAN, 40},
                run(where, bool(1, 0, 1, 0), f32(1, 2, Float.NaN, 4), f32(Float.NaN, -20, 30, 40)));
    }

    @Test
    void whereOnIntegersAndBools() {
        var condition = input(0, DType.BOOL, 3);
        var ints = new Node.Where(condition, input(1, DType.I32, 3), input(2, DType.I32, 3));
        assertValues(DType.I32, new double[] {Integer.MIN_VALUE, 5, 6}, run(ints, bool(1, 0, 0), i32(Integer.MIN_VALUE, 2, 3), i32(4, 5, 6)));
        var bools = new Node.Where(condition, input(1, DType.BOOL, 3), input(2, DType.BOOL, 3));
        assertValues(DType.BOOL, new double[] {0, 1, 1}, run(bools, bool(1, 0, 1), bool(0, 0, 1), bool(1, 1, 1)));
    }

    @Test
    void castToBoolIsNonzeroAndNanIsTrue() {
        var x = input(0, DType.F64, 6);
        assertValues(DType.BOOL, new double[] {0, 0, 1, 1, 1, 1}, run(new Node.Cast(x, DType.BOOL), f64(0, -0.0, NAN, 0.5, -INF, 1e-320)));
        var n = input(0, DType.I32, 3);
        assertValues(DType.BOOL, new double[] {0, 1, 1}, run(new Node.Cast(n, DType.BOOL), i32(0, 5, -1)));
    }

    @Test
    void castFloatToIntTruncatesTowardZeroAndNanIsZero() {
        var x = input(0, DType.F64, 9);
        // Java's (int) cast saturates out of range, as DType documents.
        assertValues(DType.I32, new double[] {2, -2, 0, 0, 0, Integer.MAX_VALUE, Integer.MAX_VALUE, Integer.MIN_VALUE, Integer.MAX_VALUE},
                run(new Node.Cast(x, DType.I32), f64(2.9, -2.9, -0.5, NAN, -0.0, 1e10, Integer.MAX_VALUE, -INF, INF)));
        var y = input(0, DType.F32, 2);
        assertValues(DType.I32, new double[] {16777216, -3}, run(new Node.Cast(y, DType.I32), f32(16777216f, -3.99f)));
    }

    @Test
    void castToFloatsRoundsOnce() {
        var x = input(0, DType.F64, 4);
        assertValues(DType.F32, new double[] {0.1f, INF, 0, -0.0},
                run(new Node.Cast(x, DType.F32), f64(0.1, 1e40, 1e-50, -1e-50)));
        var n = input(0, DType.I32, 2);
        assertValues(DType.F32, new double[] {16777216f, -2147483648f}, run(new Node.Cast(n, DType.F32), i32(16777217, Integer.MIN_VALUE)));
        assertValues(DType.F64, new double[] {16777217, Integer.MIN_VALUE}, run(new Node.Cast(n, DType.F64), i32(16777217, Integer.MIN_VALUE)));
        var f = input(0, DType.F32, 1);
        assertValues(DType.F64, new double[] {0.10000000149011612}, run(new Node.Cast(f, DType.F64), f32(0.1f)));
        var b = input(0, DType.BOOL, 2);
        assertValues(DType.F32, new double[] {1, 0}, run(new Node.Cast(b, DType.F32), bool(1, 0)));
    }

    @Test
    void castToItsOwnDtypeCopies() {
        var x = input(0, DType.F32, 2);
        var inputs = f32(1.5f, Float.NaN);
        var result = run(new Node.Cast(x, DType.F32), inputs);
        assertValues(DType.F32, new double[] {1.5, NAN}, result);
        inputs.set(0, 7);
        assertEquals(1.5, result.get(0));
    }
}
