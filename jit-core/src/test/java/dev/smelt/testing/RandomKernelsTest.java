// SPDX-License-Identifier: Apache-2.0
package dev.smelt.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.smelt.ir.BinaryOp;
import dev.smelt.ir.DType;
import dev.smelt.ir.ReduceOp;
import dev.smelt.ir.UnaryOp;
import dev.smelt.kernel.Expr;
import dev.smelt.kernel.Transcendentals;
import dev.smelt.kernel.IndexMap;
import dev.smelt.kernel.Kernel;
import dev.smelt.kernel.KernelPrinter;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/// The generator that the codegen differential tests rely on: deterministic, and it reaches every
/// operator, dtype, kind of index map and size class within the seeds those tests use.
class RandomKernelsTest {
    static final int SEEDS = 400;

    @Test
    void sameSeedGivesTheSameKernelAndData() {
        for (long seed = 0; seed < 20; seed++) {
            assertEquals(KernelPrinter.print(RandomKernels.generate(seed)), KernelPrinter.print(RandomKernels.generate(seed)));
            var kernel = RandomKernels.generate(seed);
            assertTrue(Arrays.deepEquals(RandomData.buffers(seed, kernel), RandomData.buffers(seed, kernel)));
        }
    }

    @Test
    void everyOperatorDtypeAndExpressionKindOccurs() {
        Set<Object> seen = new HashSet<>();
        for (long seed = 0; seed < SEEDS; seed++) {
            var kernel = RandomKernels.generate(seed);
            kernel.reductions().forEach(reduction -> seen.add(reduction.op()));
            kernel.expressions().forEach(expr -> Expr.walk(expr, node -> {
                seen.add(node.getClass());
                seen.add(node.dtype());
                if (node instanceof Expr.Unary unary) seen.add(unary.op().toString() + "/" + unary.dtype());
                if (node instanceof Expr.Binary binary) seen.add(binary.op().toString() + "/" + binary.left().dtype());
            }));
            // the forms only code generation's rewrite makes, as the kernels compile
            Transcendentals.expand(kernel).expressions().forEach(expr -> Expr.walk(expr, node -> seen.add(node.getClass())));
        }
        var missing = new TreeSet<String>();
        for (var op : UnaryOp.values())
            for (var dtype : List.of(DType.F32, DType.F64, DType.I32))
                if ((dtype.isFloating() || op.acceptsIntegers()) && !seen.contains(op + "/" + dtype)) missing.add(op + "/" + dtype);
        for (var op : BinaryOp.values())
            for (var dtype : DType.values())
                if ((dtype.isFloating() || op.isComparison() || op.acceptsIntegers() && dtype == DType.I32) && !seen.contains(op + "/" + dtype)) missing.add(op + "/" + dtype);
        EnumSet.allOf(ReduceOp.class).stream().filter(op -> !seen.contains(op)).forEach(op -> missing.add(op.toString()));
        Arrays.stream(Expr.class.getPermittedSubclasses()).filter(kind -> !seen.contains(kind)).forEach(kind -> missing.add(kind.getSimpleName()));
        assertEquals(Set.of(), missing, "never generated in " + SEEDS + " kernels");
    }

    @Test
    void shapesAndIndexMapsCoverTheHardCases() {
        Set<String> seen = new TreeSet<>();
        for (long seed = 0; seed < SEEDS; seed++) {
            var kernel = RandomKernels.generate(seed);
            seen.add("rank " + kernel.space().rank());
            seen.add(kernel.reducedRank() == 0 ? "pointwise" : "reduce " + kernel.reducedRank());
            for (int dim : kernel.space().dims()) {
                if (dim == 0) seen.add("size 0");
                if (dim == 1027) seen.add("size 1027");
                if (dim == 17 || dim == 13) seen.add("prime size");
            }
            kernel.reductions().forEach(reduction -> Expr.walk(reduction.value(), node -> {
                if (node instanceof Expr.Accumulated) seen.add("reduction reads a reduction");
                if (node instanceof Expr.Element) seen.add("reduction reads an element");
            }));
            kernel.outputs().forEach(output -> Expr.walk(output.value(), node -> { if (node instanceof Expr.Element) seen.add("output reads an element"); }));
            kernel.outputs().forEach(output -> seen.add(output.perRow() ? "row output" : "full output"));
            Stream.concat(kernel.inputs().stream().map(Kernel.Input::map), kernel.outputs().stream().map(Kernel.Output::map))
                    .forEach(map -> seen.addAll(kinds(map, kernel)));
        }
        var expected = new TreeSet<>(List.of("rank 0", "rank 1", "rank 2", "rank 3", "rank 4", "pointwise", "reduce 1", "reduce 2",
                "size 0", "size 1027", "prime size", "reduction reads a reduction", "reduction reads an element", "output reads an element",
                "row output", "full output",
                "broadcast", "permuted", "strided", "offset", "flipped"));
        expected.removeAll(seen);
        assertEquals(Set.of(), expected, "never generated in " + SEEDS + " kernels");
    }

    private static Set<String> kinds(IndexMap map, Kernel kernel) {
        Set<String> kinds = new HashSet<>();
        if (map.offset() > 0) kinds.add("offset");
        int[] contiguous = kernel.space().contiguousStrides();
        for (int axis = 0; axis < map.rank(); axis++) {
            int stride = map.stride(axis);
            if (stride == 0 && kernel.space().dim(axis) > 1) kinds.add("broadcast");
            if (stride < 0) kinds.add("flipped");
            if (stride > 0 && kernel.space().dim(axis) > 1 && contiguous[axis] > 0 && stride % contiguous[axis] != 0) kinds.add("strided");
            if (axis + 1 < map.rank() && Math.abs(stride) < Math.abs(map.stride(axis + 1)) && stride != 0) kinds.add("permuted");
        }
        return kinds;
    }
}
