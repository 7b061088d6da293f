// SPDX-License-Identifier: Apache-2.0
package dev.smelt;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.smelt.ir.DType;
import dev.smelt.ir.SmeltException;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/// tril/triu against the definition on random batches of matrices and diagonals (beyond both
/// corners too), eager and compiled; split and chunk against torch's piece sizes.
class TrianglesAndPiecesTest {
    @Test
    void trianglesKeepWhatTheDefinitionKeeps() {
        var random = new Random(3);
        for (int trial = 0; trial < 60; trial++) {
            int batch = 1 + random.nextInt(3), rows = 1 + random.nextInt(7), columns = 1 + random.nextInt(7), k = random.nextInt(17) - 8;
            DType dtype = trial % 3 == 0 ? DType.I32 : DType.F32;
            Tensor x = EinsumTest.random(random, dtype, batch, rows, columns);
            for (boolean lower : new boolean[] {true, false}) {
                Tensor eager = lower ? x.tril(k) : x.triu(k);
                Tensor compiled = Jit.compile((Tensor t) -> lower ? t.tril(k) : t.triu(k)).apply(x);
                for (Tensor result : List.of(eager, compiled)) {
                    assertEquals(x.shape(), result.shape());
                    assertEquals(dtype, result.dtype());
                    for (int b = 0; b < batch; b++)
                        for (int i = 0; i < rows; i++)
                            for (int j = 0; j < columns; j++) {
                                boolean kept = lower ? j - i <= k : j - i >= k;
                                assertEquals(kept ? x.get(b, i, j) : 0, result.get(b, i, j), "k=" + k + " lower=" + lower + " at " + b + "," + i + "," + j);
                            }
                }
            }
        }
    }

    /// A diagonal near the ends of the int range keeps everything or nothing, as in PyTorch: row + k
    /// must not wrap around (tril(Integer.MAX_VALUE) once zeroed every row but the first).
    @Test
    void diagonalsAtTheEndsOfTheIntRangeKeepAllOrNothing() {
        Tensor x = EinsumTest.random(new Random(5), DType.F32, 3, 4);
        for (int k : new int[] {Integer.MAX_VALUE, Integer.MAX_VALUE - 2, Integer.MIN_VALUE, Integer.MIN_VALUE + 2})
            for (boolean lower : new boolean[] {true, false}) {
                Tensor eager = lower ? x.tril(k) : x.triu(k);
                Tensor compiled = Jit.compile((Tensor t) -> lower ? t.tril(k) : t.triu(k)).apply(x);
                boolean keepsAll = lower == k > 0;
                for (Tensor result : List.of(eager, compiled))
                    for (int i = 0; i < 3; i++)
                        for (int j = 0; j < 4; j++)
                            assertEquals(keepsAll ? x.get(i, j) : 0, result.get(i, j), "k=" + k + " lower=" + lower + " at " + i + "," + j);
            }
    }

    @Test
    void aCausalMaskLeavesNoWeightAboveTheDiagonal() {
        var scores = EinsumTest.random(new Random(4), DType.F32, 6, 6);
        var masked = Jit.compile((Tensor s) -> s.add(Tensor.ones(6, 6).triu(1).mul(-1e9f)).softmax(-1)).apply(scores);
        for (int i = 0; i < 6; i++)
            for (int j = i + 1; j < 6; j++) assertEquals(0, masked.get(i, j));
    }

    @Test
    void piecesHaveTorchsSizes() {
        Tensor x = Tensor.arange(0, 10, 1).reshape(2, 5);
        assertEquals(List.of(2, 2, 1), x.split(2, 1).stream().map(t -> t.dim(1)).toList());
        assertEquals(List.of(3, 2), x.chunk(2, -1).stream().map(t -> t.dim(1)).toList());
        assertEquals(List.of(2, 2, 1), x.chunk(3, 1).stream().map(t -> t.dim(1)).toList());
        assertEquals(List.of(1, 1, 1, 1, 1), x.chunk(7, 1).stream().map(t -> t.dim(1)).toList()); // fewer than asked, as torch.chunk
        assertEquals(7.0, x.split(2, 1).get(1).get(1, 0));
        Tensor second = Jit.compile((Tensor t) -> t.chunk(2, 1).get(1).mul(2)).apply(x);
        assertEquals(List.of(2, 2), second.shape().dims());
        assertEquals(18.0, second.get(1, 1));
        assertEquals(1, Tensor.zeros(0, 3).split(2, 0).size());
        assertThrows(SmeltException.class, () -> x.split(0, 1));
        assertThrows(SmeltException.class, () -> x.chunk(0, 1));
        assertThrows(SmeltException.class, () -> x.split(1, 2));
        var error = assertThrows(SmeltException.class, () -> Tensor.ones(3).tril(0));
        assertTrue(error.getMessage().startsWith("tril: needs at least 2 axes"), error.getMessage());
    }
}
