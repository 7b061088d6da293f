// SPDX-License-Identifier: Apache-2.0
package dev.smelt.ref;

import static dev.smelt.ref.Evaluate.assertValues;
import static dev.smelt.ref.Evaluate.counting;
import static dev.smelt.ref.Evaluate.f32;
import static dev.smelt.ref.Evaluate.i32;
import static dev.smelt.ref.Evaluate.input;
import static dev.smelt.ref.Evaluate.run;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.smelt.ir.BinaryOp;
import dev.smelt.ir.DType;
import dev.smelt.ir.Node;
import dev.smelt.ir.Shape;
import java.util.List;
import org.junit.jupiter.api.Test;

/// Known cases for the views (reshape, permute, expand, slice) and concat, which the interpreter
/// materialises as contiguous row-major copies.
class InterpreterViewsTest {
    @Test
    void reshapeKeepsRowMajorOrder() {
        var x = input(0, DType.I32, 2, 3);
        var reshape = new Node.Reshape(x, Shape.of(3, 1, 2));
        var result = run(reshape, counting(DType.I32, 6));
        assertValues(DType.I32, new double[] {0, 1, 2, 3, 4, 5}, result);
        assertValues(DType.F32, new double[] {7}, run(new Node.Reshape(input(0, DType.F32, 1, 1), Shape.SCALAR), f32(7)));
    }

    @Test
    void permuteOfAMatrixTransposes() {
        var x = input(0, DType.F32, 2, 3);
        assertValues(DType.F32, new double[] {1, 4, 2, 5, 3, 6}, run(new Node.Permute(x, List.of(1, 0)), f32(1, 2, 3, 4, 5, 6)));
    }

    @Test
    void permuteOutputAxisIReadsInputAxisOrderI() {
        // out[i, j, k] = x[j, k, i] for x[2,3,4] holding its own flat index j·12 + k·4 + i.
        var x = input(0, DType.I32, 2, 3, 4);
        var permute = new Node.Permute(x, List.of(2, 0, 1));
        assertEquals(Shape.of(4, 2, 3), permute.shape());
        assertValues(DType.I32, new double[] {0, 4, 8, 12, 16, 20, 1, 5, 9, 13, 17, 21, 2, 6, 10, 14, 18, 22, 3, 7, 11, 15, 19, 23},
                run(permute, counting(DType.I32, 24)));
    }

    @Test
    void permuteWithSizeOneAndSizeZeroAxes() {
        var x = input(0, DType.I32, 1, 3);
        assertValues(DType.I32, new double[] {5, 6, 7}, run(new Node.Permute(x, List.of(1, 0)), i32(5, 6, 7)));
        var empty = input(0, DType.I32, 0, 3);
        assertValues(DType.I32, new double[] {}, run(new Node.Permute(empty, List.of(1, 0)), i32()));
    }

    @Test
    void expandRepeatsSizeOneAxes() {
        var row = input(0, DType.F32, 1, 3);
        assertValues(DType.F32, new double[] {1, 2, 3, 1, 2, 3}, run(new Node.Expand(row, Shape.of(2, 3)), f32(1, 2, 3)));
        var column = input(0, DType.F32, 2, 1);
        assertValues(DType.F32, new double[] {1, 1, 1, 2, 2, 2}, run(new Node.Expand(column, Shape.of(2, 3)), f32(1, 2)));
        var scalar = input(0, DType.F32, 1, 1);
        assertValues(DType.F32, new double[] {9, 9, 9, 9}, run(new Node.Expand(scalar, Shape.of(2, 2)), f32(9)));
        assertValues(DType.F32, new double[] {}, run(new Node.Expand(scalar, Shape.of(0, 2)), f32(9)));
    }

    @Test
    void expandBroadcastsABinaryOperand() {
        // [[1,2,3],[4,5,6]] + [[10],[20]] broadcast along the rows.
        var x = input(0, DType.F32, 2, 3);
        var y = input(1, DType.F32, 2, 1);
        var sum = new Node.Binary(BinaryOp.ADD, x, new Node.Expand(y, Shape.of(2, 3)));
        assertValues(DType.F32, new double[] {11, 12, 13, 24, 25, 26}, run(sum, f32(1, 2, 3, 4, 5, 6), f32(10, 20)));
    }

    @Test
    void sliceTakesStartStopStepOnOneAxis() {
        var x = input(0, DType.I32, 10);
        assertValues(DType.I32, new double[] {1, 4, 7}, run(new Node.Slice(x, 0, 1, 8, 3), counting(DType.I32, 10)));
        assertValues(DType.I32, new double[] {9}, run(new Node.Slice(x, 0, 9, 10, 5), counting(DType.I32, 10)));
        assertValues(DType.I32, new double[] {}, run(new Node.Slice(x, 0, 4, 4, 1), counting(DType.I32, 10)));
    }

    @Test
    void sliceOfAnInnerAxis() {
        // x[3,4] = 0…11; columns 1 and 3 of each row.
        var x = input(0, DType.I32, 3, 4);
        assertValues(DType.I32, new double[] {1, 3, 5, 7, 9, 11}, run(new Node.Slice(x, 1, 1, 4, 2), counting(DType.I32, 12)));
        assertValues(DType.I32, new double[] {4, 5, 6, 7, 8, 9, 10, 11}, run(new Node.Slice(x, 0, 1, 3, 1), counting(DType.I32, 12)));
    }

    @Test
    void concatAlongTheOuterAxisAppendsRows() {
        var a = input(0, DType.F32, 1, 2);
        var b = input(1, DType.F32, 2, 2);
        assertValues(DType.F32, new double[] {1, 2, 3, 4, 5, 6}, run(new Node.Concat(List.of(a, b), 0), f32(1, 2), f32(3, 4, 5, 6)));
    }

    @Test
    void concatAlongAnInnerAxisInterleaves() {
        var a = input(0, DType.F32, 2, 1);
        var b = input(1, DType.F32, 2, 2);
        var empty = input(2, DType.F32, 2, 0);
        var concat = new Node.Concat(List.of(a, empty, b, a), 1);
        assertEquals(Shape.of(2, 4), concat.shape());
        assertValues(DType.F32, new double[] {1, 10, 11, 1, 2, 20, 21, 2}, run(concat, f32(1, 2), f32(10, 11, 20, 21), f32()));
    }

    @Test
    void concatOfThreeDimensionalParts() {
        // a[2,1,2] = 0…3 and b[2,2,2] = 0…7 along axis 1.
        var a = input(0, DType.I32, 2, 1, 2);
        var b = input(1, DType.I32, 2, 2, 2);
        assertValues(DType.I32, new double[] {0, 1, 0, 1, 2, 3, 2, 3, 4, 5, 6, 7},
                run(new Node.Concat(List.of(a, b), 1), counting(DType.I32, 4), counting(DType.I32, 8)));
    }
}
