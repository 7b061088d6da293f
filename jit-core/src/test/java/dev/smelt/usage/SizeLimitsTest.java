// SPDX-License-Identifier: Apache-2.0
package dev.smelt.usage;

import static dev.smelt.usage.Rejects.rejects;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.smelt.Generator;
import dev.smelt.Jit;
import dev.smelt.Tensor;
import dev.smelt.ir.DType;
import org.junit.jupiter.api.Test;

/// A tensor holds at most [Tensor#MAX_SIZE] elements. Every op whose result would be larger is
/// refused where it is called, eagerly and inside a trace (where it is recorded, not run), with the
/// op, the shapes and the limit, never a JVM error or a failure later in the compiler. The large
/// operands here are expanded views of one element, so no test allocates more than a few bytes.
class SizeLimitsTest {
    private static final int N = 65536; // N·N = 2^32 elements: past the limit, each factor far below it
    private static final Tensor COLUMN = Tensor.zeros(1).expand(N, 1), ROW = Tensor.zeros(1).expand(1, N);
    private static final String LIMIT = "Tensor.MAX_SIZE = 2147483639";

    @Test
    void theLimitIsTheLargestArrayEveryJvmAllocates() {
        assertEquals(Integer.MAX_VALUE - 8, Tensor.MAX_SIZE);
        assertEquals(Tensor.MAX_SIZE, Tensor.zeros(1).expand(Tensor.MAX_SIZE).size()); // a view: nothing allocated
        assertEquals(0, Tensor.zeros(0, Integer.MAX_VALUE).size());
    }

    @Test
    void factoriesRefuseShapesPastTheLimit() {
        rejects("full", () -> Tensor.zeros(Integer.MAX_VALUE), "[2147483647]", "2147483647 elements", LIMIT);
        rejects("full", () -> Tensor.zeros(DType.F64, Tensor.MAX_SIZE + 1), "[2147483640]", LIMIT);
        rejects("full", () -> Tensor.ones(1 << 30, 1 << 30, 1 << 30), "[1073741824,1073741824,1073741824]", "1237940039285380274899124224 elements");
        rejects("full", () -> Tensor.full(DType.BOOL, 1, Integer.MAX_VALUE, Integer.MAX_VALUE, Integer.MAX_VALUE, 0), "0 elements", "overflows");
        rejects("rand", () -> Tensor.rand(new Generator(1), Integer.MAX_VALUE), LIMIT);
        rejects("of", () -> Tensor.of(new float[1], N, N), "[65536,65536]", LIMIT);
        rejects("arange", () -> Tensor.arange(0, Integer.MAX_VALUE, 1), "2147483647 elements", LIMIT);
        rejects("arange", () -> Tensor.arange(Integer.MIN_VALUE, Integer.MAX_VALUE, 1), "4294967295 elements");
        rejects("arange", () -> Tensor.arange(0.0, 3e9, 1.0), "3000000000 elements", LIMIT);
        rejects("linspace", () -> Tensor.linspace(0, 1, Integer.MAX_VALUE), "2147483647", LIMIT);
    }

    @Test
    void factoriesRefuseTheSameShapesInsideATrace() {
        var x = Tensor.zeros(2);
        rejects("full", () -> Jit.trace(a -> a.add(Tensor.zeros(Integer.MAX_VALUE)), x), LIMIT);
        rejects("arange", () -> Jit.trace(a -> Tensor.arange(Integer.MAX_VALUE), x), LIMIT);
        rejects("linspace", () -> Jit.compile((Tensor a) -> Tensor.linspace(0, 1, Integer.MAX_VALUE)).apply(x), LIMIT);
    }

    @Test
    void broadcastsPastTheLimitAreRefusedEagerlyAndTraced() {
        String[] why = {"[65536,65536]", "the broadcast of [65536,1] with [1,65536]", "4294967296 elements", LIMIT};
        rejects("add", () -> COLUMN.add(ROW), why);
        rejects("add", () -> Jit.trace((a, b) -> a.add(b), COLUMN, ROW), why);
        rejects("add", () -> Jit.compile((Tensor a, Tensor b) -> a.add(b)).apply(COLUMN, ROW), why);
        rejects("lt", () -> Jit.trace(a -> a.lt(ROW), COLUMN), why);
        rejects("allClose", () -> COLUMN.allClose(ROW), why);
    }

    @Test
    void threeWayBroadcastsWhoseCountPassesALongAreRefused() {
        int big = 1 << 21; // big³ = 2^63
        Tensor one = Tensor.zeros(1, 1, 1);
        Tensor condition = one.gt(0).expand(big, 1, 1), a = one.expand(1, big, 1), b = one.expand(1, 1, big);
        rejects("where", () -> Tensor.where(condition, a, b), "[2097152,2097152,1]", LIMIT);
        rejects("where", () -> Jit.trace((c, x, y) -> Tensor.where(c, x, y), condition, a, b), "[2097152,2097152,1]", LIMIT);
    }

    @Test
    void matmulsWithResultsPastTheLimitAreRefusedEagerlyAndTraced() {
        String[] why = {"[65536,65536]", "f32[65536,1], f32[1,65536]", "4294967296 elements", LIMIT};
        rejects("matmul", () -> COLUMN.matmul(ROW), why);
        rejects("matmul", () -> Jit.trace((a, b) -> a.matmul(b), COLUMN, ROW), why);
        rejects("matmul", () -> Jit.compile((Tensor a, Tensor b) -> a.matmul(b)).apply(COLUMN, ROW), why);
        var batch = Tensor.zeros(1, 1, 1).expand(N, 1, 1);
        rejects("matmul", () -> Jit.trace((a, b) -> a.matmul(b), batch, ROW), "[65536,1,65536]", LIMIT);
    }

    @Test
    void viewsPastTheLimitAreRefusedEagerlyAndTraced() {
        rejects("expand", () -> COLUMN.expand(N, N), "[65536,65536]", LIMIT);
        rejects("expand", () -> Jit.trace(a -> a.expand(N, N), COLUMN), "[65536,65536]", LIMIT);
        rejects("expand", () -> Tensor.zeros(1).expand(1 << 30, 1 << 30, 1 << 30), "1237940039285380274899124224 elements");
        rejects("reshape", () -> Jit.trace(a -> a.reshape(N, N), Tensor.zeros(4)), "[65536,65536]", LIMIT);
        rejects("reshape", () -> Tensor.zeros(6).reshape(N, N, -1), "cannot infer -1");
        rejects("reshape", () -> Tensor.zeros(6).reshape(-1, 1 << 30, 1 << 30, 1 << 30), "cannot infer -1");
    }

    @Test
    void concatsWhoseLengthPassesAnIntAreRefused() {
        Tensor third = Tensor.zeros(1).expand((1 << 30) + 10);
        String[] why = {"along axis 0", "3221225502 elements", LIMIT};
        rejects("concat", () -> Tensor.concat(0, third, third, third), why);
        rejects("concat", () -> Jit.trace(a -> Tensor.concat(0, a, a, a), third), why);
        Tensor empty = Tensor.zeros(0, 1).expand(0, (1 << 30) + 10);
        rejects("concat", () -> Tensor.concat(1, empty, empty, empty), "0 elements, 3221225502 along the axis");
    }

    @Test
    void slicesWithHugeStepsTakeOneElement() {
        var x = Tensor.arange(10);
        assertArrayEquals(new int[] {3}, x.slice(0, 3, 10, Integer.MAX_VALUE).toIntArray());
        assertArrayEquals(new int[] {0}, Jit.trace(a -> a.slice(0, 0, 10, Integer.MAX_VALUE), x).interpret(x).getFirst().toIntArray());
        assertArrayEquals(new int[] {9}, Jit.compile((Tensor a) -> a.slice(0, -1, 10, Integer.MAX_VALUE - 1)).apply(x).toIntArray());
        assertEquals(0, x.slice(0, 10, 10, Integer.MAX_VALUE).size());
        var longest = Tensor.zeros(1).expand(Tensor.MAX_SIZE); // ⌈(MAX_SIZE - 0) / 16⌉ = 2^27, although MAX_SIZE + 15 passes an int
        assertEquals(1 << 27, longest.slice(0, 0, Tensor.MAX_SIZE, 16).size());
        assertEquals("[134217728]", Jit.trace(a -> a.slice(0, 0, Tensor.MAX_SIZE, 16), longest).graph().outputs().getFirst().shape().toString());
    }

    @Test
    void emptyTensorsWithTheLongestAxesComputeNothing() {
        var empty = Tensor.zeros(0, Integer.MAX_VALUE);
        assertEquals("[0,2147483647]", empty.add(1).shape().toString());
        assertEquals("[0,2147483647]", Jit.compile((Tensor a) -> a.add(1)).apply(empty).shape().toString());
        assertEquals("[0,1073741824]", empty.slice(1, 0, Integer.MAX_VALUE, 2).exp().shape().toString());
        assertEquals("[0]", Jit.compile((Tensor a) -> a.exp().mean(1)).apply(empty).shape().toString());
        rejects("sum", () -> empty.sum(0), "[1,2147483647]", "f32[0,2147483647]", LIMIT); // 2^31-1 zeros: past the limit
        rejects("flatten", () -> Tensor.zeros(0, N, N).flatten(1, 2), "axes 1..2 of [0,65536,65536]", "4294967296 elements");
        String printed = Tensor.zeros(Integer.MAX_VALUE, 0).toString(); // summarised, not 2^31-1 lists
        assertTrue(printed.contains("...") && printed.length() < 200, printed);
    }
}
