// SPDX-License-Identifier: Apache-2.0
package dev.smelt.driver;

import dev.smelt.codegen.RowExtent;
import dev.smelt.codegen.Variant;
import dev.smelt.ir.DType;
import dev.smelt.kernel.AttentionKernel;
import dev.smelt.kernel.Kernel;
import dev.smelt.kernel.KernelForm;
import dev.smelt.kernel.KernelFunction;
import dev.smelt.kernel.MatMulKernel;
import dev.smelt.kernel.Schedule;
import dev.smelt.kernel.SortFunction;
import dev.smelt.kernel.SortKernel;
import dev.smelt.kernel.UpdateFunction;
import dev.smelt.kernel.UpdateKernel;
import dev.smelt.runtime.KernelCache;
import dev.smelt.runtime.KernelFiles;
import dev.smelt.runtime.KernelLoader;
import dev.smelt.runtime.SmallKernel;
import dev.smelt.runtime.TieredKernel;
import dev.smelt.runtime.attention.AttentionFunctions;
import dev.smelt.runtime.matmul.MatMulFunction;
import dev.smelt.runtime.matmul.WarmUpThread;
import java.util.List;
import java.util.function.Supplier;

/// The pipeline's code generation stage: runnable code for each launch of a schedule, shared
/// through the [KernelCache] by every program whose kernels are the same.
public final class Kernels {
    private Kernels() {}

    /// Kernels touching fewer elements run their scalar variant until they prove hot
    /// ([SmallKernel]); larger ones start their vector variant's warm-up at their second call. At
    /// this size a vector variant saves tens of microseconds a call (`SmallKernelBench` times one
    /// eight times smaller) and costs a background compile and warm-up, which a kernel called a
    /// few times never repays. The value is a choice, not a measured break-even.
    static final int VECTOR_THRESHOLD = dev.smelt.ir.Settings.integer("smelt.vectorThreshold", 1 << 14, 0);

    /// Products of at least this many multiply-adds start the tile's warm-up when traced.
    static final long EARLY_TILE_WORK = 1L << 22;

    /// One function per launch, in the schedule's order.
    static List<KernelFunction> compile(Schedule schedule) {
        var functions = new java.util.ArrayList<KernelFunction>();
        for (var launch : schedule.launches()) functions.add(compile(launch.kernel()));
        return functions;
    }

    static KernelFunction compile(KernelForm kernel) {
        return switch (kernel) {
            case Kernel loops -> generate(loops);
            case MatMulKernel matmul -> KernelCache.get(matmul, m -> MatMulFunction.of(m, m.plain() ? null : generate(m.epilogue())));
            case UpdateKernel update -> new UpdateFunction(update);
            case SortKernel sort -> new SortFunction(sort);
            case AttentionKernel attention -> AttentionFunctions.of(attention);
        };
    }

    // Scalar code now; for large kernels, vector code warmed up in the background (TieredKernel),
    // for small ones once they have run often (SmallKernel).
    // Both are generated for the kernel's RowExtent representative, so every extent of its rows
    // (a dynamic batch) shares them, and small and large extents share the scalar class.
    // The classes come from KernelFiles: an earlier run's, when it generated the same kernel.
    private static KernelFunction generate(Kernel kernel) {
        Kernel shared = RowExtent.representative(kernel);
        String text = shared.toString();
        KernelFunction scalar = KernelCache.get(text, () -> KernelLoader.load(KernelFiles.get(shared, text, Variant.SCALAR)));
        long elements = (long) kernel.workItems() * Math.max(1, kernel.rowLength());
        Supplier<TieredKernel> tiered = () -> (TieredKernel) KernelCache.get("tiered " + text,
                () -> new TieredKernel(shared, scalar, () -> KernelLoader.load(KernelFiles.get(shared, text, Variant.VECTOR))));
        if (elements < VECTOR_THRESHOLD) return KernelCache.get("small " + text, () -> new SmallKernel(scalar, tiered, shared.inputs().size()));
        return tiered.get();
    }

    /// Starts the warm-up of `dtype`'s vector matmul tile when a product of `work` multiply-adds is
    /// traced or run, if it is large: the tile needs 0.3–1 s of a cold JVM, about what compiling the
    /// program around the product takes, and a large product on the scalar tile costs a millisecond
    /// or more per call meanwhile. A small one waits for its program to be built (MatMulFunction
    /// starts it then): on two cores the warm-up slows the compile, and the digits run (64-128-10,
    /// products of 262K multiply-adds) ended 8% later with the early start (1,500 against 1,380 ms,
    /// medians of ten alternations) while the 784-512-10 step's first 100 took 1,625–1,750 ms with it
    /// against 1,927–2,182 without.
    public static void expectMatMul(DType dtype, long work) {
        if (work >= EARLY_TILE_WORK) WarmUpThread.startTile(dtype);
    }
}
