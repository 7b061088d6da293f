// SPDX-License-Identifier: Apache-2.0
package dev.smelt.autograd;

import dev.smelt.Generator;
import dev.smelt.Tensor;
import dev.smelt.ir.DType;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/// A gradient whose backward reads each forward value many times compiles in time linear in its
/// rounds (16 rounds of softmax and tanh: the fourth round alone used to take 41 s), and stays
/// right. The timeout only catches a return of exponential work; `CompileScaleBench` measures speed.
class GradientScalingTest {
    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void sixteenRoundsOfSoftmaxAndTanhDifferentiateAndCompile() {
        var generator = new Generator(31);
        Tensor x = Tensor.randn(generator, DType.F64, 6), b = Tensor.randn(generator, DType.F64, 6);
        GradientCheck.check("16 rounds of softmax and tanh", args -> {
            Tensor y = args.get(0);
            for (int i = 0; i < 16; i++) {
                Tensor s = y.softmax(0);
                y = s.mul(b).sub(y.tanh().mul(s));
            }
            return List.of(y.sum());
        }, List.of(x), 0);
    }
}
