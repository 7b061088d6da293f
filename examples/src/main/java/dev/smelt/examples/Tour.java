// SPDX-License-Identifier: Apache-2.0
package dev.smelt.examples;

import dev.smelt.Compiled;
import dev.smelt.Generator;
import dev.smelt.Jit;
import dev.smelt.Tensor;
import dev.smelt.fusion.FusionMode;

/// A tour of fusion, reproducing the seed documents' figures with Smelt's own `explain()`: each
/// section compiles the seed's example and prints what the compiler did and what it saved.
public final class Tour {
    private Tour() {}

    private static final Generator RANDOM = new Generator(0);

    public static void main(String[] args) {
        sixOpChain();
        deadMatmul();
        matmulBiasRelu(128, 784, 256, false);
        matmulBiasRelu(1024, 1024, 1024, true);
        zipThenReduce();
        groupedViews();
        section("Training: an MLP 784-512-10 with Adam, each step (forward, backward, update) one compiled program");
        TrainMlp.train(2, java.nio.file.Path.of("target", "loss-curve.svg"));
    }

    /// Eager PyTorch launches six kernels for `relu((sin(x)·cos(y) + x)·y)`; compiled, one.
    static void sixOpChain() {
        section("The six-op chain relu((sin(x)*cos(y) + x)*y), 1M floats");
        Jit.Function2 chain = (x, y) -> x.sin().mul(y.cos()).add(x).mul(y).relu();
        var x = Tensor.randn(RANDOM, 1 << 20);
        var y = Tensor.randn(RANDOM, 1 << 20);
        Compiled fused = Jit.compile(chain), unfused = fused.withFusion(FusionMode.NONE);
        System.out.printf("kernels: %d unfused -> %d fused%n", kernels(unfused, x, y), kernels(fused, x, y));
        warm(fused, x, y);
        warm(unfused, x, y);
        System.out.print(lines(fused.explain(x, y), "kernel 0", "  reads", "bytes moved", "intermediate traffic"));
        System.out.printf("eager %.2f ms, compiled unfused %.2f ms, compiled fused %.2f ms (best of 20)%n",
                Timing.millis(() -> chain.apply(x, y)), Timing.millis(() -> unfused.apply(x, y)), Timing.millis(() -> fused.apply(x, y)));
    }

    /// `unused = x @ gating1` is never returned: only two matmul kernels remain.
    static void deadMatmul() {
        section("Dead code: an MLP with an unused matmul (b=64, d=256, f=512)");
        var compiled = Jit.compile((x, gating0, gating1, linear) -> {
            Tensor hidden = x.matmul(gating0);
            Tensor unused = x.matmul(gating1); // never read: the trace keeps only what the result needs
            return hidden.relu().matmul(linear);
        });
        String text = compiled.explain(Tensor.randn(RANDOM, 64, 256), Tensor.randn(RANDOM, 256, 512), Tensor.randn(RANDOM, 256, 512), Tensor.randn(RANDOM, 512, 256));
        System.out.print(lines(text, "kernel "));
        System.out.printf("matmul kernels: %d. The tracer builds the graph from the outputs back, so the unused product never"
                + " enters it: nothing is left for dead-code elimination to remove.%n", text.lines().filter(l -> l.startsWith("kernel ") && l.contains("matmul")).count());
    }

    /// The seed's `analyze_fusion`: matmul → bias → relu (→ dropout, as a multiply by a keep-mask
    /// scaled by 1/(1-p)), counting each eliminated intermediate written once and read once.
    static void matmulBiasRelu(int m, int k, int n, boolean dropout) {
        section("matmul -> bias -> relu%s at %dx%d . %dx%d".formatted(dropout ? " -> dropout" : "", m, k, k, n));
        var a = Tensor.randn(RANDOM, m, k);
        var w = Tensor.randn(RANDOM, k, n);
        var bias = Tensor.randn(RANDOM, n);
        var mask = Tensor.rand(RANDOM, m, n).lt(0.9).to(a.dtype()).div(0.9);
        String text = dropout
                ? Jit.compile((x, weight, b, keep) -> x.matmul(weight).add(b).relu().mul(keep)).explain(a, w, bias, mask)
                : Jit.compile((x, weight, b) -> x.matmul(weight).add(b).relu()).explain(a, w, bias);
        System.out.print(lines(text, "kernels:", "kernel ", "intermediate traffic"));
        int ops = dropout ? 4 : 3;
        long output = 4L * m * n;
        long unfused = ops * 2 * output, saved = (ops - 1) * 2 * output;
        System.out.printf("the seed's analyze_fusion (every output written and read, the last only written): unfused %,d B (%.1f MiB),"
                + " fused %,d B (%.1f MiB), saved %,d B (%.0f%%)%n", unfused, unfused / 1048576.0, output, output / 1048576.0, saved, 100.0 * saved / unfused);
    }

    /// minitorch's matmul as a broadcast zip then a reduce: [2,3,1]·[3,2] → [2,3,2] → sum → [2,2].
    static void zipThenReduce() {
        section("Matmul as zip-then-reduce vs the fused matmul");
        Jit.Function2 zipReduce = (a, b) -> a.unsqueeze(2).mul(b).sum(1);
        var small = Tensor.arange(6).reshape(2, 3).to(dev.smelt.ir.DType.F32);
        System.out.println("[2,3,1] * [3,2] -> [2,3,2] -> sum(1) = " + zipReduce.apply(small, small.t().contiguous()).toString().replaceAll("\\s*\n\\s*", " "));
        System.out.println("  the seed's [2,3,2] intermediate holds 12 floats (48 B) for a 4-float result; it grows with the inner size");
        var a = Tensor.randn(RANDOM, 128, 256);
        var b = Tensor.randn(RANDOM, 256, 128);
        System.out.printf("at 128x256 . 256x128 eager zip-then-reduce materialises a [128,256,128] intermediate: %,d B%n", 4L * 128 * 256 * 128);
        Compiled compiledZip = Jit.compile(zipReduce), matmul = Jit.compile((x, y) -> x.matmul(y));
        warm(compiledZip, a, b);
        warm(matmul, a, b);
        for (var compiled : new Compiled[] {compiledZip, matmul}) System.out.print(lines(compiled.explain(a, b), "kernel ", "memory:"));
        System.out.println("Compiled, the product is read through a broadcast index map inside the reduction: no intermediate at all.");
        System.out.printf("eager zip-then-reduce %.2f ms, compiled zip-then-reduce %.2f ms, compiled matmul %.2f ms (best of 20)%n",
                Timing.millis(() -> zipReduce.apply(a, b)), Timing.millis(() -> compiledZip.apply(a, b)), Timing.millis(() -> matmul.apply(a, b)));
    }

    /// Burn's advice: group views before a chain, so that the compute reads plain tensors.
    static void groupedViews() {
        section("Burn's advice: group views before a block of operations");
        var t1 = Tensor.randn(RANDOM, 64, 32);
        var t2 = Tensor.randn(RANDOM, 1, 32, 48);
        var t3 = Tensor.randn(RANDOM, 64, 48);
        Jit.Function3 interleaved = (a, b, c) -> a.unsqueeze(0).matmul(b).add(c.unsqueeze(0)).relu();
        Jit.Function3 grouped = (a, b, c) -> {
            Tensor a3 = a.unsqueeze(0), c3 = c.unsqueeze(0);
            return a3.matmul(b).add(c3).relu();
        };
        System.out.print("views inside the chain:\n" + lines(Jit.compile(interleaved).explain(t1, t2, t3), "kernels:", "bytes moved"));
        System.out.print("views grouped first:\n" + lines(Jit.compile(grouped).explain(t1, t2, t3), "kernels:", "bytes moved"));
        System.out.println("Both compile to the same kernels: Smelt's view passes compose views into index maps before fusion."
                + " In eager code, grouping views still saves work: each view is metadata, and the block then runs on plain tensors.");
    }

    /// Calls `compiled` until its vector kernels have replaced the scalar ones (at most 5 s):
    /// the timings then show the steady state, not the background warm-up.
    private static void warm(Compiled compiled, Tensor... arguments) {
        long deadline = System.nanoTime() + 5_000_000_000L;
        while (compiled.explain(arguments).contains("warming up") && System.nanoTime() < deadline) compiled.apply(arguments);
    }

    private static int kernels(Compiled compiled, Tensor... arguments) {
        String line = lines(compiled.explain(arguments), "kernels:").strip();
        return Integer.parseInt(line.substring("kernels: ".length(), line.indexOf(' ', "kernels: ".length())));
    }

    /// The lines of `text` starting with any of `prefixes`.
    private static String lines(String text, String... prefixes) {
        var out = new StringBuilder();
        for (String line : text.lines().toList())
            for (String prefix : prefixes) if (line.startsWith(prefix)) { out.append("  ").append(line).append('\n'); break; }
        return out.toString();
    }

    private static void section(String title) { System.out.println("\n== " + title + " =="); }
}
