// SPDX-License-Identifier: Apache-2.0
package dev.smelt.fusion;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.smelt.Generator;
import dev.smelt.Jit;
import dev.smelt.Tensor;
import dev.smelt.ir.DType;
import dev.smelt.ir.Graph;
import dev.smelt.ir.Node;
import dev.smelt.kernel.Decision;
import dev.smelt.kernel.Expr;
import dev.smelt.kernel.Kernel;
import dev.smelt.kernel.KernelForm;
import dev.smelt.kernel.Schedule;
import java.util.List;
import org.junit.jupiter.api.Test;

/// The planner's costed choices follow the [CostModel] its options carry, not the calibrated
/// weights: with recomputation free it never materialises, with memory free it materialises every
/// node several kernels compute. Each graph is one where the calibrated model chooses the other way,
/// so a planner that ignored its model would fail here.
class PlannerCostModelTest {
    private static final Generator GENERATOR = new Generator(29);

    /// A plain additive model: bytes moved at `perByte`, each operation at each point at
    /// `perOperation`, a launch at `launch`.
    private record Fake(double perByte, double perOperation, double launch) implements CostModel {
        @Override
        public double time(KernelForm kernel, Machine machine) {
            return kernel instanceof Kernel loops ? kernelTime(loops, machine, Double.NaN) : launch;
        }

        @Override
        public double kernelTime(Kernel kernel, Machine machine, double computeTime) {
            double bytes = 0;
            for (var input : kernel.inputs()) bytes += (double) Math.min(input.size(), kernel.space().count()) * input.dtype().bytes();
            for (var output : kernel.outputs()) bytes += (double) kernel.space().count() * output.dtype().bytes();
            double compute = computeTime;
            if (Double.isNaN(compute)) {
                compute = 0;
                for (var body : Bodies.of(kernel)) compute += body.runs(kernel) * arithmetic(body.values());
            }
            return bytes * perByte + compute + launch;
        }

        @Override
        public double operation(Expr expr) {
            return switch (expr) {
                case Expr.Load _, Expr.Constant _, Expr.Accumulated _, Expr.Shared _ -> 0;
                default -> perOperation;
            };
        }

        @Override
        public double spills(int peak, Machine machine) { return 0; }

        @Override
        public double keptElement(long rowLength, DType dtype) { return Double.POSITIVE_INFINITY; }

        @Override
        public double read(double bytes) { return bytes * perByte; }

        @Override
        public double write(double bytes) { return bytes * perByte; }

        @Override
        public double launch() { return launch; }

        @Override
        public double stridedPack(double elements) { return elements * perByte * 4; }

        @Override
        public double relayoutCopy(double elements) { return elements * perByte * 8; }

        @Override
        public double pointwise(Node node) { return perOperation; }

        @Override
        public double savedPerElement(DType dtype) { return 2 * dtype.bytes() * perByte; }
    }

    /// `|x|^1.7` read by two reductions and a product: the calibrated model materialises the pow
    /// (its lane-by-lane `Math.pow` is dear).
    private static final Jit.FunctionN EXPENSIVE_FAN_OUT = a -> {
        Tensor s = a.get(0).abs().pow(1.7);
        return List.of(s.sum(1, true), s.sum(0, true), s.mul(a.get(1)));
    };

    /// One multiply-add read by kernels of four loop shapes: the calibrated model recomputes it in each.
    private static final Jit.FunctionN CHEAP_FAN_OUT = a -> {
        Tensor c = a.get(0).mul(1.5).add(0.5);
        return List.of(c.sum(1, true), c.reshape(128, 256).max(1, true), c.reshape(64, 512).sum(1, true), c.add(a.get(1)));
    };

    private static Graph traced(Jit.FunctionN function) {
        return Jit.trace(function, List.of(Tensor.randn(GENERATOR, 256, 128), Tensor.randn(GENERATOR, 256, 128))).graph();
    }

    private static Schedule plan(Graph graph, CostModel costs) {
        return FusionPlanner.plan(graph, FusionPlanner.Options.DEFAULT.withCosts(costs));
    }

    private static List<Decision> decisions(Schedule schedule, Decision.Choice choice) {
        return schedule.decisions().stream().filter(d -> d.choice() == choice).toList();
    }

    /// How many launches compute the node printed as `op` (`pow`, `mul`).
    private static long kernelsComputing(Schedule schedule, String op) {
        return schedule.launches().stream().filter(l -> l.fused().stream().anyMatch(f -> f.endsWith(" " + op))).count();
    }

    @Test
    void theCalibratedModelIsTheDefault() {
        assertEquals(CostModel.CALIBRATED, FusionPlanner.Options.DEFAULT.costs());
        var graph = traced(EXPENSIVE_FAN_OUT);
        assertEquals(FusionPlanner.plan(graph).toString(), plan(graph, CostModel.CALIBRATED).toString());
    }

    @Test
    void withRecomputationFreeNothingIsMaterialised() {
        var graph = traced(EXPENSIVE_FAN_OUT);
        var calibrated = plan(graph, CostModel.CALIBRATED);
        assertEquals(1, decisions(calibrated, Decision.Choice.MATERIALISE).size(), calibrated::toString);
        var free = plan(graph, new Fake(1, 0, 0));
        assertTrue(decisions(free, Decision.Choice.MATERIALISE).isEmpty() && decisions(free, Decision.Choice.SPLIT).isEmpty(), free::toString);
        assertEquals(3, kernelsComputing(free, "pow"), free::toString);
        var recomputed = decisions(free, Decision.Choice.RECOMPUTE);
        assertTrue(recomputed.stream().anyMatch(d -> d.subject() instanceof Decision.Subject.GraphNode(var _, var op) && op.equals("pow")), free::toString);
        for (var decision : recomputed) assertTrue(!decision.costed() || decision.cost() <= decision.alternative(), decision::toString);
    }

    @Test
    void withMemoryFreeEveryNodeSeveralKernelsComputeIsMaterialised() {
        var graph = traced(CHEAP_FAN_OUT);
        var calibrated = plan(graph, CostModel.CALIBRATED);
        assertTrue(decisions(calibrated, Decision.Choice.MATERIALISE).isEmpty(), calibrated::toString);
        assertFalse(decisions(calibrated, Decision.Choice.RECOMPUTE).isEmpty(), calibrated::toString);
        var free = plan(graph, new Fake(0, 1, 0));
        assertTrue(decisions(free, Decision.Choice.RECOMPUTE).isEmpty(), free::toString);
        var materialised = decisions(free, Decision.Choice.MATERIALISE);
        assertFalse(materialised.isEmpty(), free::toString);
        for (var decision : materialised) assertTrue(decision.cost() < decision.alternative(), decision::toString);
        assertEquals(1, kernelsComputing(free, "mul"), free::toString);
    }

    /// An einsum operand with its heads axis last has no contiguous axis: the calibrated model
    /// writes it out in row-major order before the matmul packs it; a model where that copy costs
    /// more than packing through the strides packs it in place.
    @Test
    void aRelayoutFollowsTheModelsPricesOfPackingAndCopying() {
        var graph = Jit.trace((Tensor a, Tensor b) -> Tensor.einsum("tdh,hde->hte", a, b), Tensor.randn(GENERATOR, 33, 70, 4), Tensor.randn(GENERATOR, 4, 70, 17)).graph();
        var calibrated = plan(graph, CostModel.CALIBRATED);
        assertEquals(1, decisions(calibrated, Decision.Choice.RELAYOUT).size(), calibrated::toString);
        var copyDear = plan(graph, new Fake(1, 0, 0));
        assertTrue(decisions(copyDear, Decision.Choice.RELAYOUT).isEmpty(), copyDear::toString);
        assertFalse(decisions(copyDear, Decision.Choice.PACK_IN_PLACE).isEmpty(), copyDear::toString);
    }

    /// The estimates a decision prints are the model's: with every weight doubled, each costed
    /// choice is the same and its estimates double.
    @Test
    void decisionsCarryTheModelsEstimates() {
        var graph = traced(EXPENSIVE_FAN_OUT);
        var once = plan(graph, new Fake(1, 1, 100));
        var twice = plan(graph, new Fake(2, 2, 200));
        assertEquals(once.launches().size(), twice.launches().size());
        assertEquals(once.decisions().size(), twice.decisions().size(), twice::toString);
        assertTrue(once.decisions().stream().anyMatch(Decision::costed), once::toString);
        for (int i = 0; i < once.decisions().size(); i++) {
            var a = once.decisions().get(i);
            var b = twice.decisions().get(i);
            assertEquals(a.subject(), b.subject());
            assertEquals(a.choice(), b.choice());
            if (a.costed()) assertEquals(2 * a.cost(), b.cost(), 1e-6 * b.cost(), b::toString);
        }
    }
}
