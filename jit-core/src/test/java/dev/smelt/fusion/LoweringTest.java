// SPDX-License-Identifier: Apache-2.0
package dev.smelt.fusion;

import dev.smelt.testing.Programs;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

import dev.smelt.Jit;
import dev.smelt.Tensor;
import dev.smelt.ir.Graph;
import dev.smelt.ir.Node;
import dev.smelt.ir.Storage;
import dev.smelt.kernel.KernelInterpreter;
import dev.smelt.kernel.Schedule;
import dev.smelt.ref.Interpreter;
import dev.smelt.runtime.Executor;
import dev.smelt.runtime.Program;
import dev.smelt.testing.RandomGraphs;
import java.util.List;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/// Lowering is tested apart from bytecode: a planned graph run on the kernel interpreter must
/// equal the graph interpreter bit for bit (both compute in double and round once per op, and
/// reduce in the same order), except matmuls, whose products the kernels round before summing.
class LoweringTest {
    static LongStream seeds() { return LongStream.range(0, 400); }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void randomGraphsLowerToKernelsThatMatchTheInterpreter(long seed) {
        Graph graph = RandomGraphs.generate(seed, 12);
        boolean matmul = graph.nodes().stream().anyMatch(n -> n instanceof Node.MatMul);
        List<Storage> inputs = RandomGraphs.inputs(seed, graph);
        if (matmul) inputs.forEach(LoweringTest::moderate);
        Schedule schedule;
        try {
            schedule = FusionPlanner.plan(graph);
        } catch (RuntimeException e) {
            throw new AssertionError("seed " + seed + ": planning failed for\n" + graph, e);
        }
        var program = Programs.of(schedule, KernelInterpreter::of, Executor.sequential());
        var expected = Interpreter.run(graph, inputs);
        var actual = program.run(inputs);
        for (int o = 0; o < expected.size(); o++)
            compare(seed, graph, schedule, o, expected.get(o), actual.get(o), matmul);
    }

    private static void compare(long seed, Graph graph, Schedule schedule, int output, Storage expected, Storage actual, boolean matmul) {
        for (int i = 0; i < expected.size(); i++) {
            double e = expected.get(i), a = actual.get(i);
            boolean same = Double.doubleToLongBits(e) == Double.doubleToLongBits(a) || matmul && close(e, a);
            if (!same) fail("seed %d: output %d element %d: interpreter %s, kernels %s%n%s%n%s".formatted(seed, output, i, e, a, graph, describe(schedule)));
        }
    }

    // Matmul kernels round each product, the interpreter sums exact double products: with
    // infinities or overflow about, the two legitimately part ways, so such graphs get tame data.
    private static void moderate(Storage values) {
        for (int i = 0; i < values.size(); i++)
            if (!Double.isFinite(values.get(i)) || Math.abs(values.get(i)) > 100) values.set(i, i % 7 - 3);
    }

    private static boolean close(double e, double a) {
        if (Double.isNaN(e) || Double.isNaN(a)) return Double.isNaN(e) && Double.isNaN(a);
        return e == a || Math.abs(e - a) <= 1e-3 * Math.max(1, Math.abs(e));
    }

    static String describe(Schedule schedule) {
        var text = new StringBuilder();
        for (var launch : schedule.launches()) text.append(launch.category()).append(' ').append(launch.buffers()).append('\n').append(launch.kernel());
        schedule.decisions().forEach(d -> text.append(d).append('\n'));
        return text.toString();
    }

    private static int kernels(Graph graph) { return FusionPlanner.plan(graph).launches().size(); }

    @Test
    void theSixOpChainIsOneKernel() {
        var x = Tensor.zeros(1027);
        assertEquals(1, kernels(Jit.trace((a, b) -> a.sin().mul(b.cos()).add(a).mul(b).relu(), x, x).graph()));
    }

    @Test
    void softmaxLogSoftmaxLogsumexpAndLayerNormAreOneKernelEach() {
        var x = Tensor.zeros(8, 33);
        assertEquals(1, kernels(Jit.trace(a -> a.softmax(-1), x).graph()));
        assertEquals(1, kernels(Jit.trace(a -> a.logSoftmax(-1), x).graph()));
        assertEquals(1, kernels(Jit.trace(a -> a.logsumexp(1), x).graph()));
        assertEquals(1, kernels(Jit.trace(a -> a.layerNorm(33), x).graph()));
    }

    @Test
    void siblingsShareOneKernelWithTwoOutputs() {
        var x = Tensor.zeros(64);
        var traced = Jit.trace(args -> List.of(args.get(0).sin(), args.get(0).cos()), List.of(x));
        var schedule = FusionPlanner.plan(traced.graph());
        assertEquals(1, schedule.launches().size());
        assertEquals(2, schedule.launches().getFirst().kernel().outputs().size());
    }

    @Test
    void matmulBiasReluIsOneKernel() {
        var x = Tensor.zeros(4, 8);
        var w = Tensor.zeros(8, 3);
        var b = Tensor.zeros(3);
        assertEquals(1, kernels(Jit.trace(a -> a.matmul(w).add(b).relu(), x).graph()));
    }
}
