// SPDX-License-Identifier: Apache-2.0
package dev.smelt.autograd;

import dev.smelt.Jit;
import dev.smelt.Tensor;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/// Gradients of the indexing ops: gather, indexSelect and topk's values (a scatter add back, repeats summed),
/// scatterAdd and scatter (g, and g gathered at the index, for a repeated index only to the source
/// written last), indexPut, and sliceUpdate at a fixed and
/// at a dynamic position; each compiled against the interpreter and central differences in f64
/// (GradientCheck), on random shapes with repeated indices.
class IndexingGradientsTest {
    private final Random random = new Random(2020);

    @Test
    void gatherAndIndexSelect() {
        for (int trial = 0; trial < 4; trial++) {
            int rows = 1 + random.nextInt(6), cols = 1 + random.nextInt(7), n = 1 + random.nextInt(8);
            Tensor x = VjpRulesTest.values(random, false, rows, cols).reshape(rows, cols);
            Tensor ids = Tensor.of(random.ints(n, 0, rows).toArray());
            Tensor index = Tensor.of(random.ints(n * cols, 0, rows).toArray(), n, cols);
            Tensor w = VjpRulesTest.values(random, false, n, cols).reshape(n, cols);
            check("indexSelect", args -> List.of(VjpRulesTest.weighted(args.get(0).indexSelect(0, ids).exp(), args.get(1))), x, w);
            check("gather", args -> List.of(VjpRulesTest.weighted(args.get(0).gather(0, index).square(), args.get(1))), x, w);
            int k = 1 + random.nextInt(cols);
            Tensor top = VjpRulesTest.values(random, false, rows, k).reshape(rows, k);
            check("topk", args -> List.of(VjpRulesTest.weighted(args.get(0).exp().topk(k, 1).getFirst(), args.get(1))), x, top);
        }
    }

    @Test
    void scattersAndUpdates() {
        for (int trial = 0; trial < 4; trial++) {
            int rows = 2 + random.nextInt(5), cols = 1 + random.nextInt(6), n = 1 + random.nextInt(8);
            Tensor x = VjpRulesTest.values(random, false, rows, cols).reshape(rows, cols);
            Tensor w = VjpRulesTest.values(random, false, rows, cols).reshape(rows, cols);
            Tensor src = VjpRulesTest.values(random, false, n, cols).reshape(n, cols);
            Tensor index = Tensor.of(random.ints(n * cols, 0, rows).toArray(), n, cols);
            Tensor ids = Tensor.of(random.ints(1, 0, rows).toArray());
            Tensor row = VjpRulesTest.values(random, false, 1, cols).reshape(1, cols);
            int start = random.nextInt(rows - 1);
            Tensor position = Tensor.scalar(dev.smelt.ir.DType.I32, start);
            Tensor slab = VjpRulesTest.values(random, false, 2, cols).reshape(2, cols);
            check("scatterAdd", args -> List.of(VjpRulesTest.weighted(args.get(0).square().scatterAdd(0, index, args.get(1).exp()), args.get(2))), x, src, w);
            check("indexPut", args -> List.of(VjpRulesTest.weighted(args.get(0).indexPut(0, ids, args.get(1)), args.get(2))), x, row, w);
            // Repeated indices: the source written last reaches the result, the others get no gradient.
            check("scatter with repeats", args -> List.of(VjpRulesTest.weighted(args.get(0).square().scatter(0, index, args.get(1).exp()), args.get(2))), x, src, w);
            Tensor repeated = Tensor.of(random.ints(n, 0, rows).toArray());
            Tensor rows2 = VjpRulesTest.values(random, false, n, cols).reshape(n, cols);
            check("indexPut with repeats", args -> List.of(VjpRulesTest.weighted(args.get(0).indexPut(0, repeated, args.get(1).sin()), args.get(2))), x, rows2, w);
            check("sliceUpdate", args -> List.of(VjpRulesTest.weighted(args.get(0).sliceUpdate(0, start, args.get(1).sin()), args.get(2))), x, slab, w);
            check("sliceUpdate at a tensor", args -> List.of(VjpRulesTest.weighted(args.get(0).exp().sliceUpdate(0, position, args.get(1)), args.get(2))), x, slab, w);
        }
    }

    @Test
    void anEmbeddingGradientIsAScatterAddWithoutAOneHotProduct() {
        int vocab = 1000, dim = 16;
        Tensor ids = Tensor.of(new int[] {3, 999, 3, 0});
        var grad = Autograd.grad((table, w) -> VjpRulesTest.weighted(table.indexSelect(0, ids), w), 0);
        Tensor table = Tensor.randn(new dev.smelt.Generator(1), vocab, dim), w = Tensor.randn(new dev.smelt.Generator(2), 4, dim);
        Tensor g = grad.apply(table, w);
        // row 3 gets the sum of its two uses, unused rows nothing
        for (int j = 0; j < dim; j++) {
            org.junit.jupiter.api.Assertions.assertEquals(w.get(0, j) + w.get(2, j), g.get(3, j), 1e-6);
            org.junit.jupiter.api.Assertions.assertEquals(0, g.get(1, j));
        }
        String plan = grad.explain();
        org.junit.jupiter.api.Assertions.assertTrue(plan.contains("scatter") && !plan.contains("matmul") && !plan.contains("[4,1000]"), plan);
    }

    // Gradients with respect to every argument but the last (the weights).
    private static void check(String name, Jit.FunctionN f, Tensor... arguments) {
        int[] wrt = java.util.stream.IntStream.range(0, arguments.length - 1).toArray();
        GradientCheck.check(name, f, List.of(arguments), wrt);
    }
}
