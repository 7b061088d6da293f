// SPDX-License-Identifier: Apache-2.0
package dev.smelt.runtime.attention;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.smelt.ir.DType;
import dev.smelt.ir.Shape;
import dev.smelt.ir.UnaryOp;
import dev.smelt.kernel.Expr;
import dev.smelt.kernel.IndexMap;
import dev.smelt.kernel.Kernel;
import dev.smelt.kernel.KernelInterpreter;
import dev.smelt.kernel.Transcendentals;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/// Attention's vector `exp` (`FloatBlocks`, Vector API code written by hand) gives the bits of
/// `kernel.Transcendentals`' rewrite of `exp`, which generated kernels emit, as the kernel
/// interpreter evaluates it: unfused softmax and fused attention exponentiate alike. Floats of
/// every kind, and the edges of the polynomial's range; whole vectors only (a row's last
/// `count % lanes` elements take `Math.exp`).
class FloatBlocksExpTest {
    private static final int POINTS = 64 * 64;

    @Test
    void vectorExpIsTheRewrittenExp() {
        var random = new Random(17);
        float[] special = {Float.NaN, 0f, -0f, Float.POSITIVE_INFINITY, Float.NEGATIVE_INFINITY, Float.MIN_VALUE, 1e-40f, Float.MAX_VALUE, -Float.MAX_VALUE,
                Transcendentals.EXP_HIGH, Math.nextUp(Transcendentals.EXP_HIGH), Transcendentals.EXP_LOW, Math.nextDown(Transcendentals.EXP_LOW), 88.37f, -87.34f, 88.72f, -103.9f, 1, -1};
        var space = Shape.of(POINTS);
        var map = IndexMap.contiguous(space);
        var kernel = new Kernel(space, 0, List.of(new Kernel.Input(DType.F32, POINTS, map)), List.of(),
                List.of(new Kernel.Output(new Expr.Unary(UnaryOp.EXP, new Expr.Load(0, DType.F32)), POINTS, map, false)));
        var rewrite = new KernelInterpreter(Transcendentals.expand(kernel));
        for (int call = 0; call < 8; call++) {
            float[] x = new float[POINTS];
            for (int i = 0; i < POINTS; i++)
                x[i] = switch (random.nextInt(5)) {
                    case 0 -> random.nextFloat() * 20 - 10;
                    case 1 -> random.nextFloat() * 200 - 100;
                    case 2 -> Float.intBitsToFloat(random.nextInt());
                    case 3 -> (float) Math.scalb(1 + random.nextDouble(), random.nextInt(60) - 50) * (random.nextBoolean() ? 1 : -1);
                    default -> special[random.nextInt(special.length)];
                };
            float[] expected = new float[POINTS], actual = x.clone();
            rewrite.run(new Object[] {x, expected}, 0, kernel.workItems());
            FloatBlocks.scoreGradient(actual, new float[POINTS], 0, POINTS, 1f, 0f, 0f, 1f);   // actual = exp(actual·1 - 0)
            for (int i = 0; i < POINTS; i++)
                if (!(Float.isNaN(expected[i]) && Float.isNaN(actual[i])))
                    assertEquals(Float.floatToRawIntBits(expected[i]), Float.floatToRawIntBits(actual[i]), "exp(" + x[i] + "): rewrite " + expected[i] + ", attention " + actual[i]);
        }
    }
}
