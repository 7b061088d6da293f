// SPDX-License-Identifier: Apache-2.0
package dev.smelt.examples;

import dev.smelt.Generator;
import dev.smelt.Jit;
import dev.smelt.Tensor;
import dev.smelt.examples.support.Timing;

/// The README's demo: eager tensors, then the same code traced into a graph and printed as text.
public final class Demo {
    private Demo() {}

    /// The seed documents' six-op chain: eager PyTorch launches six kernels for it.
    static Tensor activation(Tensor x, Tensor y) {
        return x.sin().mul(y.cos()).add(x).mul(y).relu();
    }

    public static void main(String[] args) {
        System.out.println("== Eager: every op computes at once ==");
        var x = Tensor.of(new float[] {1, 2, 3, 4, 5, 6}, 2, 3);
        var bias = Tensor.of(new float[] {10, 20, 30});
        System.out.println("x =\n" + x);
        System.out.println("x + bias (broadcast) =\n" + x.add(bias));
        System.out.println("softmax(x, -1) =\n" + x.softmax(-1));
        System.out.println("x @ x.T =\n" + x.matmul(x.t()));
        System.out.println("argmax(x, 1) = " + x.argmax(1));

        System.out.println("\n== Traced: the six-op chain becomes one graph ==");
        var traced = Jit.trace(Demo::activation, x, x);
        System.out.print(traced);
        System.out.println("interpreted: " + traced.interpret(x, x).getFirst().toString().replace("\n", "\n             "));

        System.out.println("\n== Traced: weights read from a closure become graph inputs ==");
        var generator = new Generator(42);
        var weight = Tensor.randn(generator, 3, 4).mul(0.5);
        var hidden = Tensor.zeros(4);
        var layer = Jit.trace(input -> input.matmul(weight).add(hidden).relu().sum(-1), x);
        System.out.print(layer);
        System.out.println("captured inputs after the argument: " + layer.captures().size());

        System.out.println("\n== Compiled: the chain as one fused kernel, generated as bytecode ==");
        var chain = Jit.compile(Demo::activation);
        var big = Tensor.randn(generator, 1 << 20);
        var other = Tensor.randn(generator, 1 << 20);
        chain.apply(big, other);
        System.out.print(chain.explain().lines().filter(line -> line.startsWith("kernel") || line.startsWith("bytes")).map(line -> line + "\n").reduce("", String::concat));
        System.out.printf("1M floats: eager %.2f ms (six kernels), compiled %.2f ms (one)%n",
                Timing.millis(() -> activation(big, other)), Timing.millis(() -> chain.apply(big, other)));
    }
}
