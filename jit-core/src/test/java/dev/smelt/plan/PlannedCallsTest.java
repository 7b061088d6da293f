// SPDX-License-Identifier: Apache-2.0
package dev.smelt.plan;

import dev.smelt.testing.Programs;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.smelt.Jit;
import dev.smelt.Tensor;
import dev.smelt.ir.DType;
import dev.smelt.ir.Graph;
import dev.smelt.ir.Storage;
import dev.smelt.ref.Interpreter;
import dev.smelt.runtime.Executor;
import dev.smelt.runtime.Program;
import dev.smelt.testing.GraphTolerance;
import dev.smelt.testing.RandomGraphs;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.Test;

/// The unfused six-op chain, large enough that each call also splits its kernels across threads,
/// run from several threads at once and into the caller's arrays.
class PlannedCallsTest {
    static final int N = 2 * dev.smelt.runtime.Executor.PARALLEL_THRESHOLD + 3;   // over the threshold, and no vector length divides it

    static Graph chain() {
        return Jit.trace((x, y) -> x.sin().mul(y.cos()).add(x).mul(y).relu(), Tensor.zeros(N), Tensor.zeros(N)).graph();
    }

    static Program program(Graph graph) {
        return Programs.of(Unfused.schedule(graph), dev.smelt.testing.VectorOnly::compile, Executor.shared());
    }

    @Test
    void concurrentCallsEachGetTheirOwnArenaAndKeepTheirResults() throws Exception {
        Graph graph = chain();
        Program program = program(graph);
        var calls = new ArrayList<Callable<List<Storage>[]>>();
        for (long seed = 0; seed < 6; seed++) {
            long data = seed;
            calls.add(() -> {
                var inputs = RandomGraphs.inputs(data, graph);
                @SuppressWarnings("unchecked") List<Storage>[] run = new List[] {inputs, program.run(inputs)};
                return run;
            });
        }
        var pool = Executors.newFixedThreadPool(4);
        try {
            for (var future : pool.invokeAll(calls)) {
                var run = future.get();   // checked after every call has finished: none clobbered another
                assertMatches(graph, run[0], run[1].getFirst());
            }
        } finally {
            pool.shutdown();
        }
    }

    @Test
    void applyIntoRunsTheWholeChainInTheCallersArray() {
        Graph graph = chain();
        Program program = program(graph);
        var inputs = RandomGraphs.inputs(42, graph);
        var x = inputs.get(0).floats().clone();
        var y = inputs.get(1).floats().clone();
        var out = Storage.allocate(DType.F32, N);
        var returned = program.run(inputs, List.of(out));
        assertSame(out, returned.getFirst());
        assertMatches(graph, inputs, out);
        assertArrayEquals(x, inputs.get(0).floats(), "x is the caller's");
        assertArrayEquals(y, inputs.get(1).floats(), "y is the caller's");
        assertEquals(4L * N, program.memory().intermediateBytes(), "one arena slot, for cos(y)");
    }

    @Test
    void anArenaHoldsOnlyTheIntermediateSlots() {
        var plan = MemoryPlanner.plan(Unfused.schedule(chain()));
        Object[] arena = plan.newArena();
        assertEquals(N, ((float[]) arena[0]).length);
        assertNull(arena[1], "the returned slot is allocated by each call");
    }

    private static void assertMatches(Graph graph, List<Storage> inputs, Storage actual) {
        var expected = Interpreter.run(graph, inputs).getFirst();
        var bounds = Interpreter.run(GraphTolerance.bounds(graph), inputs).getFirst();
        for (int i = 0; i < N; i++) {
            String problem = GraphTolerance.mismatch(expected.get(i), actual.get(i), bounds.get(i));
            if (problem != null) throw new AssertionError("element %d: reference %s, planned %s: %s".formatted(i, expected.get(i), actual.get(i), problem));
        }
    }
}
