// SPDX-License-Identifier: Apache-2.0
package dev.smelt.ir;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

/// Each node kind's shape and dtype inference, and the invariants its constructor enforces.
class NodeTest {
    private static final Node.Input F32_2X3 = new Node.Input(0, Shape.of(2, 3), DType.F32);
    private static final Node.Input I32_2X3 = new Node.Input(1, Shape.of(2, 3), DType.I32);
    private static final Node.Input BOOL_2X3 = new Node.Input(2, Shape.of(2, 3), DType.BOOL);

    private static void assertType(String expected, Node node) { assertEquals(expected, Printer.type(node)); }

    private static void assertRejected(String reason, Executable construct) {
        var error = assertThrows(IllegalArgumentException.class, construct);
        assertTrue(error.getMessage().contains(reason), () -> "expected '" + reason + "', got: " + error.getMessage());
    }

    @Test
    void constantRoundsItsValueToTheDtype() {
        assertEquals((float) 0.1, new Node.Constant(0.1, Shape.SCALAR, DType.F32).value());
        assertEquals(-3, new Node.Constant(-3.9, Shape.SCALAR, DType.I32).value());
        assertEquals(1, new Node.Constant(-2, Shape.SCALAR, DType.BOOL).value());
        assertEquals(new Node.Constant(Double.NaN, Shape.of(2), DType.F64), new Node.Constant(Double.NaN, Shape.of(2), DType.F64));
        assertNotEquals(new Node.Constant(0.0, Shape.of(2), DType.F64), new Node.Constant(-0.0, Shape.of(2), DType.F64));
    }

    @Test
    void indexBoundsNameTheirOpAndIndexInOneWordEach() {
        assertEquals("op=crossEntropy what=target limit=10", new IndexBounds("crossEntropy", "target", 10).toString());
        for (String word : new String[] {"", "two words", "tab\there", "line\nbreak", "vertical\u000Btab", "feed\f", "cr\r"}) {
            assertRejected("one-word op", () -> new IndexBounds(word, "target", 10));
            assertRejected("one-word op", () -> new IndexBounds("gather", word, 10));
        }
        assertRejected("one-word op", () -> new IndexBounds(null, "target", 10));
        assertEquals("no\u00A0break", new IndexBounds("no\u00A0break", "x", 1).op()); // a no-break space is not \s: accepted, as by the regex before
    }

    @Test
    void iotaNeedsAnAxisInRange() {
        assertType("i32[2,3]", new Node.Iota(1, Shape.of(2, 3), DType.I32));
        assertRejected("axis 2 out of range for [2,3]", () -> new Node.Iota(2, Shape.of(2, 3), DType.I32));
        assertRejected("axis 0 out of range for []", () -> new Node.Iota(0, Shape.SCALAR, DType.I32));
    }

    @Test
    void unaryKeepsTypeAndRestrictsIntegerOperands() {
        assertType("f32[2,3]", new Node.Unary(UnaryOp.EXP, F32_2X3));
        assertType("i32[2,3]", new Node.Unary(UnaryOp.NEG, I32_2X3));
        assertRejected("exp needs a float operand, not i32", () -> new Node.Unary(UnaryOp.EXP, I32_2X3));
        assertRejected("neg needs a float operand, not bool", () -> new Node.Unary(UnaryOp.NEG, BOOL_2X3));
    }

    @Test
    void binaryNeedsEqualOperandTypesAndComparisonsGiveBool() {
        assertType("f32[2,3]", new Node.Binary(BinaryOp.ADD, F32_2X3, F32_2X3));
        assertType("bool[2,3]", new Node.Binary(BinaryOp.LT, I32_2X3, I32_2X3));
        assertType("bool[2,3]", new Node.Binary(BinaryOp.EQ, BOOL_2X3, BOOL_2X3));
        assertRejected("add: operands differ, [2,3] vs [3]", () -> new Node.Binary(BinaryOp.ADD, F32_2X3, new Node.Input(3, Shape.of(3), DType.F32)));
        assertRejected("add: operands differ, f32 vs i32", () -> new Node.Binary(BinaryOp.ADD, F32_2X3, I32_2X3));
        assertRejected("div is not defined on i32", () -> new Node.Binary(BinaryOp.DIV, I32_2X3, I32_2X3));
        assertRejected("add is not defined on bool", () -> new Node.Binary(BinaryOp.ADD, BOOL_2X3, BOOL_2X3));
    }

    @Test
    void whereNeedsABoolConditionAndMatchingBranches() {
        assertType("i32[2,3]", new Node.Where(BOOL_2X3, I32_2X3, I32_2X3));
        assertRejected("where needs a bool condition, not f32", () -> new Node.Where(F32_2X3, I32_2X3, I32_2X3));
        assertRejected("where: operands differ, i32 vs f32", () -> new Node.Where(BOOL_2X3, I32_2X3, F32_2X3));
        var bool3 = new Node.Input(3, Shape.of(3), DType.BOOL);
        assertRejected("where: operands differ, [3] vs [2,3]", () -> new Node.Where(bool3, I32_2X3, I32_2X3));
    }

    @Test
    void castKeepsShapeAndTakesItsDtype() {
        assertType("bool[2,3]", new Node.Cast(F32_2X3, DType.BOOL));
        assertType("f64[2,3]", new Node.Cast(BOOL_2X3, DType.F64));
    }

    @Test
    void reduceKeepsReducedAxesAsOnes() {
        assertType("f32[1,3]", new Node.Reduce(ReduceOp.SUM, F32_2X3, List.of(0)));
        assertType("f32[1,1]", new Node.Reduce(ReduceOp.MAX, F32_2X3, List.of(0, 1)));
        assertType("f32[2,3]", new Node.Reduce(ReduceOp.PROD, F32_2X3, List.of()));
        assertType("i32[2,1]", new Node.Reduce(ReduceOp.ARGMIN, F32_2X3, List.of(1)));
        assertRejected("axes [1, 0] must be ascending and distinct", () -> new Node.Reduce(ReduceOp.SUM, F32_2X3, List.of(1, 0)));
        assertRejected("axis 2 out of range for [2,3]", () -> new Node.Reduce(ReduceOp.SUM, F32_2X3, List.of(2)));
        assertRejected("argmax reduces exactly one axis, not [0, 1]", () -> new Node.Reduce(ReduceOp.ARGMAX, F32_2X3, List.of(0, 1)));
        assertRejected("sum needs a numeric operand, not bool", () -> new Node.Reduce(ReduceOp.SUM, BOOL_2X3, List.of(0)));
    }

    @Test
    void matmulContractsKWithEitherOperandTransposed() {
        var a = new Node.Input(0, Shape.of(4, 2, 3), DType.F64);
        var b = new Node.Input(1, Shape.of(4, 3, 5), DType.F64);
        var bt = new Node.Input(2, Shape.of(4, 5, 3), DType.F64);
        assertType("f64[4,2,5]", new Node.MatMul(a, b, false, false));
        assertType("f64[4,2,5]", new Node.MatMul(a, bt, false, true));
        assertType("f64[4,3,3]", new Node.MatMul(a, a, true, false));
        assertType("f64[4,5,2]", new Node.MatMul(bt, a, false, true));
        assertType("f64[4,3,5]", new Node.MatMul(a, new Node.Input(3, Shape.of(4, 5, 2), DType.F64), true, true));
        assertRejected("matmul contracts K=3 with K=5", () -> new Node.MatMul(a, bt, false, false));
        assertRejected("matmul batch dimensions differ", () -> new Node.MatMul(a, new Node.Input(3, Shape.of(2, 3, 5), DType.F64), false, false));
        assertRejected("matmul needs operands of equal rank ≥ 2", () -> new Node.MatMul(a, F32_2X3, false, false));
        assertRejected("matmul needs float operands, not i32", () -> new Node.MatMul(I32_2X3, I32_2X3, false, true));
    }

    @Test
    void viewsCheckTheirTargetShapes() {
        assertType("f32[3,2]", new Node.Reshape(F32_2X3, Shape.of(3, 2)));
        assertRejected("reshape from [2,3] to [5] changes the element count", () -> new Node.Reshape(F32_2X3, Shape.of(5)));
        assertType("f32[3,2]", new Node.Permute(F32_2X3, List.of(1, 0)));
        assertRejected("[0, 0] is not a permutation of 2 axes", () -> new Node.Permute(F32_2X3, List.of(0, 0)));
        var column = new Node.Input(3, Shape.of(2, 1), DType.F32);
        assertType("f32[2,4]", new Node.Expand(column, Shape.of(2, 4)));
        assertType("f32[2,0]", new Node.Expand(column, Shape.of(2, 0)));
        assertRejected("axis 1 has size 3, not 1", () -> new Node.Expand(F32_2X3, Shape.of(2, 4)));
        assertRejected("changes the rank", () -> new Node.Expand(column, Shape.of(1, 2, 1)));
    }

    @Test
    void sliceCountsEveryStepthElement() {
        assertType("f32[2,2]", new Node.Slice(F32_2X3, 1, 0, 3, 2));
        assertType("f32[2,1]", new Node.Slice(F32_2X3, 1, 1, 3, 2));
        assertType("f32[2,0]", new Node.Slice(F32_2X3, 1, 3, 3, 1));
        assertRejected("slice 0:4:1 out of range for axis 1 of [2,3]", () -> new Node.Slice(F32_2X3, 1, 0, 4, 1));
        assertRejected("slice 2:1:1 out of range", () -> new Node.Slice(F32_2X3, 1, 2, 1, 1));
        assertRejected("slice 0:3:0 out of range", () -> new Node.Slice(F32_2X3, 1, 0, 3, 0));
    }

    @Test
    void concatAddsUpItsAxisAndMatchesTheRest() {
        var narrow = new Node.Input(3, Shape.of(2, 1), DType.F32);
        assertType("f32[2,7]", new Node.Concat(List.of(F32_2X3, narrow, F32_2X3), 1));
        assertRejected("concat: operands differ, [0,3] vs [0,1]", () -> new Node.Concat(List.of(narrow, F32_2X3), 0));
        assertRejected("concat: operands differ, i32 vs f32", () -> new Node.Concat(List.of(F32_2X3, I32_2X3), 0));
        assertRejected("concat needs at least one part", () -> new Node.Concat(List.of(), 0));
    }

    @Test
    void equalityIsShallowOverIdenticalOperands() {
        var x = new Node.Unary(UnaryOp.EXP, F32_2X3);
        var y = new Node.Unary(UnaryOp.EXP, F32_2X3);
        assertEquals(x, y);
        assertEquals(x.hashCode(), y.hashCode());
        assertNotEquals(new Node.Unary(UnaryOp.NEG, x), new Node.Unary(UnaryOp.NEG, y));
    }

    /// `x = matmul(x, x)` and `x = concat(x, x)` read their operand's shape twice; derived types
    /// are computed once per node, so 10,000 levels take linear time and little stack.
    @Test
    void sharedOperandChainsInferTypesQuickly() {
        assertTimeoutPreemptively(Duration.ofSeconds(10), () -> {
            Node square = new Node.Input(0, Shape.of(3, 3), DType.F32);
            Node column = new Node.Input(1, Shape.of(0, 1), DType.F32);
            for (int level = 0; level < 10_000; level++) {
                square = new Node.MatMul(square, square, level % 2 == 0, false);
                column = new Node.Concat(List.of(column, column), 0);
            }
            assertType("f32[3,3]", square);
            assertType("f32[0,1]", column);
        });
    }

    @Test
    void anExplicitTypeMustEqualTheInferredOne() {
        var x = new Node.Input(0, Shape.of(2, 3), DType.F32);
        assertEquals(new Node.Binary(BinaryOp.ADD, x, x), new Node.Binary(BinaryOp.ADD, x, x, Shape.of(2, 3), DType.F32));
        assertRejected("add: declared type [9] differs from the inferred [2,3]", () -> new Node.Binary(BinaryOp.ADD, x, x, Shape.of(9), DType.F32));
        assertRejected("lt: declared type f32 differs from the inferred bool", () -> new Node.Binary(BinaryOp.LT, x, x, Shape.of(2, 3), DType.F32));
    }

    @Test
    void toStringDescribesOneLevelEvenOnSharedChains() {
        Node x = new Node.Input(0, Shape.of(2), DType.F32);
        for (int i = 0; i < 200; i++) x = new Node.Binary(BinaryOp.MUL, x, x);
        Node deep = x;
        assertTimeoutPreemptively(Duration.ofSeconds(2), () -> assertEquals("mul(f32[2], f32[2]) : f32[2]", deep.toString()));
    }
}
