// SPDX-License-Identifier: Apache-2.0
package dev.smelt;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/// Updates in place (`MemoryPlanner`'s donations, `Compiled.applyUpdating`): a result written into
/// an argument's own array must equal what a plain call returns, whether the plan computed it there
/// (a pointwise update, a matmul epilogue over the parameter) or had to compute it aside because a
/// later kernel still reads the old value.
class DonationTest {
    private static final Random SHAPES = new Random(11);

    /// Runs `f` plainly, then updating argument 0 in place, and checks both agree bit for bit
    /// (the same kernels run; only where results live differs). Returns the updating plan.
    private static String updatesLikePlainCalls(Compiled f, Tensor... arguments) {
        Tensor expected = f.apply(arguments);
        Tensor target = arguments[0];
        Object array = target.value().storage().array();
        f.applyUpdating(List.of(target), arguments);
        assertSame(array, target.value().storage().array());
        assertArrayEquals(expected.toFloatArray(), target.toFloatArray(), f.explain());
        return f.explain();
    }

    @Test
    void aPointwiseUpdateIsWrittenInPlace() {
        var f = Jit.compile((w, g) -> w.sub(g.mul(0.1f)).mul(0.99f));
        var g = new Generator(1);
        for (int n : new int[] {1, 7, 64, 1000, 4099}) {
            String plan = updatesLikePlainCalls(f, Tensor.randn(g, n), Tensor.randn(g, n));
            assertTrue(plan.contains("in the array of input 0"), plan);
        }
    }

    @Test
    void aMatmulEpilogueUpdatesItsParameterInPlace() {
        var f = Jit.compile((w, x, dy) -> w.sub(x.t().matmul(dy).mul(0.05f)));
        var g = new Generator(2);
        for (int trial = 0; trial < 12; trial++) {
            int batch = 1 + SHAPES.nextInt(40), in = 1 + SHAPES.nextInt(70), out = 1 + SHAPES.nextInt(90);
            String plan = updatesLikePlainCalls(f, Tensor.randn(g, in, out), Tensor.randn(g, batch, in), Tensor.randn(g, batch, out));
            assertTrue(plan.contains("in the array of input 0"), plan);
        }
    }

    @Test
    void aRowOutputUpdatesItsParameterInPlace() {
        // a bias update: b - lr·Σ_batch dy, one row per element of b; and a row-wise one
        var columns = Jit.compile((b, dy) -> b.sub(dy.sum(0).mul(0.1f)));
        var rows = Jit.compile((b, dy) -> b.add(dy.max(1)));
        var g = new Generator(6);
        for (int trial = 0; trial < 8; trial++) {
            int batch = 1 + SHAPES.nextInt(50), width = 1 + SHAPES.nextInt(70);
            String plan = updatesLikePlainCalls(columns, Tensor.randn(g, width), Tensor.randn(g, batch, width));
            assertTrue(plan.contains("in the array of input 0"), plan);
            plan = updatesLikePlainCalls(rows, Tensor.randn(g, batch), Tensor.randn(g, batch, width));
            assertTrue(plan.contains("in the array of input 0"), plan);
        }
    }

    @Test
    void anUpdateWhoseOldValueAnotherResultReadsStillAgrees() {
        // result 0 (the new w) and result 1 (which reads the old w) in either kernel order
        var f = Jit.compile(args -> List.of(args.get(0).mul(2f), args.get(1).matmul(args.get(0)).exp().sum(1)), 2);
        var g = new Generator(3);
        for (int n : new int[] {1, 5, 40}) {
            Tensor w = Tensor.randn(g, n, n), x = Tensor.randn(g, 3, n);
            var expected = f.applyAll(w, x);
            Tensor other = Tensor.zeros(3);
            f.applyUpdating(List.of(w, other), w, x);
            assertArrayEquals(expected.get(0).toFloatArray(), w.toFloatArray(), f.explain());
            assertArrayEquals(expected.get(1).toFloatArray(), other.toFloatArray(), f.explain());
        }
    }

    @Test
    void theOperandOfAMatmulIsNeverOverwrittenByIt() {
        var f = Jit.compile((w, x) -> w.matmul(x).add(w));
        var g = new Generator(4);
        String plan = updatesLikePlainCalls(f, Tensor.randn(g, 6, 6), Tensor.randn(g, 6, 6));
        assertFalse(plan.contains("in the array of input"), plan);
    }

    @Test
    void repeatedUpdatesKeepAgreeingWithPlainCalls() {
        var f = Jit.compile((w, x, dy) -> w.sub(x.t().matmul(dy).mul(0.01f)));
        var g = new Generator(5);
        Tensor w = Tensor.randn(g, 33, 17), x = Tensor.randn(g, 9, 33), dy = Tensor.randn(g, 9, 17);
        Tensor plain = w.mul(1);
        for (int step = 0; step < 5; step++) {
            plain = f.apply(plain, x, dy);
            f.applyUpdating(List.of(w), w, x, dy);
            assertArrayEquals(plain.toFloatArray(), w.toFloatArray(), "step " + step);
        }
        assertEquals(1, f.compiledSignatures());
    }
}
