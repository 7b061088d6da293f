// SPDX-License-Identifier: Apache-2.0
package dev.smelt.ref;

import static dev.smelt.ref.Evaluate.assertValues;
import static dev.smelt.ref.Evaluate.counting;
import static dev.smelt.ref.Evaluate.f32;
import static dev.smelt.ref.Evaluate.f64;
import static dev.smelt.ref.Evaluate.i32;
import static dev.smelt.ref.Evaluate.input;
import static dev.smelt.ref.Evaluate.run;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.smelt.ir.DType;
import dev.smelt.ir.Node;
import dev.smelt.ir.ReduceOp;
import dev.smelt.ir.Shape;
import dev.smelt.ir.Storage;
import java.util.List;
import org.junit.jupiter.api.Test;

/// Known cases for every [ReduceOp]: axes, empty and size-1 axes, NaN, ties and integer wrap-around.
class InterpreterReduceTest {
    static final double NAN = Double.NaN, INF = Double.POSITIVE_INFINITY;

    @Test
    void sumKeepsReducedAxesWithSizeOne() {
        // [[1,2,3],[4,5,6]]
        var x = input(0, DType.F32, 2, 3);
        var rows = new Node.Reduce(ReduceOp.SUM, x, List.of(1));
        assertEquals(Shape.of(2, 1), rows.shape());
        assertValues(DType.F32, new double[] {6, 15}, run(rows, f32(1, 2, 3, 4, 5, 6)));
        assertValues(DType.F32, new double[] {5, 7, 9}, run(new Node.Reduce(ReduceOp.SUM, x, List.of(0)), f32(1, 2, 3, 4, 5, 6)));
        assertValues(DType.F32, new double[] {21}, run(new Node.Reduce(ReduceOp.SUM, x, List.of(0, 1)), f32(1, 2, 3, 4, 5, 6)));
    }

    @Test
    void sumOverTheOuterAndInnerAxesOfThree() {
        // x[i,j,k] = 12i + 4j + k; summing i ∈ {0,1} and k ∈ {0…3} gives 60 + 32j.
        var x = input(0, DType.F64, 2, 3, 4);
        var sum = new Node.Reduce(ReduceOp.SUM, x, List.of(0, 2));
        assertEquals(Shape.of(1, 3, 1), sum.shape());
        assertValues(DType.F64, new double[] {60, 92, 124}, run(sum, counting(DType.F64, 24)));
    }

    @Test
    void sumOverNoAxesStartsFromPlusZero() {
        var x = input(0, DType.F64, 3);
        assertValues(DType.F64, new double[] {1, 0, NAN}, run(new Node.Reduce(ReduceOp.SUM, x, List.of()), f64(1, -0.0, NAN)));
    }

    @Test
    void sumPropagatesNanAndInfinities() {
        var x = input(0, DType.F64, 2, 3);
        assertValues(DType.F64, new double[] {NAN, NAN}, run(new Node.Reduce(ReduceOp.SUM, x, List.of(1)), f64(1, NAN, 2, INF, -INF, 0)));
        assertValues(DType.F64, new double[] {INF}, run(new Node.Reduce(ReduceOp.SUM, input(0, DType.F64, 2), List.of(0)), f64(1e308, 1e308)));
    }

    @Test
    void f32SumAccumulatesInDouble() {
        // In float, 1e8 + 1 = 1e8 and the sum would be 0.
        var x = input(0, DType.F32, 3);
        assertValues(DType.F32, new double[] {1}, run(new Node.Reduce(ReduceOp.SUM, x, List.of(0)), f32(1e8f, 1, -1e8f)));
    }

    @Test
    void f64SumAddsInIndexOrder() {
        // 1e16 + 1 rounds back to 1e16 four times; a compensated sum would give 4.
        var x = input(0, DType.F64, 6);
        assertValues(DType.F64, new double[] {0}, run(new Node.Reduce(ReduceOp.SUM, x, List.of(0)), f64(1e16, 1, 1, 1, 1, -1e16)));
    }

    @Test
    void emptyAxesGiveTheIdentity() {
        var x = input(0, DType.F32, 2, 0);
        assertValues(DType.F32, new double[] {0, 0}, run(new Node.Reduce(ReduceOp.SUM, x, List.of(1)), f32()));
        assertValues(DType.F32, new double[] {1, 1}, run(new Node.Reduce(ReduceOp.PROD, x, List.of(1)), f32()));
        assertValues(DType.F32, new double[] {-INF, -INF}, run(new Node.Reduce(ReduceOp.MAX, x, List.of(1)), f32()));
        assertValues(DType.F32, new double[] {INF, INF}, run(new Node.Reduce(ReduceOp.MIN, x, List.of(1)), f32()));
        assertValues(DType.F32, new double[] {}, run(new Node.Reduce(ReduceOp.SUM, x, List.of(0)), f32()));
        var n = input(0, DType.I32, 0);
        assertValues(DType.I32, new double[] {0}, run(new Node.Reduce(ReduceOp.SUM, n, List.of(0)), i32()));
        assertValues(DType.I32, new double[] {1}, run(new Node.Reduce(ReduceOp.PROD, n, List.of(0)), i32()));
        assertValues(DType.I32, new double[] {Integer.MIN_VALUE}, run(new Node.Reduce(ReduceOp.MAX, n, List.of(0)), i32()));
        assertValues(DType.I32, new double[] {Integer.MAX_VALUE}, run(new Node.Reduce(ReduceOp.MIN, n, List.of(0)), i32()));
    }

    @Test
    void sizeOneAxesReduceToThemselves() {
        var x = input(0, DType.F64, 2, 1);
        for (var op : List.of(ReduceOp.SUM, ReduceOp.PROD, ReduceOp.MAX, ReduceOp.MIN))
            assertValues(DType.F64, new double[] {-3, NAN}, run(new Node.Reduce(op, x, List.of(1)), f64(-3, NAN)));
        assertValues(DType.I32, new double[] {0, 0}, run(new Node.Reduce(ReduceOp.ARGMAX, x, List.of(1)), f64(-3, NAN)));
    }

    @Test
    void prodMultipliesAlongTheAxis() {
        var x = input(0, DType.F64, 2, 3);
        assertValues(DType.F64, new double[] {6, 120}, run(new Node.Reduce(ReduceOp.PROD, x, List.of(1)), f64(1, 2, 3, 4, 5, 6)));
        assertValues(DType.F64, new double[] {NAN, -0.0}, run(new Node.Reduce(ReduceOp.PROD, x, List.of(1)), f64(0, INF, 1, -1, 0, 5)));
    }

    @Test
    void maxAndMinPropagateNan() {
        var x = input(0, DType.F64, 3, 2);
        Storage values = f64(1, NAN, -0.0, 0, -INF, -INF);
        assertValues(DType.F64, new double[] {NAN, 0, -INF}, run(new Node.Reduce(ReduceOp.MAX, x, List.of(1)), values));
        assertValues(DType.F64, new double[] {NAN, -0.0, -INF}, run(new Node.Reduce(ReduceOp.MIN, x, List.of(1)), values));
        assertValues(DType.F64, new double[] {1, NAN}, run(new Node.Reduce(ReduceOp.MAX, x, List.of(0)), values));
        assertValues(DType.F64, new double[] {-INF, NAN}, run(new Node.Reduce(ReduceOp.MIN, x, List.of(0)), values));
    }

    @Test
    void argmaxTakesTheFirstOfTiesAndNanWins() {
        var x = input(0, DType.F32, 4, 4);
        Storage values = f32(1, 3, 3, 2, 1, Float.NaN, 5, Float.NaN, Float.NEGATIVE_INFINITY, Float.NEGATIVE_INFINITY, -7, -7, 0, -0f, 0, 9);
        assertValues(DType.I32, new double[] {1, 1, 2, 3}, run(new Node.Reduce(ReduceOp.ARGMAX, x, List.of(1)), values));
        assertValues(DType.I32, new double[] {0, 1, 0, 0}, run(new Node.Reduce(ReduceOp.ARGMIN, x, List.of(1)), values));
        assertValues(DType.I32, new double[] {0, 1, 1, 1}, run(new Node.Reduce(ReduceOp.ARGMAX, x, List.of(0)), values));
        assertValues(DType.I32, new double[] {2, 1, 2, 1}, run(new Node.Reduce(ReduceOp.ARGMIN, x, List.of(0)), values));
    }

    @Test
    void argReductionsOfIntegersAndOfAnInnerAxis() {
        // x[2,3,2] = 0…11 with 20 planted at [0,1,0] and 70 at [1,0,1].
        var x = input(0, DType.I32, 2, 3, 2);
        var values = i32(0, 1, 20, 3, 4, 5, 6, 70, 8, 9, 10, 11);
        assertValues(DType.I32, new double[] {1, 2, 2, 0}, run(new Node.Reduce(ReduceOp.ARGMAX, x, List.of(1)), values));
        assertValues(DType.I32, new double[] {0, 0, 0, 1}, run(new Node.Reduce(ReduceOp.ARGMIN, x, List.of(1)), values));
        assertValues(DType.I32, new double[] {0, 0}, run(new Node.Reduce(ReduceOp.ARGMAX, input(0, DType.F32, 2, 0), List.of(1)), f32()));
    }

    @Test
    void integerSumAndProdWrap() {
        var x = input(0, DType.I32, 2, 2);
        Storage values = i32(Integer.MAX_VALUE, 1, 65536, 65536);
        assertValues(DType.I32, new double[] {Integer.MIN_VALUE, 131072}, run(new Node.Reduce(ReduceOp.SUM, x, List.of(1)), values));
        assertValues(DType.I32, new double[] {Integer.MAX_VALUE, 0}, run(new Node.Reduce(ReduceOp.PROD, x, List.of(1)), values));
        assertValues(DType.I32, new double[] {Integer.MAX_VALUE, 65536}, run(new Node.Reduce(ReduceOp.MAX, x, List.of(1)), values));
        assertValues(DType.I32, new double[] {65536, 1}, run(new Node.Reduce(ReduceOp.MIN, x, List.of(0)), values));
    }
}
