// SPDX-License-Identifier: Apache-2.0
package dev.smelt.plan;

import dev.smelt.testing.Programs;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.smelt.fusion.FusionPlanner;
import dev.smelt.ir.Graph;
import dev.smelt.ir.Storage;
import dev.smelt.kernel.KernelForm;
import dev.smelt.kernel.KernelFunction;
import dev.smelt.kernel.KernelInterpreter;
import dev.smelt.kernel.Schedule;
import dev.smelt.ref.Interpreter;
import dev.smelt.runtime.Executor;
import dev.smelt.runtime.Program;
import dev.smelt.testing.GraphTolerance;
import dev.smelt.testing.RandomGraphs;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import java.util.stream.LongStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/// Random graphs run through planned programs, so any wrong sharing shows as a wrong value: each
/// program is checked against the reference interpreter on one call, then on a second call with
/// other data (stale values in a reused slot would show), then from several threads at once (two
/// calls sharing an arena would show); and the first call's results must survive the later calls.
/// Unfused schedules (every value materialised) are the hardest case for the planner.
class PlannedProgramsTest {
    private static final Map<KernelForm, KernelFunction> VECTOR = new ConcurrentHashMap<>();
    private static final AtomicLong IN_PLACE = new AtomicLong(), SHARED = new AtomicLong(), CHECKED = new AtomicLong();
    private static final ExecutorService CALLERS = Executors.newFixedThreadPool(4);

    static LongStream seeds() { return LongStream.range(0, 120); }

    private static KernelFunction vector(KernelForm kernel) {
        return VECTOR.computeIfAbsent(kernel, dev.smelt.testing.VectorOnly::compile);
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void unfusedGraphsOnVectorKernels(long seed) {
        Graph graph = RandomGraphs.generate(seed, 14);
        check(seed, graph, Unfused.schedule(graph), PlannedProgramsTest::vector);
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void unfusedGraphsOnTheKernelInterpreter(long seed) {
        Graph graph = RandomGraphs.generate(seed, 14);
        check(seed, graph, Unfused.schedule(graph), KernelInterpreter::of);
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void fusedGraphsOnVectorKernels(long seed) {
        Graph graph = RandomGraphs.generate(seed, 14);
        check(seed, graph, FusionPlanner.plan(graph), PlannedProgramsTest::vector);
    }

    private static void check(long seed, Graph graph, Schedule schedule, Function<KernelForm, KernelFunction> compile) {
        var program = Programs.of(schedule, compile, Executor.shared());
        String context = "seed %d%n%s%n%s".formatted(seed, graph, program.memory());
        PlanCheck.verify(schedule, program.memory());
        var reuse = PlanCheck.reuse(program.memory());
        IN_PLACE.addAndGet(reuse.get(0));
        SHARED.addAndGet(reuse.get(1));
        var first = call(program, graph, seed, context);
        var kept = first.stream().map(PlannedProgramsTest::copy).toList();
        call(program, graph, seed + 1_000_003, context);
        var calls = new ArrayList<Future<?>>();
        for (int thread = 0; thread < 4; thread++) {
            long data = seed + 2_000_000 + 10L * thread;
            calls.add(CALLERS.submit(() -> { for (int k = 0; k < 3; k++) call(program, graph, data + k, context); }));
        }
        for (var future : calls) join(future);
        for (int o = 0; o < kept.size(); o++)
            assertArrayEquals(kept.get(o), copy(first.get(o)), "output %d of the first call changed by later calls: %s".formatted(o, context));
    }

    private static List<Storage> call(Program program, Graph graph, long data, String context) {
        List<Storage> inputs = RandomGraphs.inputs(data, graph);
        var before = inputs.stream().map(PlannedProgramsTest::copy).toList();
        var expected = Interpreter.run(graph, inputs);
        var bounds = Interpreter.run(GraphTolerance.bounds(graph), inputs);
        var actual = program.run(inputs);
        for (int o = 0; o < expected.size(); o++)
            for (int i = 0; i < expected.get(o).size(); i++) {
                String problem = GraphTolerance.mismatch(expected.get(o).get(i), actual.get(o).get(i), bounds.get(o).get(i));
                if (problem != null)
                    fail("data %d, output %d, element %d: reference %s, planned %s: %s%n%s".formatted(data, o, i, expected.get(o).get(i), actual.get(o).get(i), problem, context));
            }
        for (int i = 0; i < inputs.size(); i++) assertArrayEquals(before.get(i), copy(inputs.get(i)), "input %d was overwritten: %s".formatted(i, context));
        CHECKED.incrementAndGet();
        return actual;
    }

    /// The values as bits, so NaN payloads and signed zeros compare exactly.
    private static long[] copy(Storage storage) {
        var bits = new long[storage.size()];
        for (int i = 0; i < bits.length; i++) bits[i] = Double.doubleToRawLongBits(storage.get(i));
        return bits;
    }

    private static void join(Future<?> future) {
        try {
            future.get();
        } catch (java.util.concurrent.ExecutionException e) {
            if (e.getCause() instanceof Error error) throw error;
            throw new AssertionError(e.getCause());
        } catch (InterruptedException e) {
            throw new AssertionError(e);
        }
    }

    /// A planner that never shared a slot would pass every check above.
    @AfterAll
    static void buffersWereShared() {
        CALLERS.shutdown();
        System.out.printf("PlannedProgramsTest: %d calls checked, %d values written in place, %d sharing a slot%n", CHECKED.get(), IN_PLACE.get(), SHARED.get());
        assertTrue(IN_PLACE.get() > 300 && SHARED.get() > IN_PLACE.get(), "in place %d, shared %d".formatted(IN_PLACE.get(), SHARED.get()));
    }
}
