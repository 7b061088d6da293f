// SPDX-License-Identifier: Apache-2.0
package dev.smelt.stress;

import dev.smelt.ir.DType;
import dev.smelt.ir.Shape;
import dev.smelt.stress.ProgramGenerator.Family;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/// How large a random program gets: at most `maxElements` elements per value, `maxSteps` calls,
/// and `maxFlops` multiply-adds per matmul (which keeps the reference interpreter quick).
///
/// [#mixed] draws most programs small (values up to 4,096 elements, up to 12 calls) and a share
/// large (from 2^14, where kernels get a vector variant, up to a few million elements, up to 5
/// calls). Gradient programs are [#tiny]: central differences evaluate the program twice per
/// input element.
public record Scale(int maxElements, int maxSteps, long maxFlops, double largeShare, int largeElements) {
    static final int SMALL_ELEMENTS = 4096;

    /// Small programs, and with chance `largeShare` a large one of up to `largeElements` per value.
    static Scale mixed(double largeShare, int largeElements) { return new Scale(SMALL_ELEMENTS, 12, 1 << 18, largeShare, largeElements); }

    public static Scale tiny() { return new Scale(48, 10, 1 << 12, 0, 0); }

    boolean isLarge() { return maxElements > SMALL_ELEMENTS; }

    /// The scale of one program.
    Scale pick(Random random) {
        if (largeShare == 0 || random.nextDouble() >= largeShare) return new Scale(maxElements, maxSteps, maxFlops, 0, 0);
        return new Scale(largeElements, 5, 1L << 25, 0, 0);
    }

    /// One to three arguments: the first of a random shape, the others of the same shape, of one
    /// that broadcasts against it, or of another small shape; of every dtype (f64 only for
    /// gradients, where central differences need the precision).
    List<Argument> arguments(Random random, Family family) {
        int count = 1 + random.nextInt(3);
        Shape first = isLarge() ? Shapes.large(random, maxElements) : Shapes.small(random, maxElements);
        var arguments = new ArrayList<Argument>();
        for (int i = 0; i < count; i++) {
            int roll = random.nextInt(4);
            Shape shape = i == 0 || roll < 2 ? first : roll == 2 ? Shapes.broadcastable(random, first) : Shapes.small(random, Math.min(maxElements, SMALL_ELEMENTS));
            DType dtype = family == Family.DIFFERENTIABLE ? DType.F64 : Shapes.dtype(random);
            var argument = Argument.random(random, dtype, shape);
            arguments.add(family == Family.DIFFERENTIABLE ? argument.withOrdinaryValues() : argument);
        }
        return arguments;
    }
}
