// SPDX-License-Identifier: Apache-2.0
package dev.smelt.fusion;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.smelt.Jit;
import dev.smelt.Tensor;
import dev.smelt.kernel.Schedule;
import java.util.List;
import org.junit.jupiter.api.Test;

/// Which roots share a kernel: sibling reductions only when ready after the same kernel.
class GroupsTest {
    /// Two independent row sums, one of an input and one of a product's result: they are ready
    /// after different kernels, so each is a kernel of its own.
    @Test
    void siblingReductionsReadyAfterDifferentKernelsRunApart() {
        var traced = Jit.trace((List<Tensor> a) -> List.of(a.get(0).sum(1), a.get(1).matmul(a.get(2)).tanh().sum(1)),
                List.of(Tensor.zeros(24, 40), Tensor.zeros(24, 16), Tensor.zeros(16, 40)));
        Schedule schedule = FusionPlanner.plan(traced.graph());
        long sums = schedule.launches().stream().filter(l -> l.kernel() instanceof dev.smelt.kernel.Kernel k && k.reducedRank() > 0).count();
        assertEquals(2, sums, schedule::toString);
    }
}
