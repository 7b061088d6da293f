// SPDX-License-Identifier: Apache-2.0
package dev.smelt;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.smelt.ir.DType;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/// The matmul operand layout decision (fusion's `Relayout`): an einsum operand is packed in place
/// when its rows or its steps of K are contiguous, and first copied into row-major order when
/// neither is; `explain()` names the choice and its estimates; results match eager either way.
class RelayoutTest {
    /// The optimisation seed's case: `(64, 4, 1024)` with the heads axis (4) in the middle. Each
    /// head's rows are 4096 floats apart but its 1024 steps of K are contiguous: packed in place.
    @Test
    void aHeadAxisInTheMiddleIsPackedInPlace() {
        var random = new Random(3);
        Tensor x = EinsumTest.random(random, DType.F32, 64, 4, 1024), w = EinsumTest.random(random, DType.F32, 4, 1024, 32);
        Compiled f = Jit.compile((Tensor a, Tensor b) -> Tensor.einsum("thd,hde->the", a, b));
        assertAgrees(Tensor.einsum("thd,hde->the", x, w), f.apply(x, w), 1024);
        String explain = f.explain();
        assertTrue(explain.contains("A of the matmul: pack in place through its strides (lanes 4096 apart, steps of K 1 apart)"), explain);
        assertFalse(explain.contains(": relayout"), explain);
    }

    /// The heads axis last: each head's rows and steps both lie 4 or more floats apart, so
    /// packing would gather element by element; the operand is written out first.
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"F32", "F64"})
    void anOperandWithNoContiguousAxisIsWrittenOutFirst(DType dtype) {
        var random = new Random(4);
        Tensor x = EinsumTest.random(random, dtype, 33, 70, 4), w = EinsumTest.random(random, dtype, 4, 70, 17);
        Compiled f = Jit.compile((Tensor a, Tensor b) -> Tensor.einsum("tdh,hde->hte", a, b));
        for (int call = 0; call < 2; call++) assertAgrees(Tensor.einsum("tdh,hde->hte", x, w), f.apply(x, w), 70);
        String explain = f.explain();
        assertTrue(explain.matches("(?s).*: relayout \\(est\\. [^)]+ against [^)]+\\): packing A through its strides \\(lanes 280 apart, steps of K 4 apart\\) gathers element by element.*"), explain);
        assertTrue(explain.contains("kernels: 2"), explain);
    }

    /// A plain row-major or transposed operand gets no layout decision at all.
    @Test
    void plainOperandsNeedNoDecision() {
        var random = new Random(5);
        Tensor a = EinsumTest.random(random, DType.F32, 40, 30), b = EinsumTest.random(random, DType.F32, 20, 30);
        Compiled f = Jit.compile((Tensor x, Tensor y) -> x.matmul(y.t()));
        assertAgrees(a.matmul(b.t()), f.apply(a, b), 30);
        assertFalse(f.explain().contains("of the matmul: pack"), f.explain());
    }

    // Products of values in [-1, 1) summed over `depth` steps: a few ulps per step of the sum.
    private static void assertAgrees(Tensor expected, Tensor actual, int depth) {
        double tolerance = depth * (expected.dtype() == DType.F32 ? 0x1p-23 : 0x1p-52) * 4;
        assertTrue(expected.allClose(actual, 0, tolerance, false), () -> "differs beyond " + tolerance);
    }
}
