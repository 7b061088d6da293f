// SPDX-License-Identifier: Apache-2.0
package dev.smelt;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.smelt.ir.DType;
import dev.smelt.ir.SmeltException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/// einsum against a brute-force sum over every assignment of its labels, on random specs: one to
/// three operands, repeated labels (diagonals), broadcast sizes of 1, `...` of different ranks,
/// upper- and lower-case labels, implicit and explicit outputs that keep, drop or reorder labels,
/// f32, f64 and i32; eager, compiled (twice), and through a trace.
class EinsumTest {
    static LongStream seeds() { return LongStream.range(0, 200); }

    /// A random einsum problem: the spec and its operands.
    record Problem(String spec, List<Tensor> operands) {}

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void matchesTheSumOverEveryAssignment(long seed) {
        Problem problem = problem(new Random(seed));
        Expected expected = reference(problem);
        Tensor eager = Tensor.einsum(problem.spec(), problem.operands().toArray(Tensor[]::new));
        check(problem, expected, eager, "eager");
        var compiled = Jit.compile(arguments -> List.of(Tensor.einsum(problem.spec(), arguments.toArray(Tensor[]::new))), problem.operands().size());
        for (int call = 0; call < 2; call++) check(problem, expected, compiled.apply(problem.operands().toArray(Tensor[]::new)), "compiled, call " + call);
    }

    @Test
    void commonSpecsGiveTheirOpsResults() {
        var random = new Random(1);
        Tensor a = random(random, DType.F32, 3, 4), b = random(random, DType.F32, 4, 5), v = random(random, DType.F32, 4);
        assertClose(a.matmul(b), Tensor.einsum("ij,jk->ik", a, b));
        assertClose(a.matmul(b), Tensor.einsum("ij,jk", a, b));
        assertClose(a.t().contiguous(), Tensor.einsum("ij->ji", a));
        assertClose(a.sum(), Tensor.einsum("ij->", a));
        assertClose(a.matmul(v), Tensor.einsum("ij,j->i", a, v));
        Tensor q = random(random, DType.F32, 2, 3, 5, 8), k = random(random, DType.F32, 2, 3, 7, 8);
        assertClose(q.matmul(k.transpose(-2, -1)), Tensor.einsum("bhqd,bhkd->bhqk", q, k));
        Tensor square = random(random, DType.F64, 5, 5);
        double trace = 0;
        for (int i = 0; i < 5; i++) trace += square.get(i, i);
        assertEquals(trace, Tensor.einsum("ii", square).item(), 1e-12);
    }

    /// The seed's relayout case: (64, 4, 1024) whose 4 is the heads axis, contracted per head.
    @Test
    void headsInTheMiddleAreABatchAxis() {
        var random = new Random(2);
        Tensor x = random(random, DType.F32, 64, 4, 128), y = random(random, DType.F32, 64, 4, 128);
        Tensor perHead = x.permute(1, 0, 2).matmul(y.permute(1, 2, 0));
        assertClose(perHead, Tensor.einsum("thd,shd->hts", x, y));
        assertClose(perHead, Jit.compile((Tensor a, Tensor b) -> Tensor.einsum("thd,shd->hts", a, b)).apply(x, y));
    }

    @Test
    void badSpecsSayWhatIsWrong() {
        Tensor a = Tensor.ones(2, 3), b = Tensor.ones(4, 5);
        assertMessage("has 1 operand subscripts but 2 tensors", () -> Tensor.einsum("ij", a, b));
        assertMessage("operand 0 has shape [2,3] (2 axes) but its subscripts name 3", () -> Tensor.einsum("ijk", a));
        assertMessage("subscript 'j' has size 3 in operand 0 but 4 in operand 1", () -> Tensor.einsum("ij,jk", a, b));
        assertMessage("invalid subscript character '1'", () -> Tensor.einsum("i1", a));
        assertMessage("output subscript 'z' appears in no operand", () -> Tensor.einsum("ij->z", a));
        assertMessage("an output subscript appears twice", () -> Tensor.einsum("ij->ii", a));
        assertMessage("more than one ...", () -> Tensor.einsum("...i...", a));
        assertMessage("repeats in one operand with sizes 2 and 3", () -> Tensor.einsum("ii", a));
        assertThrows(SmeltException.class, () -> Tensor.einsum(null, a));
        assertThrows(SmeltException.class, () -> Tensor.einsum("ij", (Tensor) null));
    }

    private static void assertMessage(String part, Runnable call) {
        var e = assertThrows(SmeltException.class, call::run);
        assertTrue(e.getMessage().startsWith("einsum: ") && e.getMessage().contains(part), e.getMessage());
        assertTrue(e.getMessage().contains("(at dev.smelt.EinsumTest"), e.getMessage());
    }

    private static void assertClose(Tensor expected, Tensor actual) {
        assertEquals(expected.shape(), actual.shape());
        assertTrue(expected.allClose(actual, 1e-5, 1e-5, false), () -> expected + " vs " + actual);
    }

    // ---- random problems ----

    private static final String LETTERS = "abcdeAB";

    static Problem problem(Random random) {
        var sizes = new LinkedHashMap<Character, Integer>();
        for (char c : LETTERS.toCharArray()) sizes.put(c, 1 + random.nextInt(4));
        int operands = 1 + random.nextInt(3), ellipsisRank = random.nextInt(3);
        int[] ellipsisSizes = {1 + random.nextInt(3), 1 + random.nextInt(3)};
        boolean ellipsis = random.nextInt(4) == 0;
        DType dtype = switch (random.nextInt(6)) { case 0 -> DType.F64; case 1 -> DType.I32; default -> DType.F32; };
        var subscripts = new ArrayList<String>();
        var tensors = new ArrayList<Tensor>();
        for (int o = 0; o < operands; o++) {
            var subscript = new StringBuilder();
            var shape = new ArrayList<Integer>();
            int rank = random.nextInt(4);
            for (int axis = 0; axis < rank; axis++) {
                char label = LETTERS.charAt(random.nextInt(LETTERS.length()));
                subscript.append(label);
                shape.add(random.nextInt(8) == 0 ? 1 : sizes.get(label)); // a size of 1 broadcasts
            }
            for (int axis = 0; axis < rank; axis++) // a diagonal's axes have one size
                if (subscript.indexOf(String.valueOf(subscript.charAt(axis))) != subscript.lastIndexOf(String.valueOf(subscript.charAt(axis))))
                    shape.set(axis, sizes.get(subscript.charAt(axis)));
            if (ellipsis) {
                int at = random.nextInt(subscript.length() + 1), own = random.nextInt(ellipsisRank + 1);
                subscript.insert(at, "...");
                var dims = new ArrayList<Integer>();
                for (int k = ellipsisRank - own; k < ellipsisRank; k++) dims.add(random.nextInt(5) == 0 ? 1 : ellipsisSizes[k]);
                shape.addAll(at, dims);
            }
            subscripts.add(subscript.toString());
            tensors.add(random(random, dtype, shape.stream().mapToInt(Integer::intValue).toArray()));
        }
        String spec = String.join(",", subscripts);
        if (random.nextBoolean()) { // explicit output: some used labels in some order, maybe the ellipsis
            var used = new ArrayList<Character>();
            for (char c : spec.toCharArray()) if (Character.isLetter(c) && !used.contains(c)) used.add(c);
            java.util.Collections.shuffle(used, random);
            var output = new StringBuilder();
            for (char c : used) if (random.nextBoolean()) output.append(c);
            if (ellipsis && random.nextInt(3) > 0) output.insert(random.nextInt(output.length() + 1), "...");
            spec += "->" + output;
        }
        return new Problem(spec, tensors);
    }

    static Tensor random(Random random, DType dtype, int... shape) {
        int size = 1;
        for (int d : shape) size *= d;
        if (dtype == DType.I32) {
            int[] values = new int[size];
            for (int i = 0; i < size; i++) values[i] = random.nextInt(7) - 3;
            return Tensor.of(values).reshape(shape);
        }
        double[] values = new double[size];
        for (int i = 0; i < size; i++) values[i] = random.nextGaussian();
        return dtype == DType.F64 ? Tensor.of(values).reshape(shape) : Tensor.of(values).reshape(shape).to(DType.F32);
    }

    // ---- the brute-force reference ----

    /// The expected shape and values, and each value's sum of |products| (for the tolerance).
    record Expected(int[] shape, double[] values, double[] magnitudes) {}

    // Each axis gets a label: letters as written, `...` axes as '0', '1', … aligned to the right.
    static Expected reference(Problem problem) {
        String[] parts = problem.spec().split("->", -1);
        String[] inputs = parts[0].split(",", -1);
        int broadcast = 0;
        for (int o = 0; o < inputs.length; o++) broadcast = Math.max(broadcast, problem.operands().get(o).rank() - inputs[o].replace("...", "").length());
        var labels = new ArrayList<String>();
        var size = new LinkedHashMap<Character, Integer>();
        for (int o = 0; o < inputs.length; o++) {
            String expanded = expand(inputs[o], problem.operands().get(o).rank(), broadcast);
            labels.add(expanded);
            for (int axis = 0; axis < expanded.length(); axis++) size.merge(expanded.charAt(axis), problem.operands().get(o).dim(axis), Math::max);
        }
        String output;
        if (parts.length == 2) output = expand(parts[1], parts[1].replace("...", "").length() + (parts[1].contains("...") ? broadcast : 0), broadcast);
        else {
            var implicit = new StringBuilder();
            for (int k = 0; k < broadcast; k++) implicit.append((char) ('0' + k));
            String all = String.join("", labels);
            all.chars().filter(Character::isLetter).distinct().sorted().filter(c -> all.indexOf(c) == all.lastIndexOf(c)).forEach(c -> implicit.append((char) c));
            output = implicit.toString();
        }
        List<Character> all = new ArrayList<>(size.keySet());
        int[] shape = output.chars().map(c -> size.get((char) c)).toArray();
        int outputSize = 1;
        for (int d : shape) outputSize *= d;
        double[] values = new double[outputSize], magnitudes = new double[outputSize];
        int[] assignment = new int[all.size()];
        long total = 1;
        for (char c : all) total *= size.get(c);
        for (long n = 0; n < total; n++) {
            long rest = n;
            for (int i = all.size() - 1; i >= 0; i--) {
                assignment[i] = (int) (rest % size.get(all.get(i)));
                rest /= size.get(all.get(i));
            }
            double product = 1;
            for (int o = 0; o < inputs.length; o++) {
                Tensor operand = problem.operands().get(o);
                int[] index = new int[operand.rank()];
                for (int axis = 0; axis < index.length; axis++)
                    index[axis] = operand.dim(axis) == 1 ? 0 : assignment[all.indexOf(labels.get(o).charAt(axis))];
                product *= operand.get(index);
            }
            int at = 0;
            for (int axis = 0; axis < output.length(); axis++) at = at * shape[axis] + assignment[all.indexOf(output.charAt(axis))];
            values[at] += product;
            magnitudes[at] += Math.abs(product);
        }
        return new Expected(shape, values, magnitudes);
    }

    private static String expand(String subscript, int rank, int broadcast) {
        if (!subscript.contains("...")) return subscript;
        int axes = rank - subscript.replace("...", "").length();
        var digits = new StringBuilder();
        for (int k = broadcast - axes; k < broadcast; k++) digits.append((char) ('0' + k));
        return subscript.replace("...", digits);
    }

    private static void check(Problem problem, Expected expected, Tensor actual, String how) {
        String where = "\"%s\" with shapes %s, %s".formatted(problem.spec(), problem.operands().stream().map(Tensor::shape).toList(), how);
        assertArrayEquals(expected.shape(), actual.shape().dims().stream().mapToInt(Integer::intValue).toArray(), where);
        double[] values = actual.toDoubleArray();
        double epsilon = actual.dtype() == DType.F32 ? 0x1p-23 : actual.dtype() == DType.F64 ? 0x1p-52 : 0;
        for (int i = 0; i < values.length; i++) {
            double bound = 64 * epsilon * expected.magnitudes()[i]; // a sum of at most 64 products, each off by a few ulps
            if (!(Math.abs(values[i] - expected.values()[i]) <= bound))
                fail("%s: element %d is %s, expected %s (bound %s)".formatted(where, i, values[i], expected.values()[i], bound));
        }
        assertEquals(problem.operands().stream().map(Tensor::dtype).reduce(DType::promote).orElseThrow(), actual.dtype(), where);
    }
}
