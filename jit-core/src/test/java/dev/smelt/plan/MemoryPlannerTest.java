// SPDX-License-Identifier: Apache-2.0
package dev.smelt.plan;

import static dev.smelt.plan.Hand.*;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.smelt.Jit;
import dev.smelt.Tensor;
import dev.smelt.ir.BinaryOp;
import dev.smelt.ir.DType;
import dev.smelt.ir.Shape;
import dev.smelt.ir.UnaryOp;
import dev.smelt.kernel.Schedule;
import java.util.List;
import org.junit.jupiter.api.Test;

/// Lifetimes and slots on schedules small enough to check by hand.
class MemoryPlannerTest {
    static final int N = 1 << 20;

    /// The seed's six-op chain `relu((sin(x)·cos(y) + x)·y)` with no fusion: one kernel per op.
    static Schedule sixOpChain(int n) {
        var traced = Jit.trace((x, y) -> x.sin().mul(y.cos()).add(x).mul(y).relu(), Tensor.zeros(n), Tensor.zeros(n));
        return Unfused.schedule(traced.graph());
    }

    @Test
    void lifetimesRunFromTheFirstWriterToTheLastReader() {
        var schedule = sixOpChain(16);
        assertEquals(6, schedule.launches().size());
        assertEquals(List.of(
                new Lifetime(-1, 3, 0, true, false),     // x: read by sin and by +x
                new Lifetime(-1, 4, 0, true, false),     // y: read by cos and by *y
                new Lifetime(0, 2, 1, false, false),     // a = sin x
                new Lifetime(1, 2, 1, false, false),     // b = cos y
                new Lifetime(2, 3, 1, false, false),     // c = a·b
                new Lifetime(3, 4, 1, false, false),     // d = c + x
                new Lifetime(4, 5, 1, false, false),     // e = d·y
                new Lifetime(5, 6, 1, false, true)),     // relu e, returned: live past the last launch
                Lifetime.of(schedule));
    }

    /// The seed's walk-through: only a and b need memory of their own; c overwrites a, d
    /// overwrites c, e overwrites d and the result overwrites e. Unlike the seed, x and y are the
    /// caller's and are never overwritten, and a lives in the result's array from the start.
    @Test
    void theSixOpChainReusesBuffersAsTheSeedWalksThrough() {
        var plan = MemoryPlanner.plan(sixOpChain(N));
        assertEquals("""
                memory: peak 8,388,608 B = 4,194,304 B intermediates (1 slot, kept across calls) + 4,194,304 B outputs; unplanned 25,165,824 B
                slot 0 f32[1048576]: %3 cos (launch 1-2)
                slot 1 f32[1048576] returned as %7 relu: %2 sin (launch 0-2), %4 mul in place (launch 2-3), %5 add in place (launch 3-4), \
                %6 mul in place (launch 4-5), %7 relu in place (launch 5-end)
                """, plan.toString());
        assertEquals(4L * N, plan.intermediateBytes());
        assertEquals(8L * N, plan.peakBytes());
        assertEquals(24L * N, plan.unplannedBytes());
        assertEquals(List.of(-1, -1, 1, 0, 1, 1, 1, 1), plan.slotOf());
    }

    /// a dies before c is born, so c takes a's slot, which grows to c's size; the bool result
    /// cannot hold f32 values, and b, read through a broadcast, is never overwritten in place.
    @Test
    void valuesThatDoNotOverlapShareASlotOfTheirDtypeSizedForTheLargest() {
        var hand = new Builder();
        int x = hand.input(DType.F32, 6);
        int a = hand.buffer(DType.F32, 2, "%1 a"), b = hand.buffer(DType.F32, 6, "%2 b"), c = hand.buffer(DType.F32, 6, "%3 c");
        int d = hand.buffer(DType.BOOL, 6, "%4 d");
        var rows = Shape.of(3, 2);
        hand.launch(pointwise(Shape.of(2), List.of(input(6, map(0, 1))), unary(UnaryOp.NEG, IN0)), x, a)          // a = -x[0:2]
                .launch(pointwise(rows, List.of(input(2, map(0, 0, 1))), unary(UnaryOp.EXP, IN0)), a, b)      // b = exp(a) broadcast to 3×2
                .launch(pointwise(Shape.of(2, 3), List.of(input(6, map(0, 1, 2))), unary(UnaryOp.SIN, IN0)), b, c) // c = sin(bᵀ)
                .launch(pointwise(Shape.of(6), List.of(input(6, identity(6)), input(6, identity(6))), binary(BinaryOp.GT, IN0, IN1)), b, c, d);
        var plan = MemoryPlanner.plan(hand.returning(d));
        assertEquals("""
                memory: peak 54 B = 48 B intermediates (2 slots, kept across calls) + 6 B outputs; unplanned 62 B
                slot 0 f32[6]: %1 a (launch 0-1), %3 c (launch 2-3)
                slot 1 f32[6]: %2 b (launch 1-3)
                slot 2 bool[6] returned as %4 d: %4 d (launch 3-end)
                """, plan.toString());
    }

    /// Softmax's row kernel overwrites its operand: each row is folded twice (max, then the sum of
    /// exponentials, whose values it keeps) before the row is written.
    @Test
    void aRowKernelUpdatesItsOperandInPlace() {
        var hand = new Builder();
        int x = hand.input(DType.F32, 36);
        int a = hand.buffer(DType.F32, 36, "%1 sin"), s = hand.buffer(DType.F32, 36, "%2 softmax"), t = hand.buffer(DType.F32, 36, "%3 neg");
        int u = hand.buffer(DType.F32, 36, "%4 mul");
        hand.launch(unary(UnaryOp.SIN, 36), x, a).launch(softmax(4, 9), a, s).launch(unary(UnaryOp.NEG, 36), s, t)
                .launch(binary(BinaryOp.MUL, 36), t, x, u);
        var plan = MemoryPlanner.plan(hand.returning(u));
        assertEquals("""
                memory: peak 144 B = 0 B intermediates (0 slots, kept across calls) + 144 B outputs; unplanned 576 B
                slot 0 f32[36] returned as %4 mul: %1 sin (launch 0-1), %2 softmax in place (launch 1-2), %3 neg in place (launch 2-3), \
                %4 mul in place (launch 3-end)
                """, plan.toString());
    }

    /// exp is still read after neg is written, so it cannot live in neg's array, but it dies
    /// before sin is written, so it lives in sin's; add overwrites exp, not the returned neg, though
    /// it is neg's last reader.
    @Test
    void returnedValuesAreNeverOverwrittenAndHostOnlyValuesThatDieFirst() {
        var hand = new Builder();
        int x = hand.input(DType.F32, 8);
        int a = hand.buffer(DType.F32, 8, "%1 exp"), r = hand.buffer(DType.F32, 8, "%2 neg"), b = hand.buffer(DType.F32, 8, "%3 add");
        int c = hand.buffer(DType.F32, 8, "%4 sin");
        hand.launch(unary(UnaryOp.EXP, 8), x, a).launch(unary(UnaryOp.NEG, 8), a, r).launch(binary(BinaryOp.ADD, 8), r, a, b)
                .launch(unary(UnaryOp.SIN, 8), b, c);
        var plan = MemoryPlanner.plan(hand.returning(r, c));
        assertEquals("""
                memory: peak 64 B = 0 B intermediates (0 slots, kept across calls) + 64 B outputs; unplanned 128 B
                slot 0 f32[8] returned as %2 neg: %2 neg (launch 1-end)
                slot 1 f32[8] returned as %4 sin: %1 exp (launch 0-2), %3 add in place (launch 2-3), %4 sin in place (launch 3-end)
                """, plan.toString());
    }

    @Test
    void aFusedProgramNeedsOnlyItsOutputAndExplainSaysSo() {
        var compiled = Jit.compile((Tensor x, Tensor y) -> x.sin().mul(y.cos()).add(x).mul(y).relu());
        var x = Tensor.rand(new dev.smelt.Generator(1), 1024);
        compiled.apply(x, x);
        String explain = compiled.explain();
        assertEquals(true, explain.contains("""
                memory: peak 4,096 B = 0 B intermediates (0 slots, kept across calls) + 4,096 B outputs; unplanned 4,096 B
                slot 0 f32[1024] returned as %7 relu: %7 relu (launch 0-end)
                """), explain);
    }
}
