// SPDX-License-Identifier: Apache-2.0
package dev.smelt.codegen;

import dev.smelt.testing.Programs;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.smelt.Jit;
import dev.smelt.Tensor;
import dev.smelt.fusion.FusionPlanner;
import dev.smelt.ir.Graph;
import dev.smelt.ir.Storage;
import dev.smelt.kernel.Kernel;
import dev.smelt.pass.Passes;
import dev.smelt.ref.Interpreter;
import dev.smelt.runtime.Executor;
import dev.smelt.runtime.Program;
import dev.smelt.testing.GraphTolerance;
import dev.smelt.testing.VectorOnly;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/// Reductions over the batch as users write them, traced, fused and run on vector code against the
/// reference interpreter: `sum`, `mean`, `max`, `min`, `prod`, `var`, `argmax`, `softmax` over
/// axis 0 (with and without keepDims), over `(0, 1)` of a 3-d tensor, of permuted, sliced and
/// expanded views, and fusions with a pointwise prologue and several outputs. Each case whose
/// rows are at least a vector wide must compile at least one kernel to the column path.
class ColumnGraphsTest {
    record Case(String name, Jit.Function2 function, boolean columns) {}

    static final List<Case> CASES = List.of(
            new Case("sum(x, 0)", (x, y) -> x.sum(0), true),
            new Case("sum(x, 0, keepDims)", (x, y) -> x.sum(0, true), true),
            new Case("mean(x, 0)", (x, y) -> x.mean(0), true),
            new Case("max(x, 0)", (x, y) -> x.max(0), true),
            new Case("min(x, 0, keepDims)", (x, y) -> x.min(0, true), true),
            new Case("prod(x, 0)", (x, y) -> x.prod(0), false),
            new Case("var(x, 0)", (x, y) -> x.var(0), true),
            new Case("argmax(x, 0)", (x, y) -> x.argmax(0).add(0), true),
            new Case("argmin(x, 0) and min(x, 0)", (x, y) -> x.argmin(0).to(dev.smelt.ir.DType.F32).add(x.min(0)), true),
            new Case("softmax(x, 0)", (x, y) -> x.softmax(0), true),
            new Case("bias gradient sum(relu'(x) * y, 0)", (x, y) -> Tensor.where(x.gt(0), y, 0).sum(0), true),
            new Case("sum(x * y, 0) + max(exp(x), 0)", (x, y) -> x.mul(y).sum(0).add(x.exp().max(0)), true),
            new Case("sum(x, 0) and x * 2 + 1", (x, y) -> x.mul(2).add(1).add(x.sum(0, true)), true),
            new Case("LayerNorm-gradient sums sharing x + y", (x, y) -> x.add(y).mul(x).sum(0).add(x.add(y).mul(y).sum(0)).add(y.sum(0)), true),
            new Case("sum of a slice", (x, y) -> x.slice(0, 1, x.shape().dim(0)).sum(0), true),
            new Case("sum of an expanded row", (x, y) -> x.slice(0, 0, 1).expand(x.shape().dim(0), x.shape().dim(1)).mul(y).sum(0), true));

    static final int[][] SHAPES = {{2, 16}, {7, 17}, {33, 31}, {128, 100}, {5, 257}, {1, 19}, {3, 5}};

    static Stream<Arguments> cases() {
        return CASES.stream().flatMap(c -> Stream.of(SHAPES).map(shape -> Arguments.of(c.name(), c, shape[0], shape[1])));
    }

    @ParameterizedTest(name = "{0} of [{2},{3}]")
    @MethodSource("cases")
    void reductionsOverTheBatchMatchTheInterpreter(String name, Case c, int b, int f) {
        long seed = name.hashCode() * 31L + b * 1000 + f;
        var x = data(seed, b, f);
        var y = data(seed + 1, b, f);
        check(name, Jit.trace(c.function(), x, y).graph(), List.of(x, y), c.columns() && f >= 16 && b > 2);
    }

    /// `[b, c, f]` reduced over `(0, 1)` and over 0, and a permuted `[f, b]` read as `[b, f]`.
    @ParameterizedTest(name = "[{0},{1},{2}]")
    @MethodSource("threeDimensional")
    void reductionsOf3dTensorsAndPermutedViewsMatchTheInterpreter(int b, int c, int f) {
        long seed = b * 10_000L + c * 100 + f;
        var x = data(seed, b * c, f).reshape(b, c, f);
        var t = data(seed + 1, f, b);
        Jit.Function2 function = (u, v) -> u.sum(0, 1).add(u.max(0).sum(0)).add(v.permute(1, 0).mean(0));
        check("3-d", Jit.trace(function, x, t).graph(), List.of(x, t), f >= 16);
    }

    static Stream<Arguments> threeDimensional() {
        return Stream.of(Arguments.of(2, 3, 16), Arguments.of(5, 7, 17), Arguments.of(3, 1, 33), Arguments.of(1, 4, 64), Arguments.of(4, 2, 3));
    }

    /// Gaussian data with NaN, ±∞ and ±0 mixed in.
    private static Tensor data(long seed, int rows, int columns) {
        var random = new Random(seed);
        float[] values = new float[rows * columns];
        double[] specials = {Double.NaN, Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY, 0.0, -0.0};
        for (int i = 0; i < values.length; i++)
            values[i] = (float) (random.nextInt(40) == 0 ? specials[random.nextInt(specials.length)] : random.nextGaussian() * 3);
        return Tensor.of(values, rows, columns);
    }

    private static void check(String name, Graph traced, List<Tensor> arguments, boolean expectColumns) {
        Graph graph = Passes.apply(traced);
        var schedule = FusionPlanner.plan(graph);
        long columnKernels = schedule.launches().stream()
                .filter(launch -> launch.kernel() instanceof Kernel kernel && ColumnPlan.of(kernel, LoopSpace.of(kernel), VectorPlan.of(kernel, 0)) != null).count();
        if (expectColumns) assertTrue(columnKernels > 0, name + ": no kernel takes the column path\n" + schedule);
        List<Storage> inputs = arguments.stream().map(t -> Storage.wrapArray(t.toFloatArray())).toList();
        var expected = Interpreter.run(graph, inputs);
        var bounds = Interpreter.run(GraphTolerance.bounds(graph), inputs);
        var actual = Programs.of(schedule, VectorOnly::compile, Executor.sequential()).run(inputs);
        for (int o = 0; o < expected.size(); o++)
            for (int i = 0; i < expected.get(o).size(); i++) {
                String problem = GraphTolerance.mismatch(expected.get(o).get(i), actual.get(o).get(i), bounds.get(o).get(i));
                if (problem != null)
                    fail("%s, output %d, element %d: reference %s, compiled %s: %s%n%s%n%s".formatted(name, o, i, expected.get(o).get(i),
                            actual.get(o).get(i), problem, graph, schedule));
            }
    }
}
