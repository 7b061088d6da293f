// SPDX-License-Identifier: Apache-2.0
package dev.smelt;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.smelt.driver.Pipeline;
import dev.smelt.ir.SmeltException;
import dev.smelt.kernel.MatMulKernel;
import java.util.List;
import org.junit.jupiter.api.Test;

/// A matmul whose loop space `[M, N, K]` has more points than an `int` counts (2048³ = 2³³) is
/// planned as one generated matmul: only tensors are limited, to Tensor.MAX_SIZE elements.
class LargeMatMulTest {
    @Test
    void aLoopSpaceOverTwoToTheThirtyOnePointsIsPlanned() {
        var traced = Jit.trace((Jit.Function2) (a, b) -> a.matmul(b).relu(), Tensor.zeros(2048, 2048), Tensor.zeros(2048, 2048));
        var program = Pipeline.compile(traced.graph()).program();
        var launches = program.schedule().launches();
        assertEquals(1, launches.size());
        var kernel = (MatMulKernel) launches.getFirst().kernel();
        assertEquals(List.of(2048, 2048, 2048), kernel.space().dims());
        assertEquals(1L << 33, kernel.space().count());
    }

    @Test
    void aTensorIsStillLimitedToMaxSizeElements() {
        var error = org.junit.jupiter.api.Assertions.assertThrows(SmeltException.class, () -> Tensor.zeros(65536, 65536));
        assertTrue(error.getMessage().contains("Tensor.MAX_SIZE"), error.getMessage());
    }
}
