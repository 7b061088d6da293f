// SPDX-License-Identifier: Apache-2.0
package dev.smelt.runtime.matmul;

import dev.smelt.codegen.MicroKernel;
import dev.smelt.codegen.MicroKernelEmitter;
import dev.smelt.codegen.MicroKernelShape;
import dev.smelt.ir.DType;
import dev.smelt.runtime.KernelLoader;
import dev.smelt.runtime.Stopwatch;
import dev.smelt.runtime.WarmUpOrder;
import java.util.concurrent.ExecutorService;
import java.util.function.Supplier;

/// The micro-kernel each dtype's matmuls use now: the [ScalarTile] until the generated vector tile
/// ([MicroKernelEmitter]) has been compiled by C2 in the background, then the vector tile. A
/// warm-up that did not see the vector tile win is tried again after a back-off, so a busy
/// machine that starved the first one does not leave every matmul on the scalar tile for good. Vector
/// API code runs boxed, 50–500× slower, until C2 compiles it, and one tile serves every matmul of
/// a dtype, so the warm-up happens once per JVM and no call waits for it.
public final class MicroKernels {
    /// How long the warm-up may try before keeping the scalar tile.
    static final long WARM_UP_LIMIT_NANOS = 5_000_000_000L;
    /// Steps of K per timed call: long enough for the loop to matter.
    static final int WARM_UP_DEPTH = 64;
    /// Steps of K per untimed warm-up call: C2 compiles after thousands of calls, and a short call
    /// costs the boxed (not yet compiled) vector tile microseconds instead of a millisecond.
    static final int SHORT_DEPTH = 2;
    /// Warm-ups of [TinyProduct] before packing keeps serving tiny products for good.
    static final int TINY_ATTEMPTS = 3;

    private static final ExecutorService WARMER = WarmUpThread.EXECUTOR;

    private static final MicroKernels F32 = new MicroKernels(MicroKernelShape.of(DType.F32));
    private static final MicroKernels F64 = new MicroKernels(MicroKernelShape.of(DType.F64));

    private final MicroKernelShape shape;
    private final Supplier<MicroKernel> vectors;
    private final long limit, firstBackOff;
    private MicroKernel vector; // by the warm-up thread only: generated once, kept across rounds
    private volatile MicroKernel current;
    private volatile boolean warming, large;
    private boolean gated; // written before each warm-up is queued, read by it: whether it holds kernel warm-ups back
    private volatile long nextTry = System.nanoTime();
    private int lost; // by the warm-up thread only
    private volatile String tier = "scalar tile (vector tile not yet needed)";
    private volatile boolean tiny, tinyWarming, vectorPacking;
    private int tinyAttempts; // written by the warm-up thread only

    private MicroKernels(MicroKernelShape shape) {
        this(shape, null, WARM_UP_LIMIT_NANOS, Stopwatch.FIRST_BACK_OFF_NANOS);
    }

    /// With the vector tile `vectors` gives (null: the generated one), warm-ups of at most `limit`
    /// nanoseconds and a first back-off of `firstBackOff` (tests use short ones).
    MicroKernels(MicroKernelShape shape, Supplier<MicroKernel> vectors, long limit, long firstBackOff) {
        this.shape = shape;
        this.vectors = vectors;
        this.limit = limit;
        this.firstBackOff = firstBackOff;
        this.current = new ScalarTile(shape);
    }

    public static MicroKernels of(DType dtype) {
        return switch (dtype) {
            case F32 -> F32;
            case F64 -> F64;
            case I32, BOOL -> throw new IllegalArgumentException("no matmul micro-kernel for " + dtype);
        };
    }

    public MicroKernelShape shape() { return shape; }

    /// The tile to use now; the first call starts the warm-up, and a call after a lost warm-up's
    /// back-off starts the next.
    public MicroKernel current() {
        if (!warming && System.nanoTime() - nextTry >= 0) startWarmUp();
        return current;
    }

    /// Whether packing uses vectors ([PanelCopy], [PanelTranspose]): once C2 has compiled them,
    /// which the warm-up checks after the vector tile's.
    boolean vectorPacking() { return vectorPacking; }

    /// Which tile runs, for `explain()`.
    public String tier() { return tier; }

    /// Whether tiny products take [TinyProduct]: once C2 has compiled it (boxed, before that, it
    /// would be slower than packing). The first call starts its warm-up, on the same thread as the
    /// vector tile's.
    boolean tiny() {
        if (!tinyWarming) startTinyWarmUp();
        return tiny;
    }

    private synchronized void startTinyWarmUp() {
        if (tinyWarming) return;
        tinyWarming = true;
        WARMER.execute(() -> {
            try {
                tiny = TinyWarmUp.warmUp(shape.dtype(), System.nanoTime() + WARM_UP_LIMIT_NANOS);
                // A busy machine can starve the warm-up thread: a later call tries again, a few times.
                if (!tiny && ++tinyAttempts < TINY_ATTEMPTS) tinyWarming = false;
            } catch (RuntimeException | LinkageError e) {
                tiny = false; // packing serves tiny products as well
            }
        });
    }

    /// The plain-Java tile that serves until the vector tile is warm (for benchmarks).
    public static MicroKernel scalar(MicroKernelShape shape) { return new ScalarTile(shape); }

    /// The generated vector tile, loaded now (for tests, which want it whether warm or not).
    public static MicroKernel vector(MicroKernelShape shape) {
        return KernelLoader.load(MicroKernelEmitter.emit(shape), MicroKernel.class);
    }

    /// Starts the warm-up, as [#current] does, for a program with a large product: from now on,
    /// no kernel warm-up starts while the tile's runs ([WarmUpOrder]). Programs of small products
    /// (the digits MLP's, an Adam step of a tiny one) gain little from the tile and keep the
    /// kernels' vector variants coming at once.
    void startForLargeProducts() {
        large = true;
        current();
    }

    private synchronized void startWarmUp() {
        if (warming) return;
        warming = true;
        if (lost == 0) tier = "scalar tile (vector tile warming up)";
        gated = large;
        if (gated) WarmUpOrder.tileStarted(); // here, not on the warm-up thread: no kernel warm-up starts while this one waits in the queue
        WARMER.execute(this::warmUp);
    }

    // Times both tiles on one packed block until the vector tile is twice as fast as the scalar
    // one, then switches; once C2 has been asked for the vector tile, it rests between rounds and
    // gives C2 the whole limit from then on (a busy C2 took seconds for the tile, and a warm-up
    // that had ended just before was lost, its back-off spent on the scalar tile), and a warm-up
    // that ends without a switch is tried again after its back-off. The scalar tile runs
    // 2000 times first, so it is timed as C2 compiles it; "twice" keeps a vector tile that C1 has compiled (which still boxes) from passing. Calls
    // alternate `accumulate`, as a product deeper than one block does: C2 compiles only the paths
    // its profile saw, and a tile warmed up without accumulating deoptimised at the first real
    // step of K and ran boxed again, 5 s of an MLP's first steps (FirstSteps: `unstable_if` trap).
    private void warmUp() {
        boolean won, gated = this.gated; // read first: a lost round lets the next warm-up start
        try {
            won = vectorTileWins();
        } finally {
            if (gated) WarmUpOrder.tileEnded();
        }
        if (won) warmUpPacking();
    }

    private boolean vectorTileWins() {
        try {
            if (vector == null) vector = vectors == null ? vector(shape) : vectors.get();
            MicroKernel vector = this.vector, scalar = current;
            Object a = array(shape.rows() * WARM_UP_DEPTH), b = array(shape.columns() * WARM_UP_DEPTH), c = array(shape.rows() * shape.columns());
            long scalarNanos = Stopwatch.best(2000, call -> run(scalar, a, b, c, call));
            long deadline = System.nanoTime() + limit;
            for (int calls = 506; System.nanoTime() - deadline < 0; calls += 506) {
                long round = System.nanoTime();
                for (int call = 0; call < 500; call++) vector.run(a, 0, b, 0, SHORT_DEPTH, c, 0, shape.columns(), call % 2 == 1);
                if (2 * Stopwatch.best(6, call -> run(vector, a, b, c, call)) < scalarNanos) {
                    tier = "vector tile " + shape; // first: whoever sees the new tile then sees its text
                    current = vector;
                    return true;
                }
                if (calls >= Stopwatch.CALLS_TO_COMPILE && calls - 506 < Stopwatch.CALLS_TO_COMPILE) deadline = System.nanoTime() + limit; // C2 was just asked
                if (calls >= Stopwatch.CALLS_TO_COMPILE) Stopwatch.rest(round, deadline);
            }
            long backOff = Stopwatch.backOff(firstBackOff, lost++);
            tier = "scalar tile (the vector tile was not faster yet; trying again in %d s)".formatted(Math.max(1, backOff / 1_000_000_000L));
            nextTry = System.nanoTime() + backOff;
            warming = false;
        } catch (RuntimeException | LinkageError e) {
            tier = "scalar tile (vector tile failed: " + e + ")"; // warming stays set: a tile that fails is not tried again
        }
        return false;
    }

    // After the tile, so kernel warm-ups need not wait for it: packing is a small part of a product.
    private void warmUpPacking() {
        try {
            vectorPacking = Packing.warmUp(shape.dtype(), shape.columns(), System.nanoTime() + limit);
            if (vectorPacking) tier += ", vector packing";
        } catch (RuntimeException | LinkageError e) {
            vectorPacking = false; // packs value by value, as before the warm-up
        }
    }

    // One call, accumulating when `call` is odd.
    private void run(MicroKernel tile, Object a, Object b, Object c, int call) {
        tile.run(a, 0, b, 0, WARM_UP_DEPTH, c, 0, shape.columns(), call % 2 == 1);
    }

    private Object array(int length) {
        return shape.dtype() == DType.F32 ? new float[length] : new double[length];
    }
}
