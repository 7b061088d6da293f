// SPDX-License-Identifier: Apache-2.0
package dev.smelt.optim;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.smelt.Generator;
import dev.smelt.SafeTensors;
import dev.smelt.Tensor;
import dev.smelt.ir.DType;
import dev.smelt.ir.SmeltException;
import dev.smelt.nn.Activations;
import dev.smelt.nn.Linear;
import dev.smelt.nn.Parameter;
import dev.smelt.nn.Sequential;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BiFunction;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/// Checkpoints in the middle of training: the model's and the optimizer's state saved, training
/// continued, the state loaded back, and training continued again, bit for bit as the run that was
/// never interrupted, whether the state goes back into the same model (whose compiled step must
/// see it) or into a freshly made one.
class CheckpointTest {
    @TempDir Path directory;

    private static final int CLASSES = 3;

    static Sequential mlp(long seed) {
        var g = new Generator(seed);
        return new Sequential(new Linear(5, 16, g), new Activations.Tanh(), new Linear(16, CLASSES, g));
    }

    static Tensor batch(int index) { return Tensor.randn(new Generator(100 + index), 8, 5); }

    static Tensor labels(int index) { return Tensor.rand(new Generator(200 + index), 8).mul(CLASSES).to(DType.I32); }

    /// A run: losses of each step and the model's final values, as bits.
    record Run(List<Double> losses, Map<String, float[]> parameters) {
        void assertSameAs(Run expected, String what) {
            assertEquals(expected.losses(), losses(), what + ": losses");
            expected.parameters().forEach((name, values) -> assertArrayEquals(values, parameters().get(name), what + ": " + name));
        }
    }

    static Run train(Sequential model, TrainStep step, int from, int to) {
        var losses = new ArrayList<Double>();
        for (int i = from; i < to; i++) losses.add(step.apply(batch(i), labels(i)));
        var parameters = new LinkedHashMap<String, float[]>();
        model.stateDict().forEach((name, value) -> parameters.put(name, value.toFloatArray()));
        return new Run(losses, parameters);
    }

    @Test
    void adamResumesBitForBit() {
        resumesBitForBit(parameters -> new Adam(parameters, 0.01, 0.9, 0.99, 1e-8, 0.01, true));
    }

    @Test
    void sgdWithMomentumResumesBitForBit() {
        resumesBitForBit(parameters -> new SGD(parameters, 0.05, 0.9, 0.1, 0.001, false));
    }

    @Test
    void sgdWithoutMomentumHasOnlyAStepCount() {
        var sgd = new SGD(mlp(1).parameters(), 0.1);
        assertEquals(List.of("step"), List.copyOf(sgd.stateDict().keySet()));
    }

    private void resumesBitForBit(java.util.function.Function<List<Parameter>, Optimizer> make) {
        var model = mlp(1);
        var optimizer = make.apply(model.parameters());
        BiFunction<Sequential, Optimizer, TrainStep> compile = (m, o) -> o.compile((x, y) -> m.forward(x).crossEntropy(y));
        var step = compile.apply(model, optimizer);
        train(model, step, 0, 4);
        Path weights = directory.resolve("model.safetensors"), state = directory.resolve("optimizer.safetensors");
        SafeTensors.save(weights, model.stateDict());
        SafeTensors.save(state, optimizer.stateDict());
        Run uninterrupted = train(model, step, 4, 9);

        model.loadStateDict(SafeTensors.load(weights));             // back into the same model and compiled step
        optimizer.loadStateDict(SafeTensors.load(state));
        assertEquals(4, optimizer.steps());
        train(model, step, 4, 9).assertSameAs(uninterrupted, "the same model and step, reloaded");
        assertEquals(1, step.compiledSignatures());

        var fresh = mlp(2);                                            // a new process, as it were
        var freshOptimizer = make.apply(fresh.parameters());
        fresh.loadStateDict(SafeTensors.load(weights));
        freshOptimizer.loadStateDict(SafeTensors.load(state));
        train(fresh, compile.apply(fresh, freshOptimizer), 4, 9).assertSameAs(uninterrupted, "a fresh model and optimizer");
    }

    @Test
    void aDictionaryWithOneStepCountGivesItToEveryParameter() {
        for (boolean adam : new boolean[] {true, false}) {
            java.util.function.Function<List<Parameter>, Optimizer> make = parameters -> adam
                    ? new Adam(parameters, 0.01, 0.9, 0.99, 1e-8, 0.01, true) : new SGD(parameters, 0.05, 0.9, 0.1, 0.001, false);
            var model = mlp(1);
            var optimizer = make.apply(model.parameters());
            var step = optimizer.compile((x, y) -> model.forward(x).crossEntropy(y));
            train(model, step, 0, 3);
            var older = new LinkedHashMap<>(optimizer.stateDict());  // as saved before parameters had counts of their own
            older.keySet().removeIf(name -> name.matches("state\\.\\d+\\.step"));
            Path weights = directory.resolve("model.safetensors"), state = directory.resolve("older.safetensors");
            SafeTensors.save(weights, model.stateDict());
            SafeTensors.save(state, older);
            Run uninterrupted = train(model, step, 3, 6);

            var fresh = mlp(2);
            var freshOptimizer = make.apply(fresh.parameters());
            fresh.loadStateDict(SafeTensors.load(weights));
            freshOptimizer.loadStateDict(SafeTensors.load(state));
            for (int i = 0; i < fresh.parameters().size(); i++) assertEquals(3, freshOptimizer.steps(i), "parameter " + i);
            train(fresh, freshOptimizer.compile((x, y) -> fresh.forward(x).crossEntropy(y)), 3, 6).assertSameAs(uninterrupted, freshOptimizer.toString());
        }
    }

    @Test
    void aParameterThatHasNotJoinedYetResumesWithItsOwnCount() {
        record Late(Parameter a, Parameter b, Adam adam, TrainStep onlyA, TrainStep both) {
            static Late make() {
                var a = new Parameter("a", Tensor.of(new double[] {1, -2}, 2));
                var b = new Parameter("b", Tensor.of(new double[] {0.5, 1.5}, 2));
                var adam = new Adam(List.of(a, b), 0.1);
                return new Late(a, b, adam, adam.compile(x -> a.value().square().mul(x).sum()),
                        adam.compile(x -> a.value().add(b.value()).square().mul(x).sum()));
            }
        }
        Tensor x = Tensor.of(new double[] {0.5, -1}, 2);
        var run = Late.make();
        run.onlyA().apply(x);
        run.onlyA().apply(x);
        assertEquals(List.of(2, 0), List.of(run.adam().steps(0), run.adam().steps(1)));
        Path weights = directory.resolve("late-weights.safetensors"), state = directory.resolve("late-adam.safetensors");
        SafeTensors.save(weights, Map.of("a", run.a().value(), "b", run.b().value()));
        SafeTensors.save(state, run.adam().stateDict());
        for (int i = 0; i < 3; i++) run.both().apply(x);             // b's steps 1 to 3

        var resumed = Late.make();
        var saved = SafeTensors.load(weights);
        resumed.a().value().copyFrom(saved.get("a"));
        resumed.b().value().copyFrom(saved.get("b"));
        resumed.adam().loadStateDict(SafeTensors.load(state));
        for (int i = 0; i < 3; i++) resumed.both().apply(x);
        assertArrayEquals(run.a().value().toDoubleArray(), resumed.a().value().toDoubleArray());
        assertArrayEquals(run.b().value().toDoubleArray(), resumed.b().value().toDoubleArray());
        assertEquals(List.of(5, 3), List.of(resumed.adam().steps(0), resumed.adam().steps(1)));
    }

    @Test
    void aCompiledStepSeesParametersWrittenWithCopyFrom() {
        var model = mlp(1);
        var step = new SGD(model.parameters(), 0).compile((x, y) -> model.forward(x).crossEntropy(y)); // lr 0: weights stay
        double before = step.apply(batch(0), labels(0));
        var other = mlp(2);
        var otherStep = new SGD(other.parameters(), 0).compile((x, y) -> other.forward(x).crossEntropy(y));
        for (int i = 0; i < model.parameters().size(); i++) model.parameters().get(i).value().copyFrom(other.parameters().get(i).value());
        double after = step.apply(batch(0), labels(0));
        assertEquals(otherStep.apply(batch(0), labels(0)), after);
        assertTrue(before != after);
        assertEquals(1, step.compiledSignatures());
    }

    @Test
    void adamStateHasPyTorchsNamesAndLiveTensors() {
        var model = mlp(1);
        var adam = new Adam(model.parameters(), 0.01);
        adam.compile((x, y) -> model.forward(x).crossEntropy(y)).apply(batch(0), labels(0));
        var state = adam.stateDict();
        assertEquals(List.of("step", "state.0.step", "state.0.exp_avg", "state.0.exp_avg_sq", "state.1.step", "state.1.exp_avg", "state.1.exp_avg_sq",
                "state.2.step", "state.2.exp_avg", "state.2.exp_avg_sq", "state.3.step", "state.3.exp_avg", "state.3.exp_avg_sq"), List.copyOf(state.keySet()));
        assertEquals(1, state.get("step").item());
        assertEquals(DType.I32, state.get("step").dtype());
        assertEquals(1, state.get("state.3.step").item());
        assertEquals(DType.I32, state.get("state.3.step").dtype());
        assertEquals(adam.state(2).get(1), state.get("state.2.exp_avg_sq"));
        assertEquals(model.parameters().get(2).value().shape(), state.get("state.2.exp_avg").shape());
    }

    @Test
    void aBadOptimizerDictionaryChangesNothing() {
        var model = mlp(1);
        var adam = new Adam(model.parameters(), 0.01);
        adam.compile((x, y) -> model.forward(x).crossEntropy(y)).apply(batch(0), labels(0));
        float[] before = adam.state(0).getFirst().toFloatArray();
        var good = new Adam(mlp(2).parameters(), 0.01).stateDict();
        var bad = new LinkedHashMap<>(good);
        bad.remove("state.3.exp_avg_sq");
        bad.put("state.0.exp_avg", Tensor.zeros(3, 3));
        var e = assertThrows(SmeltException.class, () -> adam.loadStateDict(bad));
        assertTrue(e.getMessage().contains("missing state.3.exp_avg_sq") && e.getMessage().contains("state.0.exp_avg is f32[16,5] here but f32[3,3]"), e.getMessage());
        var negative = new LinkedHashMap<>(good);
        negative.put("step", Tensor.scalar(DType.I32, -1));
        e = assertThrows(SmeltException.class, () -> adam.loadStateDict(negative));
        assertTrue(e.getMessage().contains("step is -1"), e.getMessage());
        var negativeCount = new LinkedHashMap<>(good);
        negativeCount.put("state.2.step", Tensor.scalar(DType.I32, -1));
        e = assertThrows(SmeltException.class, () -> adam.loadStateDict(negativeCount));
        assertTrue(e.getMessage().contains("state.2.step is -1"), e.getMessage());
        var sgdState = new SGD(mlp(3).parameters(), 0.1, 0.9, 0, 0, false).stateDict();
        e = assertThrows(SmeltException.class, () -> adam.loadStateDict(sgdState));
        assertTrue(e.getMessage().contains("unexpected state.0.momentum_buffer"), e.getMessage());
        assertEquals(1, adam.steps());
        assertArrayEquals(before, adam.state(0).getFirst().toFloatArray());
    }
}
