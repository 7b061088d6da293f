// SPDX-License-Identifier: Apache-2.0
package dev.smelt;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.smelt.driver.Pipeline;
import dev.smelt.fusion.FusionPlanner;
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
import java.util.ArrayList;
import java.util.List;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;
import jdk.incubator.vector.FloatVector;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/// The row composites whose kernels keep what a reduction folds (softmax keeps `exp(x - max)` in
/// its output row, `dev.smelt.kernel.ElementHome`), compiled whole and on vector code only, against
/// the interpreter within the bounds [GraphTolerance] derives: rows of 1, primes, lanes ± 1 and
/// longer than the loop unrolled by two; transposed and sliced inputs; random data with special
/// values; and rows of all -∞, with a +∞, with a NaN, each NaN throughout as in PyTorch.
class RowKernelsTest {
    static final int LANES = FloatVector.SPECIES_PREFERRED.length();
    static final float INF = Float.POSITIVE_INFINITY;

    enum Op {
        SOFTMAX(x -> x.softmax(-1)), LOG_SOFTMAX(x -> x.logSoftmax(-1)), LOGSUMEXP(x -> x.logsumexp(-1, true)),
        LAYER_NORM(x -> x.layerNorm(x.shape().dim(x.shape().rank() - 1)));

        final UnaryOperator<Tensor> function;

        Op(UnaryOperator<Tensor> function) { this.function = function; }
    }

    static Stream<Arguments> shapes() {
        var cases = new ArrayList<Arguments>();
        for (var op : Op.values())
            for (int columns : new int[] {1, 2, 7, LANES - 1, LANES + 1, 2 * LANES + 3, 97, 1027})
                for (int rows : new int[] {1, 5}) cases.add(Arguments.of(op, rows, columns));
        return cases.stream();
    }

    @ParameterizedTest(name = "{0} [{1},{2}]")
    @MethodSource("shapes")
    void rowsOfEveryLengthMatchTheInterpreter(Op op, int rows, int columns) {
        check(op + " [%d,%d]".formatted(rows, columns), Jit.trace(op.function::apply, Tensor.zeros(rows, columns)).graph(), null);
    }

    @ParameterizedTest(name = "{0} [{1},{2}]")
    @MethodSource("shapes")
    void rowsOfViewsMatchTheInterpreter(Op op, int rows, int columns) {
        var transposed = Jit.trace(x -> op.function.apply(x.t()), Tensor.zeros(columns, rows)).graph();
        check(op + " of a transposed [%d,%d]".formatted(columns, rows), transposed, null);
        var sliced = Jit.trace(x -> op.function.apply(x.slice(1, 1, columns + 1)), Tensor.zeros(rows, columns + 3)).graph();
        check(op + " of columns 1.." + columns + " of [%d,%d]".formatted(rows, columns + 3), sliced, null);
    }

    @ParameterizedTest(name = "{0} [4,{1}]")
    @MethodSource("specialRows")
    void rowsOfInfinitiesAndNaNMatchTheInterpreter(Op op, int columns) {
        float[] data = new float[4 * columns];
        for (int j = 0; j < columns; j++) {
            data[j] = -INF;                                  // row 0: all -inf
            data[columns + j] = j % 3 - 1;                   // row 1: +inf at its end
            data[2 * columns + j] = j;                       // row 2: NaN at its start
            data[3 * columns + j] = (j % 5) * 0.25f - 0.5f;  // row 3: ordinary
        }
        data[2 * columns - 1] = INF;
        data[2 * columns] = Float.NaN;
        var graph = Jit.trace(op.function::apply, Tensor.zeros(4, columns)).graph();
        var inputs = List.of(Storage.wrap(data));
        check(op + " with special rows, " + columns + " columns", graph, inputs);
        if (op == Op.SOFTMAX) {
            float[] softmax = Tensor.of(data, 4, columns).softmax(-1).toFloatArray();
            for (int i = 0; i < 3 * columns; i++) assertTrue(Float.isNaN(softmax[i]), "softmax element " + i + " is " + softmax[i] + ", not NaN");
        }
    }

    static Stream<Arguments> specialRows() {
        return Stream.of(Op.values()).flatMap(op -> Stream.of(1, LANES + 1, 1027).map(columns -> Arguments.of(op, columns)));
    }

    /// `graph` compiled and on vector code only, on `inputs` or random data with special values.
    private static void check(String what, Graph graph, List<Storage> inputs) {
        var data = inputs != null ? inputs : RandomGraphs.inputs(what.hashCode(), graph);
        var vectorOnly = Programs.of(FusionPlanner.plan(graph), VectorOnly::compile, Executor.sequential());
        for (var program : List.of(Pipeline.compile(graph).program(), vectorOnly)) {
            var expected = Interpreter.run(graph, data);
            var bounds = Interpreter.run(GraphTolerance.bounds(graph), data);
            var actual = program.run(data);
            for (int o = 0; o < expected.size(); o++)
                for (int i = 0; i < expected.get(o).size(); i++) {
                    String problem = GraphTolerance.mismatch(expected.get(o).get(i), actual.get(o).get(i), bounds.get(o).get(i));
                    if (problem != null)
                        fail("%s, output %d, element %d: reference %s, compiled %s: %s%n%s%n%s".formatted(what, o, i,
                                expected.get(o).get(i), actual.get(o).get(i), problem, graph, Explain.of(graph, program)));
                }
        }
    }
}
