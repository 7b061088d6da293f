// SPDX-License-Identifier: Apache-2.0
package dev.smelt.runtime.attention;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Random;
import org.junit.jupiter.api.Test;

/// FloatTouch reads only the rows it is given: on arrays that end where the rows end and start
/// where they start, a load past either end would throw. Rows contiguous (two or four streams,
/// around [FloatTouch#SPLIT]) or strided, widths below, at and past a vector, and the same fold on
/// a second call.
class FloatTouchTest {
    @Test
    void readsOnlyTheRowsItIsGiven() {
        var random = new Random(31);
        int[] widths = {1, 5, 16, 17, 48, 64, 67};
        for (int trial = 0; trial < 400; trial++) {
            int kWidth = widths[random.nextInt(widths.length)], vWidth = trial % 3 == 0 ? kWidth : widths[random.nextInt(widths.length)];
            boolean contiguous = trial % 4 != 3;
            int kStep = contiguous ? kWidth : kWidth + 1 + random.nextInt(20), vStep = contiguous ? vWidth : vWidth + 1 + random.nextInt(20);
            int around = FloatTouch.SPLIT / Math.min(kWidth, vWidth);
            int count = trial % 2 == 0 ? 1 + random.nextInt(200) : Math.max(1, around - 2 + random.nextInt(5));
            int kFrom = trial % 5 == 0 ? 0 : random.nextInt(40), vFrom = trial % 5 == 0 ? 0 : random.nextInt(40);
            float[] k = values(random, kFrom + (count - 1) * kStep + kWidth), v = values(random, vFrom + (count - 1) * vStep + vWidth);
            int folded = FloatTouch.rows(k, kFrom, kStep, kWidth, v, vFrom, vStep, vWidth, count);
            assertEquals(folded, FloatTouch.rows(k, kFrom, kStep, kWidth, v, vFrom, vStep, vWidth, count), "trial " + trial);
        }
    }

    private static float[] values(Random random, int length) {
        float[] values = new float[length];
        for (int i = 0; i < length; i++) values[i] = (float) random.nextGaussian();
        return values;
    }
}
