// SPDX-License-Identifier: Apache-2.0
package dev.smelt.usage;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.smelt.Generator;
import dev.smelt.Jit;
import dev.smelt.Tensor;
import dev.smelt.autograd.Autograd;
import dev.smelt.ir.SmeltException;
import dev.smelt.nn.Activations;
import dev.smelt.nn.Linear;
import dev.smelt.nn.Module;
import dev.smelt.nn.Parameter;
import dev.smelt.nn.Sequential;
import dev.smelt.optim.Adam;
import dev.smelt.optim.SGD;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

/// The autograd, nn and optim API refuses bad input as jit-core's does: a [SmeltException] naming
/// the op, what is wrong and the caller's line, this test, though the check runs in Smelt's own
/// nn or optim code. This test lives outside Smelt's packages, where a user's code would.
class TrainingErrorsTest {
    private static final Tensor M = Tensor.ones(2, 3);

    private static void rejects(String op, Executable call, String... fragments) {
        var error = assertThrows(SmeltException.class, call);
        String message = error.getMessage();
        assertEquals(op, error.op(), message);
        for (String fragment : fragments) assertTrue(message.contains(fragment), () -> "missing '" + fragment + "' in: " + message);
        assertTrue(message.contains("(at dev.smelt.usage.TrainingErrorsTest"), () -> "no call site in: " + message);
    }

    @Test
    void gradientsOfFunctionsThatReturnNullOrTakeNull() {
        rejects("grad", () -> Autograd.grad((Jit.Function1) null), "the function is null");
        rejects("trace", () -> Autograd.grad((Tensor x) -> null).apply(M), "returned null as result 0 of 1");
        rejects("trace", () -> Autograd.grad((x, y) -> null, 1).applyAll(M, M), "returned null as result 0 of 1");
        rejects("trace", () -> Autograd.valueAndGrad((Tensor x) -> null).apply(M), "returned null as result 0 of 1");
        rejects("apply", () -> Autograd.grad((Tensor x) -> x.sum()).apply((Tensor) null), "argument 0 of compiled function is null");
        rejects("valueAndGrad", () -> Autograd.valueAndGrad((Tensor x) -> x.sum()).apply((Tensor) null), "argument 0 is null");
        rejects("valueAndGrad", () -> Autograd.valueAndGrad((Tensor x) -> x.sum()).apply((Tensor[]) null), "a null array");
        rejects("grad", () -> Autograd.grad(arguments -> arguments, 0), "nothing to differentiate");
        rejects("grad", () -> Autograd.loss(null), "the graph is null");
    }

    @Test
    void sizesPastTheLimitAreRefusedWhileTheGradientIsTraced() {
        Tensor column = Tensor.zeros(1).expand(65536, 1), row = Tensor.zeros(1).expand(1, 65536);
        rejects("add", () -> Autograd.grad((Tensor x) -> x.add(row).sum()).apply(column), "[65536,65536]", "Tensor.MAX_SIZE");
        rejects("add", () -> Autograd.valueAndGrad((Tensor x) -> x.add(row).sum()).apply(column), "[65536,65536]", "Tensor.MAX_SIZE");
    }

    @Test
    void optimizersAndTrainStepsNameWhatIsWrong() {
        var model = new Linear(3, 2, new Generator(1));
        rejects("SGD", () -> new SGD(Arrays.asList(model.weight(), null), 0.1), "parameter 1 is null");
        rejects("SGD", () -> new SGD(model.parameters(), Double.NaN), "learning rate", "NaN");
        rejects("Adam", () -> new Adam(model.parameters(), 0.1, 0.9, 0.999, Double.NaN, 0, false), "NaN");
        var sgd = new SGD(model.parameters(), 0.1);
        rejects("SGD", () -> sgd.state(2), "parameter index 2", "0..1");
        rejects("SGD", () -> sgd.compile((Jit.FunctionN) batch -> batch, -1), "arity -1");
        rejects("trace", () -> sgd.compile((Tensor x) -> null).apply(M), "returned null as result 0 of 1");
        var step = sgd.compile((x, y) -> model.forward(x).mseLoss(y));
        rejects("train step", () -> step.apply(M, null), "batch tensor 1 is null");
        rejects("train step", () -> step.apply((Tensor[]) null), "a null array");
        rejects("train step", () -> step.explain(M), "expected 2 batch tensors, got 1");
        assertEquals(0, sgd.steps(), "a refused step is not counted");
    }

    @Test
    void layersAndParametersNameWhatIsWrong() {
        rejects("Linear", () -> new Linear(3, 2, null), "the generator is null");
        rejects("Linear", () -> new Linear(3, 2, new Generator(1)).forward(null), "the input is null");
        rejects("ReLU", () -> new Activations.ReLU().forward(null), "the input is null");
        rejects("Sigmoid", () -> new Sequential(new Activations.Sigmoid()).forward(null), "the input is null");
        rejects("Sequential", () -> new Sequential((Module[]) null), "the list of layers is null");
        rejects("Sequential", () -> new Sequential(new Activations.Tanh(), null), "layer 1 is null");
        rejects("Sequential", () -> new Sequential((List<Module>) null), "the list of layers is null");
        rejects("Parameter", () -> new Parameter(null, M), "the name is null");
        rejects("Parameter", () -> new Parameter("w", null), "w must be an f32 or f64 tensor, not null");
        rejects("Parameter", () -> Jit.trace(x -> new Parameter("w", x).value(), M), "w must be made from a concrete tensor");
    }
}
