// SPDX-License-Identifier: Apache-2.0
package dev.smelt.kernel;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/// How `explain()` prints a decision: its subject, its choice with the choice's particulars, both
/// estimates when the cost model chose, and the reason.
class DecisionTest {
    private static final Decision.Subject POW = new Decision.Subject.GraphNode(3, "pow");

    @Test
    void aRulePrintsItsReasonAlone() {
        var decision = Decision.rule(POW, Decision.Choice.MATERIALISE, "a matmul operand is read many times");
        assertFalse(decision.costed());
        assertEquals("%3 pow: materialise: a matmul operand is read many times", decision.toString());
    }

    @Test
    void aCostedChoicePrintsBothEstimatesAndItsDetail() {
        var decision = Decision.costed(POW, Decision.Choice.RECOMPUTE, 850, 12_300, "recomputing it is cheaper").withDetail("in each of 3 kernels");
        assertTrue(decision.costed());
        assertEquals("%3 pow: recompute in each of 3 kernels (est. 850 ns against 12.3 µs): recomputing it is cheaper", decision.toString());
    }

    @Test
    void aSubjectInsideAKernelNamesTheKernel() {
        var operand = new Decision.Subject.InKernel(2, new Decision.Subject.Value("A of the matmul"));
        var decision = Decision.costed(operand, Decision.Choice.PACK_IN_PLACE, 4.56e6, Double.POSITIVE_INFINITY, "its lanes are contiguous").withDetail("(lanes 1 apart)");
        assertEquals("kernel 2 A of the matmul: pack in place through its strides (lanes 1 apart) (est. 4.56 ms against ∞): its lanes are contiguous", decision.toString());
        assertEquals("kernel 0 %3 pow", new Decision.Subject.InKernel(0, POW).toString());
    }

    @Test
    void everyPartIsRequired() {
        assertThrows(IllegalArgumentException.class, () -> Decision.rule(null, Decision.Choice.MATERIALISE, "why"));
        assertThrows(IllegalArgumentException.class, () -> Decision.rule(POW, null, "why"));
        assertThrows(IllegalArgumentException.class, () -> Decision.rule(POW, Decision.Choice.MATERIALISE, null));
    }
}
