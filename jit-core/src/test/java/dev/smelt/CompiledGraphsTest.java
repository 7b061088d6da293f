// SPDX-License-Identifier: Apache-2.0
package dev.smelt;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.smelt.driver.Pipeline;
import dev.smelt.fusion.FusionPlanner;
import dev.smelt.ir.FusionMode;
import dev.smelt.ir.Graph;
import dev.smelt.ir.Storage;
import dev.smelt.ref.Interpreter;
import dev.smelt.runtime.Executor;
import dev.smelt.runtime.Explain;
import dev.smelt.runtime.Program;
import dev.smelt.testing.GraphTolerance;
import dev.smelt.testing.Programs;
import dev.smelt.testing.RandomGraphs;
import dev.smelt.testing.VectorOnly;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.LongStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/// The whole pipeline against the oracle: random graphs (chains and DAGs, shapes with 0, 1 and
/// primes, broadcasts, views, reductions on every axis, special values in the data) are compiled
/// and run, and every output element must be within the bound [GraphTolerance] derives from the ops.
class CompiledGraphsTest {
    private static final AtomicLong COMPARED = new AtomicLong(), SKIPPED = new AtomicLong();

    static LongStream seeds() { return LongStream.range(0, 300); }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void compiledGraphsMatchTheInterpreterWithinDerivedBounds(long seed) {
        check(seed, Pipeline.compile(RandomGraphs.generate(seed, 14)).program());
    }

    /// The same graphs on vector code only: small kernels would otherwise stay scalar.
    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void vectorKernelsMatchTheInterpreterWithinDerivedBounds(long seed) {
        Graph graph = RandomGraphs.generate(seed, 14);
        var vector = Programs.of(FusionPlanner.plan(graph), VectorOnly::compile, Executor.sequential());
        check(seed, vector, graph);
    }

    /// Greedy fusion (every repeated value in a register, producers recomputed in every consumer)
    /// and no fusion, on vector code: each plan must compute the same values.
    @ParameterizedTest(name = "seed {0}")
    @MethodSource("fewerSeeds")
    void everyFusionModeMatchesTheInterpreter(long seed) {
        Graph graph = RandomGraphs.generate(seed, 14);
        for (var mode : List.of(FusionMode.GREEDY, FusionMode.NONE)) {
            var options = FusionPlanner.Options.DEFAULT.withMode(mode);
            check(seed, Programs.of(FusionPlanner.plan(graph, options), VectorOnly::compile, Executor.sequential()), graph);
        }
    }

    static LongStream fewerSeeds() { return LongStream.range(1000, 1100); }

    private static void check(long seed, Program program) { check(seed, program, RandomGraphs.generate(seed, 14)); }

    private static void check(long seed, Program program, Graph graph) {
        List<Storage> inputs = RandomGraphs.inputs(seed, graph);
        var expected = Interpreter.run(graph, inputs);
        var bounds = Interpreter.run(GraphTolerance.bounds(graph), inputs);
        compare(seed, program, graph, expected, bounds, program.run(inputs));
        // A one-output program also runs through runOne, the compiled call's fast path.
        if (expected.size() == 1)
            compare(seed, program, graph, expected, bounds, List.of(Storage.wrapArray(program.runOne(inputs.toArray(Storage[]::new)))));
    }

    private static void compare(long seed, Program program, Graph graph, List<Storage> expected, List<Storage> bounds, List<Storage> actual) {
        for (int o = 0; o < expected.size(); o++)
            for (int i = 0; i < expected.get(o).size(); i++) {
                double bound = bounds.get(o).get(i);
                String problem = GraphTolerance.mismatch(expected.get(o).get(i), actual.get(o).get(i), bound);
                (Double.isFinite(bound) ? COMPARED : SKIPPED).incrementAndGet();
                if (problem != null)
                    fail("seed %d, output %d, element %d: reference %s, compiled %s: %s%n%s%n%s".formatted(
                            seed, o, i, expected.get(o).get(i), actual.get(o).get(i), problem, graph, Explain.of(graph, program)));
            }
    }

    /// A tolerance that skipped everything would pass anything: most elements must be compared.
    @AfterAll
    static void mostElementsWereCompared() {
        long compared = COMPARED.get(), skipped = SKIPPED.get();
        System.out.printf("CompiledGraphsTest: %d elements compared, %d skipped as unstable%n", compared, skipped);
        assertTrue(compared > 4 * skipped, "compared %d elements, skipped %d as unstable".formatted(compared, skipped));
    }
}
