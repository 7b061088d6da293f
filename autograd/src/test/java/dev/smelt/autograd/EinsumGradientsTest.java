// SPDX-License-Identifier: Apache-2.0
package dev.smelt.autograd;

import dev.smelt.Jit;
import dev.smelt.Tensor;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/// einsum's gradients come from the ops it lowers to (views, diagonal slices, sums, batched
/// matmuls); each spec's gradient against every operand is checked compiled against the
/// interpreter and against central differences (GradientCheck).
class EinsumGradientsTest {
    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = ';', value = {
        "ij,jk->ik; 3,4; 4,5",
        "bhqd,bhkd->bhqk; 2,3,4,5; 2,3,6,5",
        "thd,shd->hts; 5,2,3; 4,2,3",
        "ii->i; 4,4; ",
        "ij,ij->; 3,1; 3,4",
        "...ij,jk->...ik; 2,3,4; 4,2",
        "iij,jk->ki; 3,3,2; 2,4",
    })
    void gradientsMatchDifferences(String spec, String first, String second) {
        var random = new Random(spec.hashCode());
        List<Tensor> operands = second == null ? List.of(values(random, first)) : List.of(values(random, first), values(random, second));
        int[] shape = Tensor.einsum(spec, operands.toArray(Tensor[]::new)).shape().dims().stream().mapToInt(Integer::intValue).toArray();
        Tensor weights = VjpRulesTest.values(random, false, shape).reshape(shape);
        var arguments = new java.util.ArrayList<>(operands);
        arguments.add(weights);
        int n = operands.size();
        Jit.FunctionN f = args -> List.of(VjpRulesTest.weighted(Tensor.einsum(spec, args.subList(0, n).toArray(Tensor[]::new)), args.get(n)));
        int[] wrt = n == 1 ? new int[] {0} : new int[] {0, 1};
        GradientCheck.check(spec, f, arguments, wrt);
        GradientCheck.checkF32(spec, f, arguments, wrt);
    }

    private static Tensor values(Random random, String dims) {
        int[] shape = dims.isBlank() ? new int[0] : java.util.Arrays.stream(dims.split(",")).mapToInt(Integer::parseInt).toArray();
        return VjpRulesTest.values(random, false, shape).reshape(shape); // reshape: no sizes make a 0-d tensor
    }
}
