// SPDX-License-Identifier: Apache-2.0
package dev.smelt.spark;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.smelt.Generator;
import dev.smelt.Jit;
import dev.smelt.SafeTensors;
import dev.smelt.Tensor;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.util.List;
import org.junit.jupiter.api.Test;

/// The shipped description without Spark: the batch template instantiates at any size and the
/// compiled result equals eager code; Java serialization keeps it whole; a description of another
/// format, with text that does not parse or with weights missing is refused by `validate`, which
/// every entry point runs on the driver.
class ShippedFunctionTest {
    @Test
    void theTemplateRunsAtEveryBatchSizeAsEagerCode() {
        var model = InferenceTest.MODEL;
        var shipped = ShippedFunction.batched(model::forward, InferenceTest.FEATURES);
        assertTrue(shipped.isBatched());
        for (int batch : new int[] {1, 2, 7, 1009, 64}) {
            var rows = InferenceTest.rows(batch, batch);
            var x = new float[batch * InferenceTest.FEATURES];
            for (int i = 0; i < batch; i++) System.arraycopy(rows.get(i), 0, x, i * InferenceTest.FEATURES, InferenceTest.FEATURES);
            Tensor input = Tensor.of(x, batch, InferenceTest.FEATURES);
            var compiled = Jit.compile(shipped.traced(batch)).apply(input);
            assertArrayEquals(model.forward(input).toFloatArray(), compiled.toFloatArray(), 1e-5f, "batch " + batch);
        }
    }

    /// A reshape that flattens the batch with another axis becomes a multiple of the slot.
    @Test
    void aFlattenedBatchIsAMultipleOfTheSlot() {
        var shipped = ShippedFunction.batched(args -> List.of(args.getFirst().reshape(-1).mul(2)), List.of(Tensor.zeros(1, 3, 4)));
        assertTrue(shipped.graph(5).contains("f32[60]"), shipped.graph(5));
        var x = Tensor.rand(new Generator(1), 5, 3, 4);
        assertArrayEquals(x.reshape(-1).mul(2).toFloatArray(), Jit.compile(shipped.traced(5)).apply(x).toFloatArray());
    }

    @Test
    void javaSerializationKeepsItWhole() throws IOException, ClassNotFoundException {
        var shipped = ShippedFunction.batched(InferenceTest.MODEL::forward, InferenceTest.FEATURES);
        var bytes = new ByteArrayOutputStream();
        try (var out = new ObjectOutputStream(bytes)) {
            out.writeObject(shipped);
        }
        ShippedFunction back;
        try (var in = new ObjectInputStream(new ByteArrayInputStream(bytes.toByteArray()))) {
            back = (ShippedFunction) in.readObject();
        }
        assertEquals(shipped.id(), back.id());
        assertEquals(shipped.graph(3), back.graph(3));
        back.validate("test");
        assertNotEquals(shipped.id(), ShippedFunction.batched(x -> InferenceTest.MODEL.forward(x).mul(2), InferenceTest.FEATURES).id());
    }

    @Test
    void badDescriptionsAreRefusedWithWhatIsWrong() {
        var good = ShippedFunction.batched(InferenceTest.MODEL::forward, InferenceTest.FEATURES);
        byte[] weights = SafeTensors.bytes(good.weights());
        String text = good.graph(1).replaceFirst("f32\\[1,", "f32[\\$1,");
        Training.assertRefused(() -> new ShippedFunction(ShippedFunction.FORMAT + 1, text, 1, good.captureNames(), weights).validate("test"),
                "described in format 2, but this Smelt reads format 1");
        Training.assertRefused(() -> new ShippedFunction(ShippedFunction.FORMAT, text.replace("matmul", "matmull"), 1, good.captureNames(), weights).validate("test"),
                "does not parse at batch size 1");
        Training.assertRefused(() -> new ShippedFunction(ShippedFunction.FORMAT, text, 1, List.of("capture.0", "nowhere"), weights).validate("test"),
                "reads weight nowhere");
        Training.assertRefused(() -> new SmeltTransformer(new ShippedFunction(ShippedFunction.FORMAT, text, 1, good.captureNames(), new byte[3])),
                "SafeTensors.fromBytes");
        var generator = new Generator(1); // advanced by every call; one made inside the function draws the same values each call
        Training.assertRefused(() -> ShippedFunction.batched(x -> x.dropout(0.5, generator), 4), "draws random numbers");
        ShippedFunction.batched(x -> x.dropout(0.5, new Generator(1)), 4).validate("test");
        assertFalse(new ShippedFunction(ShippedFunction.FORMAT, good.graph(4), 1, good.captureNames(), weights).isBatched());
    }
}
