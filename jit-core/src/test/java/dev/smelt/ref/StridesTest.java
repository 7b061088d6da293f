// SPDX-License-Identifier: Apache-2.0
package dev.smelt.ref;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;

import dev.smelt.ir.Shape;
import org.junit.jupiter.api.Test;

class StridesTest {
    @Test
    void contiguousStridesListEveryOffsetInOrder() {
        assertArrayEquals(new int[] {0, 1, 2, 3, 4, 5}, Strides.offsets(Shape.of(2, 3), new int[] {3, 1}, 0));
    }

    @Test
    void offsetsAddTheBaseAndFollowTheStrides() {
        assertArrayEquals(new int[] {5, 6, 5, 6, 15, 16, 15, 16}, Strides.offsets(Shape.of(2, 2, 2), new int[] {10, 0, 1}, 5));
    }

    @Test
    void scalarHasOneOffsetAndEmptyShapesNone() {
        assertArrayEquals(new int[] {7}, Strides.offsets(Shape.SCALAR, new int[] {}, 7));
        assertArrayEquals(new int[] {}, Strides.offsets(Shape.of(3, 0, 2), new int[] {0, 2, 1}, 0));
    }

    @Test
    void coordinatesAreTheIndexAlongTheAxis() {
        assertArrayEquals(new int[] {0, 0, 1, 1, 2, 2}, Strides.coordinates(Shape.of(3, 2), 0));
        assertArrayEquals(new int[] {0, 1, 0, 1, 0, 1}, Strides.coordinates(Shape.of(3, 2), 1));
    }
}
