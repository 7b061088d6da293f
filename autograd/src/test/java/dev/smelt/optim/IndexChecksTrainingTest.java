// SPDX-License-Identifier: Apache-2.0
package dev.smelt.optim;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
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
import dev.smelt.nn.Parameter;
import dev.smelt.nn.Sequential;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/// Gradient programs and training steps check class labels as eager code does. A step whose batch
/// holds one bad label (negative, equal to the class count, huge; at a random position) throws the
/// eager `SmeltException` and changes nothing: every parameter, every optimizer state tensor and
/// the step count keep their bits. The next valid step then computes exactly what a twin model
/// that never saw the bad batch computes, without a recompile.
class IndexChecksTrainingTest {
    static final int CASES = 8;

    static Stream<Integer> seeds() { return IntStream.range(0, CASES).boxed(); }

    /// `[batch, inputs, hidden, classes, bad position, bad value]`.
    static int[] sizes(int seed) {
        var random = new Random(seed);
        int batch = new int[] {1, 3, 8, 33, 257}[random.nextInt(5)], classes = new int[] {1, 2, 4, 10, 31}[random.nextInt(5)];
        int bad = switch (random.nextInt(4)) {
            case 0 -> -1 - random.nextInt(3);
            case 1 -> classes;
            case 2 -> Integer.MAX_VALUE;
            default -> Integer.MIN_VALUE;
        };
        return new int[] {batch, 1 + random.nextInt(20), 1 + random.nextInt(40), classes, random.nextInt(batch), bad};
    }

    static Tensor labels(int seed, int batch, int classes) {
        var random = new Random(seed + 100);
        return Tensor.of(IntStream.range(0, batch).map(i -> random.nextInt(classes)).toArray());
    }

    static Tensor withBad(Tensor labels, int position, int value) {
        int[] values = labels.toIntArray();
        values[position] = value;
        return Tensor.of(values);
    }

    static String expected(int[] s) {
        return "crossEntropy: target %d at index %d is out of range; expected 0..%d".formatted(s[5], s[4], s[3] - 1);
    }

    static void rejects(String expected, Executable call) {
        var error = assertThrows(SmeltException.class, call);
        assertEquals(expected, error.getMessage().substring(0, error.getMessage().lastIndexOf(" (at ")));
        assertTrue(error.getMessage().contains("IndexChecksTrainingTest.java"), error.getMessage());
    }

    record Model(Sequential network, Optimizer optimizer, TrainStep step) {
        static Model of(int[] s, boolean adam) {
            var generator = new Generator(s[0] * 7919L + s[1]);
            var network = new Sequential(new Linear(s[1], s[2], generator), new Activations.Tanh(), new Linear(s[2], s[3], generator));
            Optimizer optimizer = adam ? new Adam(network.parameters(), 1e-2) : new SGD(network.parameters(), 1e-2, 0.9, 0, 1e-4, true);
            return new Model(network, optimizer, optimizer.compile((x, y) -> network.forward(x).crossEntropy(y)));
        }

        /// Every parameter's and state tensor's bits, and the step count.
        List<Object> snapshot() {
            var bits = new ArrayList<Object>();
            for (int i = 0; i < optimizer.parameters().size(); i++) {
                bits.add(optimizer.parameters().get(i).value().toFloatArray());
                for (Tensor state : optimizer.state(i)) bits.add(state.toFloatArray());
            }
            bits.add(optimizer.steps());
            return bits;
        }
    }

    static void assertSameBits(List<Object> expected, List<Object> actual, String what) {
        assertEquals(expected.size(), actual.size());
        for (int i = 0; i < expected.size(); i++)
            if (expected.get(i) instanceof float[] e) assertArrayEquals(e, (float[]) actual.get(i), 0f, what + ", tensor " + i);
            else assertEquals(expected.get(i), actual.get(i), what);
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void aFailedStepChangesNothingAndTheNextStepIsNormal(int seed) {
        int[] s = sizes(seed);
        boolean adam = seed % 2 == 0;
        Model model = Model.of(s, adam), twin = Model.of(s, adam);
        Tensor x = Tensor.randn(new Generator(seed), s[0], s[1]), valid = labels(seed, s[0], s[3]), bad = withBad(valid, s[4], s[5]);
        rejects(expected(s), () -> twin.network().forward(x).crossEntropy(bad));           // eager
        for (int step = 0; step < 2; step++) assertEquals(twin.step().apply(x, valid), model.step().apply(x, valid));
        var before = model.snapshot();
        for (int attempt = 0; attempt < 3; attempt++) {
            rejects(expected(s), () -> model.step().apply(x, bad));
            assertSameBits(before, model.snapshot(), (adam ? "Adam" : "SGD") + " state after failed step " + attempt);
        }
        double loss = model.step().apply(x, valid);
        assertEquals(Double.doubleToLongBits(twin.step().apply(x, valid)), Double.doubleToLongBits(loss));
        assertSameBits(twin.snapshot(), model.snapshot(), "after the next valid step");
        assertEquals(1, model.step().compiledSignatures());
    }

    /// The very first call of a step (tracing, compiling) fails the same way and leaves the
    /// freshly made state untouched.
    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void aFirstStepWithABadLabelChangesNothing(int seed) {
        int[] s = sizes(seed);
        Model model = Model.of(s, true);
        Tensor x = Tensor.randn(new Generator(seed), s[0], s[1]), bad = withBad(labels(seed, s[0], s[3]), s[4], s[5]);
        var before = model.snapshot();
        rejects(expected(s), () -> model.step().apply(x, bad));
        assertSameBits(before, model.snapshot(), "after a failed first step");
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void gradientProgramsCheckTheirLabels(int seed) {
        int[] s = sizes(seed);
        Tensor logits = Tensor.randn(new Generator(seed), s[0], s[3]), valid = labels(seed, s[0], s[3]), bad = withBad(valid, s[4], s[5]);
        Jit.Function2 loss = (l, t) -> l.crossEntropy(t);
        var valueAndGrad = Autograd.valueAndGrad(loss, 0);
        var grad = Autograd.grad(loss, 0);
        var result = valueAndGrad.apply(logits, valid);
        var joint = grad.apply(logits, valid);
        for (int call = 0; call < 2; call++) {
            rejects(expected(s), () -> valueAndGrad.apply(logits, bad));
            rejects(expected(s), () -> grad.apply(logits, bad));
            assertArrayEquals(result.gradients().getFirst().toFloatArray(), valueAndGrad.apply(logits, valid).gradients().getFirst().toFloatArray(), 0f);
            assertArrayEquals(joint.toFloatArray(), grad.apply(logits, valid).toFloatArray(), 0f);
        }
        String explained = valueAndGrad.explain();
        String backward = explained.substring(explained.indexOf("backward program:"));
        assertTrue(backward.contains("index checks before the first kernel: input %1 (op=crossEntropy what=target limit=" + s[3] + ")"), explained);
    }
}
