// SPDX-License-Identifier: Apache-2.0
package dev.smelt.nn;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.smelt.Generator;
import dev.smelt.Jit;
import dev.smelt.Tensor;
import dev.smelt.ir.SmeltException;
import dev.smelt.optim.SGD;
import dev.smelt.optim.TrainStep;
import java.util.List;
import org.junit.jupiter.api.Test;

/// Embedding and oneHot: rows looked up as written, eager and compiled; the gradient adds into the
/// rows read (a repeated index twice); out-of-range indices throw and leave the table unchanged.
class EmbeddingTest {
    @Test
    void looksUpRows() {
        var embedding = new Embedding(7, 5, new Generator(1));
        Tensor indices = Tensor.of(new int[] {3, 0, 6, 3, 1, 2}, 2, 3);
        float[] table = embedding.weight().value().toFloatArray();
        for (Tensor rows : List.of(embedding.forward(indices), Jit.compile(embedding::forward).apply(indices))) {
            assertEquals(List.of(2, 3, 5), rows.shape().dims());
            int[] flat = indices.toIntArray();
            for (int i = 0; i < flat.length; i++)
                for (int j = 0; j < 5; j++) assertEquals(table[flat[i] * 5 + j], rows.get(i / 3, i % 3, j));
        }
        assertArrayEquals(new int[] {0, 0, 1, 1, 0, 0}, Tensor.of(new int[] {2, 0}).oneHot(3).toIntArray());
        assertEquals("Embedding(7, 5)", embedding.toString());
    }

    @Test
    void gradientsAddIntoTheRowsRead() {
        var embedding = new Embedding(4, 2, new Generator(2));
        float[] before = embedding.weight().value().toFloatArray();
        TrainStep step = new SGD(embedding.parameters(), 1).compile((indices, target) -> embedding.forward(indices).sum());
        step.apply(Tensor.of(new int[] {1, 3, 1}), Tensor.zeros(1));
        float[] after = embedding.weight().value().toFloatArray();
        float[] expected = before.clone();
        for (int j = 0; j < 2; j++) {
            expected[2 + j] -= 2; // row 1 read twice
            expected[6 + j] -= 1;
        }
        assertArrayEquals(expected, after);
    }

    @Test
    void outOfRangeIndicesThrowAndChangeNothing() {
        var embedding = new Embedding(4, 2, new Generator(3));
        float[] before = embedding.weight().value().toFloatArray();
        TrainStep step = new SGD(embedding.parameters(), 1).compile((indices, target) -> embedding.forward(indices).sum());
        var error = assertThrows(SmeltException.class, () -> step.apply(Tensor.of(new int[] {1, 4}), Tensor.zeros(1)));
        assertTrue(error.getMessage().startsWith("indexSelect: index 4 at index 1 is out of range; expected 0..3"), error.getMessage());
        assertArrayEquals(before, embedding.weight().value().toFloatArray());
        assertThrows(SmeltException.class, () -> embedding.forward(Tensor.of(new int[] {-1})));
        assertThrows(SmeltException.class, () -> Jit.compile(embedding::forward).apply(Tensor.of(new int[] {9})));
        assertThrows(SmeltException.class, () -> Tensor.ones(2).oneHot(3));
        assertThrows(SmeltException.class, () -> new Embedding(0, 2, new Generator(1)));
    }
}
