// SPDX-License-Identifier: Apache-2.0
package dev.smelt.codegen;

import dev.smelt.ir.BinaryOp;
import dev.smelt.ir.DType;
import dev.smelt.ir.Distribution;
import dev.smelt.ir.Shape;
import dev.smelt.kernel.Expr;
import dev.smelt.kernel.IndexMap;
import dev.smelt.kernel.Kernel;
import dev.smelt.testing.RandomData;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/// Kernels that draw random values ([Expr.Random]): every variant, every lane count and every split
/// into pieces gives the interpreter's bits, since each element is a pure function of its
/// position and the key. 16 `f32` lanes (more longs than a 512-bit vector holds) take the
/// lane-by-lane path of `Randoms`, the other counts the `LongVector` one.
class RandomDrawsTest {
    static Stream<Arguments> cases() {
        return Stream.of(Distribution.values()).flatMap(distribution -> Stream.of(DType.F32, DType.F64).flatMap(dtype ->
                Stream.of(new int[] {1}, new int[] {15}, new int[] {1027}, new int[] {3, 33}, new int[] {17, 64})
                        .flatMap(dims -> (dtype == DType.F32 ? Stream.of(0, 4, 8, 16) : Stream.of(0, 4, 8)).map(lanes -> Arguments.of(distribution, dtype, dims, lanes)))));
    }

    /// `out0 = in2 · rand(position, in0, in1)`, the random tensor read transposed when the space has
    /// two axes, so that its positions step by the row length along the inner axis.
    @ParameterizedTest(name = "{0} {1} {2} {3} lanes")
    @MethodSource("cases")
    void variantsGiveTheInterpretersBits(Distribution distribution, DType dtype, int[] dims, int lanes) {
        var space = Shape.of(dims);
        var kernel = kernel(distribution, dtype, space);
        long seed = java.util.Arrays.hashCode(dims) * 31L + distribution.ordinal() * 7 + dtype.ordinal();
        var buffers = RandomData.buffers(seed, kernel);
        Differential.agree(seed, kernel, buffers, lanes);
        Differential.check(seed, kernel, buffers, Variant.SCALAR, lanes);
        Differential.check(seed, kernel, buffers, Variant.VECTOR, lanes);
    }

    private static Kernel kernel(Distribution distribution, DType dtype, Shape space) {
        var zeros = java.util.Collections.nCopies(space.rank(), 0);
        var high = new Kernel.Input(DType.I32, 2, new IndexMap(0, zeros));
        var low = new Kernel.Input(DType.I32, 2, new IndexMap(1, zeros));
        var scale = new Kernel.Input(dtype, space.size(), IndexMap.contiguous(space));
        Expr position = new Expr.Index(space.rank() - 1, DType.I32);
        if (space.rank() == 2)  // element [j, i] of a random [columns, rows] tensor: position j·rows + i
            position = new Expr.Binary(BinaryOp.ADD, new Expr.Binary(BinaryOp.MUL, position, new Expr.Constant(space.dim(0), DType.I32)), new Expr.Index(0, DType.I32));
        var random = new Expr.Random(distribution, position, new Expr.Load(0, DType.I32), new Expr.Load(1, DType.I32), dtype);
        var value = new Expr.Binary(BinaryOp.MUL, new Expr.Load(2, dtype), random);
        return new Kernel(space, 0, List.of(high, low, scale), List.of(), List.of(new Kernel.Output(value, space.size(), IndexMap.contiguous(space), false)));
    }
}
