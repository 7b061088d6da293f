// SPDX-License-Identifier: Apache-2.0
package dev.smelt.ref;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.smelt.ir.DType;
import dev.smelt.ir.Graph;
import dev.smelt.ir.Node;
import dev.smelt.ir.Shape;
import dev.smelt.ir.Storage;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.Comparator;
import java.util.IdentityHashMap;
import java.util.List;

/// Runs one-output graphs through the [Interpreter] and builds and checks the storages of the
/// interpreter tests. Checks are exact to the bit (NaN equals NaN, -0.0 differs from +0.0) unless
/// they allow some ulps.
final class Evaluate {
    private Evaluate() {}

    /// The value of `output`, whose graph inputs are the [Node.Input]s it reaches, by slot.
    static Storage run(Node output, Storage... inputs) {
        return Interpreter.run(new Graph(inputsOf(output), List.of(output)), List.of(inputs)).getFirst();
    }

    static List<Node.Input> inputsOf(Node output) {
        var seen = new IdentityHashMap<Node, Boolean>();
        var pending = new ArrayDeque<Node>(List.of(output));
        while (!pending.isEmpty()) {
            Node node = pending.pop();
            if (seen.put(node, true) == null) pending.addAll(node.inputs());
        }
        return seen.keySet().stream().filter(Node.Input.class::isInstance).map(Node.Input.class::cast)
                .sorted(Comparator.comparingInt(Node.Input::slot)).toList();
    }

    static Node.Input input(int slot, DType dtype, int... dims) { return new Node.Input(slot, Shape.of(dims), dtype); }

    static Storage f32(float... values) { return Storage.wrap(values); }

    static Storage f64(double... values) { return Storage.wrap(values); }

    static Storage i32(int... values) { return Storage.wrap(values); }

    static Storage bool(int... values) {
        byte[] bytes = new byte[values.length];
        for (int i = 0; i < values.length; i++) bytes[i] = (byte) values[i];
        return Storage.wrapBool(bytes);
    }

    /// The elements `0, 1, …, size-1` as `dtype`.
    static Storage counting(DType dtype, int size) {
        var storage = Storage.allocate(dtype, size);
        for (int i = 0; i < size; i++) storage.set(i, i);
        return storage;
    }

    static double[] elements(Storage storage) {
        double[] elements = new double[storage.size()];
        for (int i = 0; i < elements.length; i++) elements[i] = storage.get(i);
        return elements;
    }

    /// `actual` has `dtype` and, element by element, exactly the `expected` values.
    static void assertValues(DType dtype, double[] expected, Storage actual) {
        assertValues(dtype, expected, actual, 0);
    }

    /// As [#assertValues(DType, double[], Storage)], allowing `ulps` units in the last place of the dtype.
    static void assertValues(DType dtype, double[] expected, Storage actual, int ulps) {
        assertEquals(dtype, actual.dtype(), "dtype");
        assertEquals(expected.length, actual.size(), "element count");
        for (int i = 0; i < expected.length; i++) {
            double want = dtype.round(expected[i]), got = actual.get(i);
            boolean same = Double.compare(want, got) == 0
                    || ulps > 0 && Math.abs(want - got) <= ulps * ulp(dtype, want);
            if (!same)
                throw new AssertionError("element %d: expected %s, got %s (within %d ulps)\nexpected %s\nactual   %s".formatted(
                        i, want, got, ulps, Arrays.toString(expected), Arrays.toString(elements(actual))));
        }
    }

    private static double ulp(DType dtype, double value) {
        return dtype == DType.F32 ? Math.ulp((float) value) : Math.ulp(value);
    }
}
