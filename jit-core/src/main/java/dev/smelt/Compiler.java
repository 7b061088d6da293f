// SPDX-License-Identifier: Apache-2.0
package dev.smelt;

import dev.smelt.codegen.KernelEmitter;
import dev.smelt.codegen.KernelTooLargeException;
import dev.smelt.codegen.RowExtent;
import dev.smelt.codegen.Variant;
import dev.smelt.fusion.FusionMode;
import dev.smelt.fusion.FusionPlanner;
import dev.smelt.ir.DType;
import dev.smelt.ir.Graph;
import dev.smelt.ir.IndexOutOfRange;
import dev.smelt.ir.Storage;
import dev.smelt.kernel.Kernel;
import dev.smelt.kernel.KernelForm;
import dev.smelt.kernel.MatMulKernel;
import dev.smelt.kernel.SortFunction;
import dev.smelt.kernel.SortKernel;
import dev.smelt.kernel.UpdateFunction;
import dev.smelt.kernel.UpdateKernel;
import dev.smelt.kernel.KernelFunction;
import dev.smelt.kernel.Schedule;
import dev.smelt.pass.IndexChecks;
import dev.smelt.pass.Passes;
import dev.smelt.runtime.Dump;
import dev.smelt.runtime.Executor;
import dev.smelt.runtime.Guard;
import dev.smelt.runtime.KernelCache;
import dev.smelt.runtime.KernelLoader;
import dev.smelt.runtime.LruMap;
import dev.smelt.runtime.Program;
import dev.smelt.runtime.TieredKernel;
import dev.smelt.runtime.matmul.MatMulFunction;
import dev.smelt.runtime.matmul.MicroKernels;
import java.util.List;
import java.util.Map;

/// The pipeline, as a list of steps: graph → passes → fusion plan → generated kernels → program.
final class Compiler {
    private Compiler() {}

    /// Kernels touching fewer elements run only their scalar variant: at this size a vector
    /// variant saves microseconds and costs a background compile and warm-up.
    // VECTOR_THRESHOLD = 2^14 elements (chosen, not yet measured; see EagerBench)
    static final int VECTOR_THRESHOLD = Integer.getInteger("smelt.vectorThreshold", 1 << 14);

    private static final int EAGER_PROGRAMS = 1024;
    private static final Map<String, Program> EAGER = new LruMap<>(EAGER_PROGRAMS);

    // Generated kernels and the matmul tile use the Vector API, an incubator module the JVM resolves
    // only when asked: without it, the first kernel died with a NoClassDefFoundError in the planner.
    private static final boolean VECTOR_API = ModuleLayer.boot().findModule("jdk.incubator.vector").isPresent();

    /// Throws a [SmeltException] for `op` that says which flag to add when the Vector API module is
    /// missing.
    static void requireVectorApi(String op) {
        if (!VECTOR_API)
            throw SmeltException.of(op, "Smelt needs the Vector API module, which this JVM was started without; add --add-modules jdk.incubator.vector "
                    + "to the java command (with Maven, to Surefire's argLine and to exec's arguments: see the README)");
    }

    /// Products of at least this many multiply-adds start the tile's warm-up when traced.
    static final long EARLY_TILE_WORK = 1L << 22;

    /// Starts the warm-up of `dtype`'s vector matmul tile when a product of `work` multiply-adds is
    /// traced or run, if it is large: the tile needs 0.3–1 s of a cold JVM, about what compiling the
    /// program around the product takes, and a large product on the scalar tile costs a millisecond
    /// or more per call meanwhile. A small one waits for its program to be built (MatMulFunction
    /// starts it then): on two cores the warm-up slows the compile, and the digits run (64-128-10,
    /// products of 262K multiply-adds) ended 8% later with the early start (1,500 against 1,380 ms,
    /// medians of ten alternations) while the 784-512-10 step's first 100 took 1,625–1,750 ms with it
    /// against 1,927–2,182 without.
    static void expectMatMul(DType dtype, long work) {
        if (work >= EARLY_TILE_WORK) MicroKernels.of(dtype).current();
    }

    static Program compile(Graph graph) { return compile(graph, FusionMode.COST_MODEL); }

    /// Optimises the graph ([Passes]), then plans and generates its kernels.
    static Program compile(Graph graph, FusionMode mode) { return program(optimise(unfusedIfNone(graph, mode)), mode); }

    /// The graph with its fused attention written out in the other ops when `mode` fuses nothing:
    /// the same program one op per kernel ([dev.smelt.ir.AttentionMath#expandAll]).
    static Graph unfusedIfNone(Graph graph, FusionMode mode) { return mode == FusionMode.NONE ? dev.smelt.ir.AttentionMath.expandAll(graph) : graph; }

    /// The graph the kernels compute: the traced graph after the passes. `explain()` prints this one,
    /// whose node numbers the kernels' decisions name.
    static Graph optimise(Graph graph) { return Dump.after("passes", Passes.apply(graph)); }

    /// Plans and generates the kernels. The graph's index checks are taken out first and run before
    /// the first kernel of every call ([IndexChecks], [Guard]). A kernel whose bytecode would
    /// exceed HotSpot's 8000-byte limit for JIT compilation is refused by the emitter; the graph is
    /// then planned again with half the operations per kernel.
    static Program program(Graph graph, FusionMode mode) {
        var checks = IndexChecks.of(graph);
        Guard guard = checks.any() && indexChecks() ? guard(checks, mode) : Guard.NONE;
        var options = FusionPlanner.Options.DEFAULT.withMode(mode);
        while (true) {
            Schedule schedule = Dump.after("fusion", FusionPlanner.plan(checks.unchecked(), options));
            try {
                return new Program(schedule, Compiler::kernel, Executor.shared(), guard);
            } catch (KernelTooLargeException tooLarge) {
                if (options.budget() <= 1) throw tooLarge;
                options = options.withBudget(options.budget() / 2);
            }
        }
    }

    /// False while `-Dsmelt.indexChecks=false` is set: programs compiled then skip their index checks,
    /// so that IndexCheckBench can measure what the checks cost. An out-of-range index then gives
    /// a wrong result (NaN from crossEntropy); nothing else should set it.
    private static boolean indexChecks() { return !"false".equals(System.getProperty("smelt.indexChecks")); }

    /// The guard that runs `checks`, with a program of its own for the computed values they check.
    static Guard guard(IndexChecks checks, FusionMode mode) {
        Program computed = checks.computed() == null ? null : program(checks.computed(), mode);
        var onInputs = checks.onInputs();
        return new Guard(onInputs.stream().map(IndexChecks.OnInput::slot).toList(), onInputs.stream().map(IndexChecks.OnInput::bounds).toList(),
                computed, checks.computedBounds());
    }

    /// Runs a one-op graph for an eager call, reusing the program compiled for the same op and shapes.
    static Storage eager(Graph graph, List<Storage> inputs) {
        String key = graph.toString();
        Program program;
        synchronized (EAGER) { program = EAGER.get(key); }
        if (program == null) {
            program = program(graph, FusionMode.COST_MODEL); // no passes: an eager op computes exactly the op it names, into a fresh buffer
            synchronized (EAGER) { EAGER.putIfAbsent(key, program); }
        }
        return run(program, inputs, null).getFirst();
    }

    /// [Program#run(List, List)], with a failed index check reported as its op's [SmeltException]:
    /// every call of a program from the API goes through here or [#runOne].
    static List<Storage> run(Program program, List<Storage> inputs, List<Storage> outputs) {
        try {
            return program.run(inputs, outputs);
        } catch (IndexOutOfRange failure) {
            throw SmeltException.of(failure);
        }
    }

    /// [Program#runOne], with a failed index check reported as for [#run].
    static Object runOne(Program program, Object[] buffers) {
        try {
            return program.runOne(buffers);
        } catch (IndexOutOfRange failure) {
            throw SmeltException.of(failure);
        }
    }

    static KernelFunction kernel(KernelForm kernel) {
        return switch (kernel) {
            case Kernel loops -> generate(loops);
            case MatMulKernel matmul -> KernelCache.get(matmul, m -> MatMulFunction.of(m, Compiler::kernel));
            case UpdateKernel update -> new UpdateFunction(update);
            case SortKernel sort -> new SortFunction(sort);
            case dev.smelt.kernel.AttentionKernel attention -> dev.smelt.runtime.attention.AttentionFunctions.of(attention);
        };
    }

    // Scalar code now; for large kernels, vector code warmed up in the background (TieredKernel).
    // Both are generated for the kernel's RowExtent representative, so every extent of its rows
    // (a dynamic batch) shares them, and small and large extents share the scalar class.
    private static KernelFunction generate(Kernel kernel) {
        Kernel shared = RowExtent.representative(kernel);
        KernelFunction scalar = KernelCache.get(shared, k -> KernelLoader.load(KernelEmitter.emit(k, Variant.SCALAR)));
        long elements = (long) kernel.workItems() * Math.max(1, kernel.rowLength());
        if (elements < VECTOR_THRESHOLD) return scalar;
        return KernelCache.get("tiered " + shared, () -> new TieredKernel(shared, scalar, () -> KernelLoader.load(KernelEmitter.emit(shared, Variant.VECTOR))));
    }
}
