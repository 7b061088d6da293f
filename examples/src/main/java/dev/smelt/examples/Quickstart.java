// SPDX-License-Identifier: Apache-2.0
package dev.smelt.examples;

import dev.smelt.Jit;
import dev.smelt.Tensor;

/// The README's ten-line example, kept compiling here: `mvn -q -pl examples -am package exec:exec -DskipTests -Dexample=Quickstart`.
public final class Quickstart {
    private Quickstart() {}

    public static void main(String[] args) {
        Tensor x = Tensor.of(new float[] {1, -2, 3, -4, 5, -6}, 2, 3);
        Tensor w = Tensor.of(new float[] {0.5f, -1, 2}, 3, 1);
        System.out.println(x.matmul(w).relu());                  // eager: runs now, op by op
        System.out.println(x.softmax(-1).sum(-1));                // rows of a softmax sum to 1
        var traced = Jit.trace(a -> a.matmul(w).add(1).relu(), x); // w is read, so it becomes input %1
        System.out.print(traced);                                 // the graph as SSA text
        System.out.println(traced.interpret(x).getFirst());       // evaluate the graph
    }
}
