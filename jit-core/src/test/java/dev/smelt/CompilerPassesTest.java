// SPDX-License-Identifier: Apache-2.0
package dev.smelt;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;

import dev.smelt.driver.Pipeline;
import dev.smelt.ir.Graph;
import dev.smelt.ir.Node;
import dev.smelt.kernel.Schedule;
import dev.smelt.pass.Passes;
import org.junit.jupiter.api.Test;

/// The graph passes inside the compiler: what they remove does not run, and what a compiled
/// function returns is unchanged (values, and fresh storage).
class CompilerPassesTest {
    private static final Tensor X = Tensor.randn(new Generator(1), 8, 16);
    private static final Tensor G0 = Tensor.randn(new Generator(2), 16, 32);
    private static final Tensor G1 = Tensor.randn(new Generator(3), 16, 32);
    private static final Tensor LINEAR = Tensor.randn(new Generator(4), 32, 4);

    /// The seed: `mlp(x) { y = relu(x@g0); unused = x@g1; return y@linear; }`.
    static Tensor mlp(Tensor x, Tensor g0, Tensor g1, Tensor linear) {
        Tensor y = x.matmul(g0).relu();
        Tensor unused = x.matmul(g1);
        return y.matmul(linear);
    }

    @Test
    void theSeedsUnusedMatmulDisappearsAndTwoMatmulKernelsRemain() {
        Traced traced = Jit.trace(CompilerPassesTest::mlp, X, G0, G1, LINEAR);
        assertEquals(2, matmuls(traced.graph()));
        var program = Pipeline.compile(traced.graph()).program();
        assertEquals(2, matmulLaunches(program.schedule()), program.schedule().toString());
        assertEquals(2, scheduledMatmuls(program.schedule()), program.schedule().toString());
        var compiled = Jit.compile(CompilerPassesTest::mlp);
        assertArrayEquals(traced.interpret(X, G0, G1, LINEAR).getFirst().toFloatArray(), compiled.apply(X, G0, G1, LINEAR).toFloatArray(), 1e-4f);
        assertEquals(2, compiled.explain().lines().filter(line -> line.startsWith("kernel ") && line.contains("matmul")).count(), compiled.explain());
    }

    /// Here the third matmul is live in the trace; folding the constant condition kills it.
    @Test
    void aMatmulMadeDeadByFoldingDoesNotRun() {
        Jit.Function4 masked = (x, g0, g1, linear) -> {
            Tensor keep = Tensor.zeros(8, 32).lt(1);                       // all true, but only the compiler knows
            return Tensor.where(keep, x.matmul(g0).relu(), x.matmul(g1)).matmul(linear);
        };
        Traced traced = Jit.trace(masked, X, G0, G1, LINEAR);
        assertEquals(3, matmuls(traced.graph()));
        assertEquals(2, matmuls(Passes.apply(traced.graph())));
        assertEquals(2, scheduledMatmuls(Pipeline.compile(traced.graph()).program().schedule()));
        assertArrayEquals(traced.interpret(X, G0, G1, LINEAR).getFirst().toFloatArray(),
                Jit.compile(masked).apply(X, G0, G1, LINEAR).toFloatArray(), 1e-4f);
    }

    /// `x·0` is not 0 for floats (NaN, ±∞), so that matmul stays.
    @Test
    void aMatmulTimesZeroStays() {
        Jit.Function4 scaled = (x, g0, g1, linear) -> x.matmul(g0).relu().add(x.matmul(g1).mul(0)).matmul(linear);
        Traced traced = Jit.trace(scaled, X, G0, G1, LINEAR);
        assertEquals(3, scheduledMatmuls(Pipeline.compile(traced.graph()).program().schedule()));
    }

    @Test
    void anOutputSimplifiedToItsArgumentIsStillAFreshTensor() {
        var compiled = Jit.compile((Tensor x) -> x.mul(1).add(-0.0));
        var x = Tensor.randn(new Generator(5), 5, 3);
        Tensor result = compiled.apply(x);
        assertArrayEquals(x.toFloatArray(), result.toFloatArray());
        assertNotSame(x.value().storage().array(), result.value().storage().array());
    }

    @Test
    void eagerOpsAreNotOptimisedAway() {
        var x = Tensor.randn(new Generator(6), 4);
        Tensor result = x.mul(1);
        assertArrayEquals(x.toFloatArray(), result.toFloatArray());
        assertNotSame(x.value().storage().array(), result.value().storage().array());
    }

    private static long matmuls(Graph graph) { return graph.nodes().stream().filter(Node.MatMul.class::isInstance).count(); }

    /// Launches that compute a matmul (fused nodes are labelled like `%7 matmul`).
    private static long matmulLaunches(Schedule schedule) {
        return schedule.launches().stream().filter(launch -> launch.fused().stream().anyMatch(CompilerPassesTest::isMatmul)).count();
    }

    /// Matmuls computed by the launches (sibling matmuls over one operand may share a launch).
    private static long scheduledMatmuls(Schedule schedule) {
        return schedule.launches().stream().flatMap(launch -> launch.fused().stream()).filter(CompilerPassesTest::isMatmul).count();
    }

    private static boolean isMatmul(String fusedNode) { return fusedNode.endsWith(" matmul"); }

}
