// SPDX-License-Identifier: Apache-2.0
package dev.smelt.examples;

import dev.smelt.Compiled;
import dev.smelt.Generator;
import dev.smelt.Jit;
import dev.smelt.Tensor;
import dev.smelt.examples.support.Explained;
import dev.smelt.examples.support.Timing;

/// The tour's sections on views: matmul written as a broadcast zip then a reduce, and Burn's
/// advice on grouping views before a chain. Part of [Tour]; runs on its own too.
public final class ViewsTour {
    private ViewsTour() {}

    private static final Generator RANDOM = new Generator(1);

    public static void main(String[] args) {
        zipThenReduce();
        groupedViews();
    }

    /// minitorch's matmul as a broadcast zip then a reduce: [2,3,1]·[3,2] → [2,3,2] → sum → [2,2].
    static void zipThenReduce() {
        Explained.section("Matmul as zip-then-reduce vs the fused matmul");
        Jit.Function2 zipReduce = (a, b) -> a.unsqueeze(2).mul(b).sum(1);
        var small = Tensor.arange(6).reshape(2, 3).to(dev.smelt.ir.DType.F32);
        System.out.println("[2,3,1] * [3,2] -> [2,3,2] -> sum(1) = " + zipReduce.apply(small, small.t().contiguous()).toString().replaceAll("\\s*\n\\s*", " "));
        System.out.println("  the seed's [2,3,2] intermediate holds 12 floats (48 B) for a 4-float result; it grows with the inner size");
        var a = Tensor.randn(RANDOM, 128, 256);
        var b = Tensor.randn(RANDOM, 256, 128);
        System.out.printf("at 128x256 . 256x128 eager zip-then-reduce materialises a [128,256,128] intermediate: %,d B%n", 4L * 128 * 256 * 128);
        Compiled compiledZip = Jit.compile(zipReduce), matmul = Jit.compile((x, y) -> x.matmul(y));
        Explained.warm(compiledZip, a, b);
        Explained.warm(matmul, a, b);
        for (var compiled : new Compiled[] {compiledZip, matmul}) System.out.print(Explained.lines(compiled.explain(a, b), "kernel ", "memory:"));
        System.out.println("Compiled, the product is read through a broadcast index map inside the reduction: no intermediate at all.");
        System.out.printf("eager zip-then-reduce %.2f ms, compiled zip-then-reduce %.2f ms, compiled matmul %.2f ms (best of 20)%n",
                Timing.millis(() -> zipReduce.apply(a, b)), Timing.millis(() -> compiledZip.apply(a, b)), Timing.millis(() -> matmul.apply(a, b)));
    }

    /// Burn's advice: group views before a chain, so that the compute reads plain tensors.
    static void groupedViews() {
        Explained.section("Burn's advice: group views before a block of operations");
        var t1 = Tensor.randn(RANDOM, 64, 32);
        var t2 = Tensor.randn(RANDOM, 1, 32, 48);
        var t3 = Tensor.randn(RANDOM, 64, 48);
        Jit.Function3 interleaved = (a, b, c) -> a.unsqueeze(0).matmul(b).add(c.unsqueeze(0)).relu();
        Jit.Function3 grouped = (a, b, c) -> {
            Tensor a3 = a.unsqueeze(0), c3 = c.unsqueeze(0);
            return a3.matmul(b).add(c3).relu();
        };
        System.out.print("views inside the chain:\n" + Explained.lines(Jit.compile(interleaved).explain(t1, t2, t3), "kernels:", "bytes moved"));
        System.out.print("views grouped first:\n" + Explained.lines(Jit.compile(grouped).explain(t1, t2, t3), "kernels:", "bytes moved"));
        System.out.println("Both compile to the same kernels: Smelt's view passes compose views into index maps before fusion."
                + " In eager code, grouping views still saves work: each view is metadata, and the block then runs on plain tensors.");
    }
}
