// SPDX-License-Identifier: Apache-2.0
package dev.smelt.runtime.matmul;

import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.smelt.codegen.MicroKernel;
import dev.smelt.codegen.MicroKernelShape;
import dev.smelt.ir.DType;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;

/// The matmul tile's warm-up never settles on the scalar tile for good: a round the vector tile
/// lost (a busy machine starving the warm-up, C2 not done yet) is tried again after a back-off.
class MicroKernelsTest {
    /// A stand-in vector tile that is far slower than the scalar tile until `fast` is set, then
    /// returns at once (the warm-up only times it).
    static final class Stalling implements MicroKernel {
        volatile boolean fast;

        @Override
        public void run(Object a, int aOffset, Object b, int bOffset, int depth, Object c, int cOffset, int ldc, boolean accumulate) {
            // spins rather than parks: a park may return at once (a pending permit), and one quick
            // call among the timed ones would let the slow tile win. 50 µs per step of depth: a timed
            // call (depth 64) takes 3.2 ms, several times an interpreted scalar tile's, which on a busy
            // machine is what the stand-in is compared with (at a flat 200 µs it once won there)
            for (long until = System.nanoTime() + depth * 50_000L; !fast && System.nanoTime() < until; ) Thread.onSpinWait();
        }
    }

    @Test
    void aLostWarmUpIsTriedAgainAfterItsBackOff() {
        var shape = MicroKernelShape.of(DType.F32);
        var stalling = new Stalling();
        var tiles = new MicroKernels(shape, () -> stalling, 50_000_000L, 20_000_000L);
        MicroKernel scalar = tiles.current(); // starts the first warm-up, which the stalling tile loses
        long deadline = System.nanoTime() + 30_000_000_000L;
        while (!tiles.tier().contains("trying again") && System.nanoTime() < deadline) LockSupport.parkNanos(1_000_000);
        assertTrue(tiles.tier().contains("trying again"), tiles.tier());
        assertSame(scalar, tiles.current());
        stalling.fast = true;
        while (tiles.current() != stalling && System.nanoTime() < deadline) LockSupport.parkNanos(1_000_000);
        assertSame(stalling, tiles.current(), tiles.tier());
        assertTrue(tiles.tier().startsWith("vector tile"), tiles.tier());
    }
}
