// SPDX-License-Identifier: Apache-2.0
package dev.smelt.examples;

import dev.smelt.Compiled;
import dev.smelt.Generator;
import dev.smelt.Jit;
import dev.smelt.Tensor;
import dev.smelt.examples.support.Explained;
import dev.smelt.examples.support.Timing;
import dev.smelt.ir.FusionMode;

/// A tour of fusion, reproducing the seed documents' figures with Smelt's own `explain()`: each
/// section compiles the seed's example and prints what the compiler did and what it saved. The
/// matmul-as-reduction and view sections are in [ViewsTour].
public final class Tour {
    private Tour() {}

    private static final Generator RANDOM = new Generator(0);

    public static void main(String[] args) {
        sixOpChain();
        deadMatmul();
        matmulBiasRelu(128, 784, 256, false);
        matmulBiasRelu(1024, 1024, 1024, true);
        ViewsTour.zipThenReduce();
        ViewsTour.groupedViews();
        Explained.section("Training: an MLP 784-512-10 with Adam, each step (forward, backward, update) one compiled program");
        TrainMlp.train(2, java.nio.file.Path.of("target", "loss-curve.svg"));
    }

    /// Eager PyTorch launches six kernels for `relu((sin(x)·cos(y) + x)·y)`; compiled, one.
    static void sixOpChain() {
        Explained.section("The six-op chain relu((sin(x)*cos(y) + x)*y), 1M floats");
        Jit.Function2 chain = (x, y) -> x.sin().mul(y.cos()).add(x).mul(y).relu();
        var x = Tensor.randn(RANDOM, 1 << 20);
        var y = Tensor.randn(RANDOM, 1 << 20);
        Compiled fused = Jit.compile(chain), unfused = fused.withFusion(FusionMode.NONE);
        System.out.printf("kernels: %d unfused -> %d fused%n", Explained.kernels(unfused, x, y), Explained.kernels(fused, x, y));
        Explained.warm(fused, x, y);
        Explained.warm(unfused, x, y);
        System.out.print(Explained.lines(fused.explain(x, y), "kernel 0", "  reads", "bytes moved", "intermediate traffic"));
        System.out.printf("eager %.2f ms, compiled unfused %.2f ms, compiled fused %.2f ms (best of 20)%n",
                Timing.millis(() -> chain.apply(x, y)), Timing.millis(() -> unfused.apply(x, y)), Timing.millis(() -> fused.apply(x, y)));
    }

    /// `unused = x @ gating1` is never returned: only two matmul kernels remain.
    static void deadMatmul() {
        Explained.section("Dead code: an MLP with an unused matmul (b=64, d=256, f=512)");
        var compiled = Jit.compile((x, gating0, gating1, linear) -> {
            Tensor hidden = x.matmul(gating0);
            Tensor unused = x.matmul(gating1); // never read: the trace keeps only what the result needs
            return hidden.relu().matmul(linear);
        });
        String text = compiled.explain(Tensor.randn(RANDOM, 64, 256), Tensor.randn(RANDOM, 256, 512), Tensor.randn(RANDOM, 256, 512), Tensor.randn(RANDOM, 512, 256));
        System.out.print(Explained.lines(text, "kernel "));
        System.out.printf("matmul kernels: %d. The tracer builds the graph from the outputs back, so the unused product never"
                + " enters it: nothing is left for dead-code elimination to remove.%n", text.lines().filter(l -> l.startsWith("kernel ") && l.contains("matmul")).count());
    }

    /// The seed's `analyze_fusion`: matmul → bias → relu (→ dropout, as a multiply by a keep-mask
    /// scaled by 1/(1-p)), counting each eliminated intermediate written once and read once.
    static void matmulBiasRelu(int m, int k, int n, boolean dropout) {
        Explained.section("matmul -> bias -> relu%s at %dx%d . %dx%d".formatted(dropout ? " -> dropout" : "", m, k, k, n));
        var a = Tensor.randn(RANDOM, m, k);
        var w = Tensor.randn(RANDOM, k, n);
        var bias = Tensor.randn(RANDOM, n);
        var mask = Tensor.rand(RANDOM, m, n).lt(0.9).to(a.dtype()).div(0.9);
        String text = dropout
                ? Jit.compile((x, weight, b, keep) -> x.matmul(weight).add(b).relu().mul(keep)).explain(a, w, bias, mask)
                : Jit.compile((x, weight, b) -> x.matmul(weight).add(b).relu()).explain(a, w, bias);
        System.out.print(Explained.lines(text, "kernels:", "kernel ", "intermediate traffic"));
        int ops = dropout ? 4 : 3;
        long output = 4L * m * n;
        long unfused = ops * 2 * output, saved = (ops - 1) * 2 * output;
        System.out.printf("the seed's analyze_fusion (every output written and read, the last only written): unfused %,d B (%.1f MiB),"
                + " fused %,d B (%.1f MiB), saved %,d B (%.0f%%)%n", unfused, unfused / 1048576.0, output, output / 1048576.0, saved, 100.0 * saved / unfused);
    }

}
