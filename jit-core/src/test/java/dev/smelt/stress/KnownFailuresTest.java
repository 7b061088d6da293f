// SPDX-License-Identifier: Apache-2.0
package dev.smelt.stress;

import static org.junit.jupiter.api.Assertions.assertNull;

import dev.smelt.Generator;
import dev.smelt.Jit;
import dev.smelt.Tensor;
import dev.smelt.ir.DType;
import java.util.List;
import org.junit.jupiter.api.Disabled;
import org.junit.jupiter.api.Test;

/// The minimal programs of [KnownFailures], as they should behave. Enable each with its fix.
class KnownFailuresTest {
    /// Random program seed 35200, minimised: a product whose epilogue has a value of the matmul's
    /// `[M, N, K]` shape beside another. Any M, N, K do: `[4,2]·[2,2]` with `c.unsqueeze(-1).expand(4, 2, 2)`
    /// fails the same way.
    @Test
    @Disabled("fusion: ScheduleBuilder plans an epilogue value shaped like [M, N, K] as a full-space output; see KnownFailures")
    void matmulEpilogueValueShapedLikeTheSpaceCompiles() {
        Tensor a = Tensor.randn(new Generator(1), DType.F64, 4, 1), b = Tensor.randn(new Generator(2), DType.F64, 1, 1);
        Jit.FunctionN program = args -> {
            Tensor c = args.get(0).matmul(args.get(1));   // [4,1]: the space [M, N, K] is [4,1,1]
            return List.of(c.unsqueeze(-1).exp(), c.sin()); // [4,1,1] and [4,1]
        };
        var results = Jit.compile(program, 2).applyAll(a, b);
        assertNull(Reference.of(Jit.trace(program, List.of(a, b)), List.of(a, b)).mismatch(results));
    }
}
