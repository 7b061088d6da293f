// SPDX-License-Identifier: Apache-2.0
package dev.smelt;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.smelt.driver.Pipeline;
import dev.smelt.fusion.FusionPlanner;
import dev.smelt.ir.BinaryOp;
import dev.smelt.ir.DType;
import dev.smelt.ir.Graph;
import dev.smelt.ir.Node;
import dev.smelt.ir.Shape;
import dev.smelt.ir.SmeltException;
import dev.smelt.ir.Storage;
import dev.smelt.ir.UnaryOp;
import dev.smelt.ref.Interpreter;
import dev.smelt.runtime.Executor;
import dev.smelt.runtime.Explain;
import dev.smelt.runtime.Program;
import dev.smelt.testing.GraphTolerance;
import dev.smelt.testing.Programs;
import dev.smelt.testing.VectorOnly;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

/// Gather, index select, scatter, index put and slice update: random graphs compiled (scalar and
/// vector code) against the reference interpreter, the Tensor API eager and compiled against each
/// other, bounds checks from both, and the KV-cache update written in place.
class IndexingTest {
    private final Random random = new Random(20);

    // ---- graphs against the reference interpreter ----

    @Test
    void gathersOfRandomShapesMatchTheInterpreter() {
        for (int trial = 0; trial < 40; trial++) {
            Shape shape = randomShape(3);
            int axis = random.nextInt(3);
            var x = new Node.Input(0, shape, trial % 4 == 0 ? DType.F64 : DType.F32);
            Shape indexShape = shrunk(shape, axis);
            var index = new Node.Input(1, indexShape, DType.I32);
            // the source read through a view, or computed first (a buffer of its own), and work fused after
            Node source = switch (trial % 3) {
                case 0 -> x;
                case 1 -> new Node.Unary(UnaryOp.EXP, x);
                default -> new Node.Slice(x, axis, 0, shape.dim(axis), 1);
            };
            Node gathered = new Node.Gather(source, axis, index);
            Node out = new Node.Binary(BinaryOp.MUL, gathered, gathered);
            check("gather " + shape + " axis " + axis + " index " + indexShape, new Graph(List.of(x, index), List.of(out)),
                    List.of(values(x), indices(indexShape, shape.dim(axis))));
        }
    }

    @Test
    void rowSelectsOfRandomShapesMatchTheInterpreter() {
        // indexSelect's form: a 1-d index broadcast along the other axes; on the last-but-one axis
        // each selected row is contiguous, which vector code reads with vector loads
        for (int trial = 0; trial < 30; trial++) {
            int rows = 1 + random.nextInt(50), width = trial % 2 == 0 ? 1 + random.nextInt(9) : 16 + random.nextInt(300), n = 1 + random.nextInt(12);
            boolean transposed = trial % 5 == 4;
            var table = new Node.Input(0, transposed ? Shape.of(width, rows) : Shape.of(rows, width), DType.F32);
            Node source = transposed ? new Node.Permute(table, List.of(1, 0)) : table;
            var ids = new Node.Input(1, Shape.of(n), DType.I32);
            Node index = new Node.Expand(new Node.Reshape(ids, Shape.of(n, 1)), Shape.of(n, width));
            Node out = new Node.Unary(UnaryOp.TANH, new Node.Gather(source, 0, index));
            check("select " + n + " of " + rows + "x" + width + (transposed ? " transposed" : ""), new Graph(List.of(table, ids), List.of(out)),
                    List.of(values(table), indices(Shape.of(n), rows)));
        }
    }

    @Test
    void scattersWithRepeatedIndicesMatchTheInterpreterBitForBit() {
        for (int trial = 0; trial < 30; trial++) {
            Shape shape = randomShape(2 + random.nextInt(2));
            int axis = random.nextInt(shape.rank());
            Shape indexShape = shrunk(shape, axis).with(axis, 1 + random.nextInt(3 * shape.dim(axis))); // more sources than slots: repeats
            var x = new Node.Input(0, shape, DType.F32);
            var index = new Node.Input(1, indexShape, DType.I32);
            var src = new Node.Input(2, indexShape, DType.F32);
            boolean add = trial % 3 != 0;
            Node out = new Node.Scatter(new Node.Unary(UnaryOp.NEG, x), axis, index, new Node.Unary(UnaryOp.EXP, src), add);
            check((add ? "scatter add " : "scatter ") + shape + " axis " + axis + " index " + indexShape, new Graph(List.of(x, index, src), List.of(out)),
                    List.of(values(x), indices(indexShape, shape.dim(axis)), values(src)));
        }
    }

    @Test
    void sliceUpdatesAtRandomPositionsMatchTheInterpreter() {
        for (int trial = 0; trial < 30; trial++) {
            Shape shape = randomShape(3);
            int axis = random.nextInt(3), length = 1 + random.nextInt(shape.dim(axis));
            Shape region = shape.with(axis, length);
            var x = new Node.Input(0, shape, DType.F32);
            var start = new Node.Input(1, Shape.SCALAR, DType.I32);
            var value = new Node.Input(2, region, DType.F32);
            Node out = new Node.SliceUpdate(x, axis, start, new Node.Unary(UnaryOp.SQUARE, value));
            var position = Storage.wrap(new int[] {random.nextInt(shape.dim(axis) - length + 1)});
            check("slice update " + shape + " axis " + axis + " of " + length, new Graph(List.of(x, start, value), List.of(out)),
                    List.of(values(x), position, values(value)));
        }
    }

    @Test
    void sortsWithTiesAndNaNMatchTheInterpreter() {
        for (int trial = 0; trial < 20; trial++) {
            Shape shape = randomShape(2);
            int axis = random.nextInt(2);
            var x = new Node.Input(0, shape, trial % 3 == 0 ? DType.I32 : DType.F32);
            var data = Storage.allocate(x.dtype(), shape.size());
            double[] pool = {0.0, -0.0, 1, -1, 2, Double.NaN, 3};
            for (int i = 0; i < data.size(); i++) data.set(i, pool[random.nextInt(x.dtype() == DType.I32 ? 5 : pool.length)]);
            Node sorted = new Node.ArgSort(x, axis, trial % 2 == 0);
            check("argsort " + shape + " axis " + axis, new Graph(List.of(x), List.of(new Node.Gather(x, axis, sorted))), List.of(data));
            check("argsort " + shape + " axis " + axis, new Graph(List.of(x), List.of(sorted)), List.of(data));
        }
    }

    // ---- the Tensor API ----

    @Test
    void gatherAndIndexSelectFollowTorch() {
        var x = Tensor.of(new float[] {1, 2, 3, 4, 5, 6}, 2, 3);
        assertArrayEquals(new float[] {1, 1, 5, 4}, x.gather(1, Tensor.of(new int[] {0, 0, 1, 0}, 2, 2)).toFloatArray());
        assertArrayEquals(new float[] {4, 5, 6, 1, 2, 3, 4, 5, 6}, x.indexSelect(0, Tensor.of(new int[] {1, 0, 1})).toFloatArray());
        assertArrayEquals(new float[] {3, 1, 6, 4}, x.indexSelect(1, Tensor.of(new int[] {2, 0})).toFloatArray());
        // a non-contiguous source and a non-contiguous index
        var xt = x.t();
        var index = Tensor.of(new int[] {1, 0, 0, 1, 1, 1}, 3, 2).t();
        assertArrayEquals(new float[] {2, 4, 1, 5, 2, 5}, xt.gather(0, index.t()).toFloatArray());
    }

    @Test
    void scatterAddSumsRepeatsAndIndexPutAndSliceUpdateWrite() {
        var zeros = Tensor.zeros(3, 2);
        var index = Tensor.of(new int[] {2, 2, 0, 2}, 4, 1).expand(4, 2).contiguous();
        var src = Tensor.of(new float[] {1, 2, 3, 4, 5, 6, 7, 8}, 4, 2);
        assertArrayEquals(new float[] {5, 6, 0, 0, 1 + 3 + 7, 2 + 4 + 8}, zeros.scatterAdd(0, index, src).toFloatArray());
        assertArrayEquals(new float[] {5, 6, 0, 0, 7, 8}, zeros.scatter(0, index, src).toFloatArray());
        assertArrayEquals(new float[] {0, 0, 9, 9, 0, 0}, zeros.indexPut(0, Tensor.of(new int[] {1}), Tensor.full(9, 1, 2)).toFloatArray());
        assertArrayEquals(new float[] {0, 0, 0, 0, 7, 7}, zeros.sliceUpdate(0, -1, Tensor.full(7, 1, 2)).toFloatArray());
        assertArrayEquals(new float[] {0, 0, 7, 7, 7, 7}, zeros.sliceUpdate(0, Tensor.scalar(DType.I32, 1), Tensor.full(7, 2, 2)).toFloatArray());
        assertArrayEquals(new float[] {0, 0, 0, 0, 0, 0}, zeros.toFloatArray(), "functional: the input is unchanged");
    }

    @Test
    void outOfRangeIndicesThrowEagerlyAndCompiled() {
        var x = Tensor.randn(new Generator(1), 4, 3);
        var bad = Tensor.of(new int[] {0, 4});
        var negative = Tensor.of(new int[] {-1, 0});
        var select = Jit.compile((t, i) -> t.indexSelect(0, i).exp());
        for (var index : List.of(bad, negative)) {
            var eager = assertThrows(SmeltException.class, () -> x.indexSelect(0, index));
            var compiled = assertThrows(SmeltException.class, () -> select.apply(x, index));
            assertEquals(eager.getMessage().split(" \\(at ")[0], compiled.getMessage().split(" \\(at ")[0]);
            assertTrue(eager.getMessage().startsWith("indexSelect: index"), eager.getMessage());
        }
        assertThrows(SmeltException.class, () -> x.gather(1, Tensor.of(new int[] {3}, 1, 1)));
        assertThrows(SmeltException.class, () -> x.scatterAdd(0, Tensor.of(new int[] {5}, 1, 1), Tensor.ones(1, 1)));
        var update = Jit.compile((t, p, v) -> t.sliceUpdate(0, p, v));
        var error = assertThrows(SmeltException.class, () -> update.apply(x, Tensor.scalar(DType.I32, 3), Tensor.ones(2, 3)));
        assertTrue(error.getMessage().startsWith("sliceUpdate: start 3"), error.getMessage());
        assertThrows(SmeltException.class, () -> x.sliceUpdate(0, 3, Tensor.ones(2, 3)));
        assertThrows(SmeltException.class, () -> x.indexSelect(0, Tensor.of(new float[] {0})));
        assertThrows(SmeltException.class, () -> x.gather(0, Tensor.of(new int[] {0})));
    }

    /// No index is in range of an empty axis: every op that indexes one refuses a non-empty index
    /// where it is called, eagerly and traced (a gather's kernel was refused by the kernel checker
    /// with a raw error; a scatter into an empty result did no work, so its check went with it).
    @Test
    void anIndexIntoAnEmptyAxisIsRefusedEagerlyAndCompiled() {
        Tensor rows = Tensor.zeros(0, 3), columns = Tensor.zeros(2, 0), one = Tensor.of(new int[] {0}), bad = Tensor.of(new int[] {5, -3}, 2, 1);
        List<Executable> calls = List.of(
                () -> rows.indexSelect(0, one),
                () -> columns.gather(1, Tensor.zeros(DType.I32, 2, 1)),
                () -> columns.scatter(1, bad, Tensor.ones(2, 1)),
                () -> columns.scatterAdd(1, bad, Tensor.ones(2, 1)),
                () -> columns.indexPut(1, Tensor.of(new int[] {7}), Tensor.ones(2, 1)),
                () -> Jit.compile((t, i) -> t.indexSelect(0, i)).apply(rows, one),
                () -> Jit.compile((t, i, v) -> t.scatter(1, i, v)).apply(columns, bad, Tensor.ones(2, 1)));
        for (Executable call : calls) {
            var error = assertThrows(SmeltException.class, call);
            assertTrue(error.getMessage().contains("is empty, so no index is in range") && error.getMessage().contains("IndexingTest.java"), error.getMessage());
        }
        assertEquals(List.of(0, 3), rows.indexSelect(0, Tensor.zeros(DType.I32, 0)).shape().dims());
    }

    @Test
    void compiledIndexingEqualsEagerOnRepeatedCalls() {
        var f = Jit.compile((table, ids, grad) -> table.indexSelect(0, ids).mul(2f).add(Tensor.zeros(table.shape().dims().stream().mapToInt(i -> i).toArray()).scatterAdd(0,
                ids.reshape(-1, 1).expand(ids.size(), table.dim(1)), grad).sum(0)));
        var g = new Generator(5);
        for (int call = 0; call < 4; call++) {
            int vocab = 1 + random.nextInt(40), dim = 1 + random.nextInt(70), n = 1 + random.nextInt(9);
            Tensor table = Tensor.randn(g, vocab, dim), grad = Tensor.randn(g, n, dim);
            Tensor ids = Tensor.of(random.ints(n, 0, vocab).toArray());
            for (int repeat = 0; repeat < 2; repeat++) {
                Tensor expected = table.indexSelect(0, ids).mul(2f).add(Tensor.zeros(vocab, dim).scatterAdd(0, ids.reshape(-1, 1).expand(n, dim), grad).sum(0));
                assertArrayEquals(expected.toFloatArray(), f.apply(table, ids, grad).toFloatArray(), 1e-5f);
            }
        }
    }

    @Test
    void aKvCacheIsUpdatedInPlaceWithoutACopy() {
        // a decode step: write k at position pos, then read the cache; one compile for every position
        var step = Jit.compile((cache, pos, k) -> cache.sliceUpdate(1, pos, k));
        int heads = 3, length = 37, dim = 20;
        var g = new Generator(7);
        Tensor cache = Tensor.zeros(heads, length, dim);
        Tensor expected = Tensor.zeros(heads, length, dim);
        Object array = cache.value().storage().array();
        for (int pos = 0; pos < length; pos += 5) {
            Tensor k = Tensor.randn(g, heads, 1, dim), position = Tensor.scalar(DType.I32, pos);
            expected = expected.sliceUpdate(1, pos, k);
            step.applyUpdating(List.of(cache), cache, position, k);
            assertSame(array, cache.value().storage().array());
            assertArrayEquals(expected.toFloatArray(), cache.toFloatArray());
        }
        String plan = step.explain();
        assertTrue(plan.contains("in the array of input 0"), plan);
        assertFalse(plan.contains("copied"), plan);
    }

    @Test
    void argsortAndTopkAreStable() {
        var x = Tensor.of(new float[] {3, 1, 3, Float.NaN, -0f, 0f}, 6);
        assertArrayEquals(new int[] {4, 5, 1, 0, 2, 3}, x.argsort(0, false).toIntArray());
        assertArrayEquals(new int[] {3, 0, 2, 1, 4, 5}, x.argsort(0, true).toIntArray());
        var top = Tensor.of(new float[] {1, 5, 5, 2, 9, 0, 9, 9}, 2, 4).topk(2, 1);
        assertArrayEquals(new float[] {5, 5, 9, 9}, top.get(0).toFloatArray());
        assertArrayEquals(new int[] {1, 2, 0, 2}, top.get(1).toIntArray());
        assertArrayEquals(new int[] {1, 1, 0, 0}, Tensor.of(new float[] {4, 3, 1, 2}, 2, 2).argsort(0, false).toIntArray());
        assertThrows(SmeltException.class, () -> x.topk(7, 0));
        var flags = Tensor.of(new boolean[] {true, false, true, false}, 4); // false first, as PyTorch sorts bools
        assertArrayEquals(new int[] {1, 3, 0, 2}, flags.argsort(0, false).toIntArray());
        assertArrayEquals(new int[] {0, 2, 1, 3}, flags.argsort(0, true).toIntArray());
        assertArrayEquals(new int[] {0, 2, 1, 3}, Jit.compile(t -> t.argsort(-1, true)).apply(flags).toIntArray());
        assertThrows(SmeltException.class, () -> flags.topk(1, 0));
        assertEquals(0, Tensor.scalar(2.5).argsort(0, true).rank());
        assertEquals(2.5, Tensor.scalar(2.5).topk(1, 0).getFirst().item());
        var compiled = Jit.compile(t -> t.topk(3, -1).getFirst().add(t.argsort(-1, true).slice(-1, 0, 3).to(DType.F32)));
        var g = new Generator(4);
        for (int trial = 0; trial < 4; trial++) {
            // repeated values (rounded normals) make ties, which the stable order must break alike
            Tensor t = Tensor.randn(g, 1 + random.nextInt(5), 3 + random.nextInt(60)).mul(2f).to(DType.I32).to(DType.F32);
            var eager = t.topk(3, -1).getFirst().add(t.argsort(-1, true).slice(-1, 0, 3).to(DType.F32));
            assertArrayEquals(eager.toFloatArray(), compiled.apply(t).toFloatArray());
        }
    }

    @Test
    void aScalarSortsAlongAxisZeroOrMinusOneOnly() {
        Tensor scalar = Tensor.scalar(2.5);
        assertEquals(2.5, scalar.topk(1, -1).getFirst().item());
        assertEquals(0, scalar.argsort(-1, false).item());
        for (int axis : new int[] {1, -2, 5}) { // PyTorch: dim must lie in [-1, 0] for a 0-d tensor
            var topk = assertThrows(SmeltException.class, () -> scalar.topk(1, axis));
            assertTrue(topk.getMessage().contains("axis " + axis + " is out of range for a 0-d tensor"), topk.getMessage());
            assertThrows(SmeltException.class, () -> scalar.argsort(axis, true));
            assertThrows(SmeltException.class, () -> Jit.compile(t -> t.topk(1, axis).getFirst()).apply(scalar));
            assertThrows(SmeltException.class, () -> Jit.compile(t -> t.argsort(axis, false)).apply(scalar));
        }
    }

    // ---- helpers ----

    private Shape randomShape(int rank) {
        var dims = new ArrayList<Integer>();
        for (int d = 0; d < rank; d++) dims.add(random.nextInt(4) == 0 ? 1 : 1 + random.nextInt(d == rank - 1 ? 70 : 7));
        return new Shape(dims);
    }

    // An index shape no larger than `shape` off `axis`, of any length along it.
    private Shape shrunk(Shape shape, int axis) {
        var dims = new ArrayList<Integer>();
        for (int d = 0; d < shape.rank(); d++) dims.add(d == axis ? 1 + random.nextInt(8) : 1 + random.nextInt(shape.dim(d)));
        return new Shape(dims);
    }

    private Storage values(Node.Input input) {
        var storage = Storage.allocate(input.dtype(), input.shape().size());
        for (int i = 0; i < storage.size(); i++) storage.set(i, random.nextGaussian());
        return storage;
    }

    private Storage indices(Shape shape, int limit) { return Storage.wrap(random.ints(shape.size(), 0, limit).toArray()); }

    private static void check(String what, Graph graph, List<Storage> inputs) {
        var vectorOnly = Programs.of(FusionPlanner.plan(graph), VectorOnly::compile, Executor.sequential());
        for (var program : List.of(Pipeline.compile(graph).program(), vectorOnly)) {
            var expected = Interpreter.run(graph, inputs);
            var bounds = Interpreter.run(GraphTolerance.bounds(graph), inputs);
            for (int call = 0; call < 2; call++) {
                var actual = program.run(inputs);
                for (int i = 0; i < expected.getFirst().size(); i++) {
                    String problem = GraphTolerance.mismatch(expected.getFirst().get(i), actual.getFirst().get(i), bounds.getFirst().get(i));
                    if (problem != null)
                        fail("%s, element %d: reference %s, compiled %s: %s%n%s%n%s".formatted(what, i, expected.getFirst().get(i),
                                actual.getFirst().get(i), problem, graph, Explain.of(graph, program)));
                }
            }
        }
    }
}
