// SPDX-License-Identifier: Apache-2.0
package dev.smelt;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.smelt.ir.SmeltException;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/// `Generator.permutation`: a permutation of `0…n-1`, reproducible from seed and position, and uniform.
class PermutationTest {
    @Test
    void everyLengthGivesEachIndexOnce() {
        var generator = new Generator(7);
        for (int n : new int[] {0, 1, 2, 7, 31, 1000}) {
            int[] order = generator.permutation(n);
            int[] sorted = order.clone();
            Arrays.sort(sorted);
            assertArrayEquals(IntStream.range(0, n).toArray(), sorted, "n = " + n);
        }
    }

    @Test
    void sameSeedAndPositionGiveTheSameOrder() {
        var a = new Generator(3);
        var b = new Generator(3);
        assertArrayEquals(a.permutation(100), b.permutation(100));
        assertEquals(a.position(), b.position());
        assertTrue(a.position() >= 99, "Fisher–Yates draws once per swap: " + a.position());
        assertArrayEquals(a.permutation(50), b.permutation(50), "the next draws stay in step");
        assertFalse(Arrays.equals(new Generator(3).permutation(100), new Generator(4).permutation(100)), "another seed, another order");
    }

    @Test
    void theSixOrdersOfThreeAreEquallyLikely() {
        var generator = new Generator(11);
        Map<String, Integer> counts = new HashMap<>();
        int draws = 60_000;
        for (int i = 0; i < draws; i++) counts.merge(Arrays.toString(generator.permutation(3)), 1, Integer::sum);
        assertEquals(6, counts.size());
        // χ² with 5 degrees of freedom; 20.5 is its 0.999 quantile, so a fair shuffle fails once in 1000 seeds.
        double expected = draws / 6.0;
        double chiSquare = counts.values().stream().mapToDouble(c -> (c - expected) * (c - expected) / expected).sum();
        assertTrue(chiSquare < 20.5, "χ² = " + chiSquare + " for " + counts);
    }

    @Test
    void negativeLengthIsRefused() {
        var e = assertThrows(SmeltException.class, () -> new Generator(0).permutation(-1));
        assertTrue(e.getMessage().startsWith("permutation: the length must be ≥ 0, got -1"), e.getMessage());
    }
}
