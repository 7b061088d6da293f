// SPDX-License-Identifier: Apache-2.0
package dev.smelt.optim;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.smelt.Generator;
import dev.smelt.Tensor;
import dev.smelt.autograd.Autograd;
import dev.smelt.ir.DType;
import dev.smelt.ir.SmeltException;
import dev.smelt.nn.Activations;
import dev.smelt.nn.Linear;
import dev.smelt.nn.Parameter;
import dev.smelt.nn.Sequential;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/// Training steps: one program per batch signature, updates as torch.optim computes them (checked
/// against the same formulas in Java double on gradients from [Autograd#grad]), parameters updated
/// in their own storage, and hyper-parameters that change without recompiling.
class TrainStepTest {
    private static final Tensor X = Tensor.of(new double[] {0.5, -1, 2, 1.5, 0.25, -0.75, -2, 1, 0.3, 0.9, -0.4, 1.1}, 4, 3);
    private static final Tensor Y = Tensor.of(new double[] {1, -1, 0.5, 2, -0.5, 0, 1.5, -2}, 4, 2);

    /// An f32 layer; the reference updates run in double on f64 gradients of the same values.
    private static Linear model() { return new Linear(3, 2, new Generator(1)); }

    /// Gradients of the mse loss at the parameters' current values, in f64.
    private static List<double[]> gradients(Tensor w, Tensor b) {
        var grads = Autograd.grad(args -> List.of(args.get(2).matmul(args.get(0).t()).add(args.get(1)).mseLoss(args.get(3))), 4, 0, 1)
                .applyAll(w.to(DType.F64), b.to(DType.F64), X, Y);
        return List.of(grads.get(0).toDoubleArray(), grads.get(1).toDoubleArray());
    }

    private static Tensor loss(Linear model, Tensor x, Tensor y) { return model.forward(x.to(DType.F32)).mseLoss(y.to(DType.F32)); }

    @Test
    void sgdWithMomentumDampeningAndWeightDecayMatchesTorchOptim() {
        for (boolean nesterov : new boolean[] {false, true}) {
            var model = model();
            double lr = 0.1, mu = 0.9, damp = nesterov ? 0 : 0.1, wd = 0.01;
            var sgd = new SGD(model.parameters(), lr, mu, damp, wd, nesterov);
            var step = sgd.compile((x, y) -> loss(model, x, y));
            double[][] params = {model.weight().value().toDoubleArray(), model.bias().value().toDoubleArray()};
            double[][] buffers = new double[2][];
            for (int t = 1; t <= 3; t++) {
                var grads = gradients(Tensor.of(params[0], 2, 3), Tensor.of(params[1], 2));
                for (int p = 0; p < 2; p++) {
                    double[] g = grads.get(p).clone();
                    for (int i = 0; i < g.length; i++) g[i] += wd * params[p][i];
                    if (t == 1) buffers[p] = g.clone();
                    else for (int i = 0; i < g.length; i++) buffers[p][i] = mu * buffers[p][i] + (1 - damp) * g[i];
                    for (int i = 0; i < g.length; i++) params[p][i] -= lr * (nesterov ? g[i] + mu * buffers[p][i] : buffers[p][i]);
                }
                step.apply(X, Y);
                assertArrayEquals(params[0], model.weight().value().toDoubleArray(), 1e-5, "weight after step " + t + ", nesterov " + nesterov);
                assertArrayEquals(params[1], model.bias().value().toDoubleArray(), 1e-5, "bias after step " + t);
            }
        }
    }

    @Test
    void plainSgdKeepsNoBufferAndMatchesTorchOptim() {
        var model = model();
        double lr = 0.2, wd = 0.05;
        var sgd = new SGD(model.parameters(), lr, 0, 0.3, wd, false); // dampening is ignored without momentum, as in PyTorch
        assertTrue(sgd.state(0).isEmpty());
        assertThrows(SmeltException.class, () -> sgd.momentum(0.9));
        var step = sgd.compile((x, y) -> loss(model, x, y));
        for (int t = 1; t <= 2; t++) {
            double[] w = model.weight().value().toDoubleArray(), b = model.bias().value().toDoubleArray();
            var grads = gradients(model.weight().value(), model.bias().value());
            for (int i = 0; i < w.length; i++) w[i] -= lr * (grads.get(0)[i] + wd * w[i]);
            for (int i = 0; i < b.length; i++) b[i] -= lr * (grads.get(1)[i] + wd * b[i]);
            step.apply(X, Y);
            assertArrayEquals(w, model.weight().value().toDoubleArray(), 1e-5, "weight after step " + t);
            assertArrayEquals(b, model.bias().value().toDoubleArray(), 1e-5, "bias after step " + t);
        }
    }

    @Test
    void adamAndAdamWMatchTorchOptim() {
        for (boolean decoupled : new boolean[] {false, true}) {
            var model = model();
            double lr = 0.05, b1 = 0.9, b2 = 0.999, eps = 1e-8, wd = 0.1;
            var adam = new Adam(model.parameters(), lr, b1, b2, eps, wd, decoupled);
            var step = adam.compile((x, y) -> loss(model, x, y));
            double[][] params = {model.weight().value().toDoubleArray(), model.bias().value().toDoubleArray()};
            double[][] m = {new double[6], new double[2]}, v = {new double[6], new double[2]};
            for (int t = 1; t <= 4; t++) {
                var grads = gradients(Tensor.of(params[0], 2, 3), Tensor.of(params[1], 2));
                for (int p = 0; p < 2; p++) {
                    double[] g = grads.get(p);
                    for (int i = 0; i < g.length; i++) {
                        double gi = g[i] + (decoupled ? 0 : wd * params[p][i]);
                        if (decoupled) params[p][i] *= 1 - lr * wd;
                        m[p][i] = b1 * m[p][i] + (1 - b1) * gi;
                        v[p][i] = b2 * v[p][i] + (1 - b2) * gi * gi;
                        double denominator = Math.sqrt(v[p][i]) / Math.sqrt(1 - Math.pow(b2, t)) + eps;
                        params[p][i] -= lr / (1 - Math.pow(b1, t)) * m[p][i] / denominator;
                    }
                }
                step.apply(X, Y);
                assertArrayEquals(params[0], model.weight().value().toDoubleArray(), 2e-5, (decoupled ? "AdamW" : "Adam") + " weight after step " + t);
                assertArrayEquals(params[1], model.bias().value().toDoubleArray(), 2e-5, "bias after step " + t);
                assertArrayEquals(m[0], adam.state(0).get(0).toDoubleArray(), 1e-5, "first moment after step " + t);
            }
        }
    }

    @Test
    void changingHyperParametersNeverRecompilesAndParametersUpdateInPlace() {
        var model = model();
        Tensor weight = model.weight().value();
        float[] before = weight.toFloatArray();
        var traces = new AtomicInteger();
        var sgd = new SGD(model.parameters(), 0.1, 0.5, 0, 0, false);
        var step = sgd.compile((x, y) -> {
            traces.incrementAndGet();
            return loss(model, x, y);
        });
        assertTrue(step.explain(X, Y).contains("matmul"));         // compiles, takes no step
        assertArrayEquals(before, weight.toFloatArray());
        for (double lr : new double[] {0.1, 0.01, 0.3, 0}) {
            sgd.learningRate(lr).weightDecay(lr / 10);
            sgd.momentum(lr);
            step.apply(X, Y);
        }
        assertEquals(1, traces.get(), "the loss was traced more than once");
        assertEquals(1, step.compiledSignatures());
        assertSame(weight, model.weight().value());
        assertTrue(!java.util.Arrays.equals(before, weight.toFloatArray()), "the weight's own storage did not change");
        float[] now = weight.toFloatArray();
        step.apply(X, Y); // lr is 0 now: nothing moves
        assertArrayEquals(now, weight.toFloatArray());
        step.apply(X.slice(0, 0, 2), Y.slice(0, 0, 2)); // a new batch shape is a new signature
        assertEquals(2, step.compiledSignatures());
    }

    @Test
    void aTrainingStepIsOneProgramWithFusedUpdates() {
        var model = new Sequential(new Linear(3, 8, new Generator(2)), new Activations.ReLU(), new Linear(8, 2, new Generator(3)));
        var adam = new Adam(model.parameters(), 0.01);
        var step = adam.compile((x, y) -> model.forward(x.to(DType.F32)).mseLoss(y.to(DType.F32)));
        double first = step.apply(X, Y), last = first;
        for (int i = 0; i < 200; i++) last = step.apply(X, Y);
        assertTrue(last < first / 4, "loss went from " + first + " to " + last);
        String explained = step.explain();
        assertTrue(explained.contains("matmul"), explained);
        int kernels = Integer.parseInt(explained.replaceAll("(?s).*kernels: (\\d+).*", "$1"));
        int unfused = Integer.parseInt(explained.replaceAll("(?s).*kernels: \\d+ \\(unfused: (\\d+)\\).*", "$1"));
        assertTrue(kernels < unfused / 2, "kernels: " + kernels + " of " + unfused + " ops\n" + explained);
        // 4 parameters, each with Adam's two moments and its step count: all 16 written in place, none copied in
        assertEquals(16, explained.split("in the array of input", -1).length - 1, explained);
    }

    @Test
    void sgdWritesEveryParameterInPlaceIncludingThoseUpdatedInAMatmulEpilogue() {
        var model = new Sequential(new Linear(3, 8, new Generator(2)), new Activations.ReLU(), new Linear(8, 2, new Generator(3)));
        var step = new SGD(model.parameters(), 0.05).compile((x, y) -> model.forward(x.to(DType.F32)).mseLoss(y.to(DType.F32)));
        step.apply(X, Y);
        String explained = step.explain();
        assertEquals(4, explained.split("in the array of input", -1).length - 1, explained);
        assertTrue(explained.matches("(?s).*matmul.*epilogue.*"), explained);

        var sgd = new SGD(model.parameters(), 0.05, 0.9, 0, 0, false);
        var withMomentum = sgd.compile((x, y) -> model.forward(x.to(DType.F32)).mseLoss(y.to(DType.F32)));
        withMomentum.apply(X, Y);
        explained = withMomentum.explain();
        assertEquals(12, explained.split("in the array of input", -1).length - 1, "parameters, buffers, step counts\n" + explained);
        sgd.momentum(0);  // the buffers are left alone, the parameters still written in place
        withMomentum.apply(X, Y);
        explained = withMomentum.explain();
        assertEquals(4, explained.split("in the array of input", -1).length - 1, explained);
    }

    @Test
    void parametersTheLossDoesNotReadAreLeftAlone() {
        var used = model();
        var unused = new Parameter("unused", Tensor.ones(3));
        var sgd = new SGD(List.of(used.weight(), used.bias(), unused), 0.1, 0.9, 0, 0.5, false);
        sgd.compile((x, y) -> loss(used, x, y)).apply(X, Y);
        assertArrayEquals(new float[] {1, 1, 1}, unused.value().toFloatArray());
    }

    /// Two f64 parameters: `a`, read by every step, and `b`, read from step [#JOINS] on. Each loss
    /// is `Σ p²·x` over the parameters it reads, so `∂/∂p = 2·p·x`.
    private static final int JOINS = 3, STEPS = 5;
    private static final double[][] LATE_BATCH = {{0.5, -1.5}, {2, -0.25, 1}};

    private static double[] gradient(double[] p, double[] x) {
        double[] g = new double[p.length];
        for (int i = 0; i < p.length; i++) g[i] = 2 * p[i] * x[i];
        return g;
    }

    /// Runs the late-joining schedule on `optimizer` over `a` and `b`, and after each step checks
    /// both against `reference`, torch.optim's rule applied in double to each parameter that has a
    /// gradient, with that parameter's own state.
    private static void joinsLate(Optimizer optimizer, Parameter a, Parameter b, Reference reference, String what) {
        Tensor x = Tensor.of(LATE_BATCH[0], 2), y = Tensor.of(LATE_BATCH[1], 3);
        var onlyA = optimizer.compile((u, v) -> a.value().square().mul(u).sum());
        var both = optimizer.compile((u, v) -> a.value().square().mul(u).sum().add(b.value().square().mul(v).sum()));
        double[][] params = {a.value().toDoubleArray(), b.value().toDoubleArray()};
        int[] own = new int[2];
        for (int t = 1; t <= STEPS; t++) {
            for (int p = 0; p < (t < JOINS ? 1 : 2); p++) reference.step(p, params[p], gradient(params[p], LATE_BATCH[p]), ++own[p]);
            (t < JOINS ? onlyA : both).apply(x, y);
            assertArrayEquals(params[0], a.value().toDoubleArray(), 1e-12, what + ": a after step " + t);
            assertArrayEquals(params[1], b.value().toDoubleArray(), 1e-12, what + ": b after step " + t);
            assertEquals(own[1], optimizer.steps(1), what + ": b's own step count after step " + t);
        }
        assertEquals(STEPS, optimizer.steps(0));
        assertEquals(STEPS - JOINS + 1, optimizer.stateDict().get("state.1.step").item(), what);
        assertEquals(List.of(1, 1), List.of(onlyA.compiledSignatures(), both.compiledSignatures()), "a step count is no constant of the program");
    }

    /// One parameter's update at its own step `t` (1 at its first gradient), in place.
    interface Reference {
        void step(int index, double[] p, double[] g, int t);
    }

    private static Parameter late(String name, double... values) { return new Parameter(name, Tensor.of(values, values.length)); }

    @Test
    void aParameterThatJoinsLateGetsAdamsFirstStep() {
        for (boolean decoupled : new boolean[] {false, true}) {
            var a = late("a", 1, -2);
            var b = late("b", 0.5, 1, -1.5);
            double lr = 0.1, b1 = 0.9, b2 = 0.99, eps = 1e-8, wd = 0.05;
            double[][] m = {new double[2], new double[3]}, v = {new double[2], new double[3]};
            Reference torch = (index, p, g, t) -> { // torch/optim/adam.py, _single_tensor_adam
                for (int i = 0; i < p.length; i++) {
                    double gi = g[i];
                    if (decoupled) p[i] *= 1 - lr * wd;
                    else gi += wd * p[i];
                    m[index][i] = b1 * m[index][i] + (1 - b1) * gi;
                    v[index][i] = b2 * v[index][i] + (1 - b2) * gi * gi;
                    double denominator = Math.sqrt(v[index][i]) / Math.sqrt(1 - Math.pow(b2, t)) + eps;
                    p[i] -= lr / (1 - Math.pow(b1, t)) * m[index][i] / denominator;
                }
            };
            joinsLate(new Adam(List.of(a, b), lr, b1, b2, eps, wd, decoupled), a, b, torch, decoupled ? "AdamW" : "Adam");
        }
    }

    @Test
    void aParameterThatJoinsLateStartsSgdsMomentumBufferUndampened() {
        for (boolean nesterov : new boolean[] {false, true}) {
            var a = late("a", 1, -2);
            var b = late("b", 0.5, 1, -1.5);
            double lr = 0.1, mu = 0.9, damp = nesterov ? 0 : 0.5, wd = 0.01;
            double[][] buffers = new double[2][];
            Reference torch = (index, p, g, t) -> { // torch/optim/sgd.py, _single_tensor_sgd
                for (int i = 0; i < p.length; i++) g[i] += wd * p[i];
                if (buffers[index] == null) buffers[index] = g.clone();
                else for (int i = 0; i < p.length; i++) buffers[index][i] = mu * buffers[index][i] + (1 - damp) * g[i];
                for (int i = 0; i < p.length; i++) p[i] -= lr * (nesterov ? g[i] + mu * buffers[index][i] : buffers[index][i]);
            };
            var sgd = new SGD(List.of(a, b), lr, mu, damp, wd, nesterov);
            joinsLate(sgd, a, b, torch, "SGD, nesterov " + nesterov);
            assertArrayEquals(buffers[1], sgd.state(1).getFirst().toDoubleArray(), 1e-12);
        }
    }

    @Test
    void sgdLeavesItsMomentumBufferAloneWhileTheMomentumIsZero() {
        var p = new Parameter("w", Tensor.of(new double[] {0}, 1));
        var sgd = new SGD(List.of(p), 1.0, 0.9, 0, 0, false);
        var step = sgd.compile(x -> p.value().mul(x).sum());                    // g = x
        step.apply(Tensor.of(new double[] {1}, 1));                            // buf = 1, w = -1
        sgd.momentum(0);
        step.apply(Tensor.of(new double[] {2}, 1));                            // w = -3, buf stays 1
        assertArrayEquals(new double[] {1}, sgd.state(0).getFirst().toDoubleArray());
        assertEquals(1, sgd.steps(0), "a step without momentum does not count for the buffer");
        sgd.momentum(0.9);
        step.apply(Tensor.of(new double[] {4}, 1));                            // buf = 0.9·1 + 4, w = -3 - 4.9
        assertEquals(4.9, sgd.state(0).getFirst().item(), 1e-12);
        assertEquals(-7.9, p.value().item(), 1e-12);
        assertEquals(1, step.compiledSignatures());

        sgd.momentum(0);                                                        // even a gradient that is not finite leaves it
        step.apply(Tensor.of(new double[] {Double.POSITIVE_INFINITY}, 1));
        assertEquals(4.9, sgd.state(0).getFirst().item(), 1e-12);

        var q = new Parameter("q", Tensor.of(new double[] {0}, 1));            // momentum 0 from the start: no buffer yet,
        var late = new SGD(List.of(q), 1.0, 0.9, 0.5, 0, false);              // so its first momentum step starts it at g
        var lateStep = late.momentum(0).compile(x -> q.value().mul(x).sum());
        lateStep.apply(Tensor.of(new double[] {2}, 1));
        late.momentum(0.9);
        lateStep.apply(Tensor.of(new double[] {4}, 1));
        assertEquals(4, late.state(0).getFirst().item(), 1e-12, "undampened, as PyTorch's first buffer");
        assertEquals(-6, q.value().item(), 1e-12);
    }

    @Test
    void badInputIsRefusedAtTheBoundary() {
        var model = model();
        assertThrows(SmeltException.class, () -> new SGD(model.parameters(), -1));
        assertThrows(SmeltException.class, () -> new SGD(List.of(), 0.1));
        assertThrows(SmeltException.class, () -> new SGD(List.of(model.weight(), model.weight()), 0.1));
        assertThrows(SmeltException.class, () -> new Adam(model.parameters(), 0.1, 1, 0.999, 1e-8, 0, false));
        assertThrows(SmeltException.class, () -> new Parameter("p", Tensor.arange(3)));
        var step = new SGD(model.parameters(), 0.1).compile((x, y) -> model.forward(x));
        var error = assertThrows(SmeltException.class, () -> step.apply(X.to(DType.F32), Y));
        assertTrue(error.getMessage().contains("scalar"), error.getMessage());
    }
}
