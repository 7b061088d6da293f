// SPDX-License-Identifier: Apache-2.0
package dev.smelt.driver;

import dev.smelt.codegen.KernelTooLargeException;
import dev.smelt.ir.FusionMode;
import dev.smelt.fusion.FusionPlanner;
import dev.smelt.ir.AttentionMath;
import dev.smelt.ir.Graph;
import dev.smelt.kernel.KernelFunction;
import dev.smelt.kernel.Schedule;
import dev.smelt.pass.IndexChecks;
import dev.smelt.pass.Passes;
import dev.smelt.plan.MemoryPlan;
import dev.smelt.plan.MemoryPlanner;
import dev.smelt.runtime.Dump;
import dev.smelt.runtime.Executor;
import dev.smelt.runtime.Guard;
import dev.smelt.runtime.OnceMap;
import dev.smelt.runtime.Preload;
import dev.smelt.runtime.Program;
import java.util.List;

/// The compiler, stage by stage: a traced graph (after the caller's transform, such as autograd's)
/// → passes → fusion plan → memory plan → kernels → [Program]. Each stage's output goes through
/// [Dump] under its name (`-Djit.dump=passes,fusion,memory,bytecode`). Compiled functions, eager
/// ops and `@Compile` methods all come through here; the stages below never call back up.
public final class Pipeline {
    private Pipeline() {}

    /// A compiled graph: the graph its kernels compute (after the passes: `explain()` prints this
    /// one, whose node numbers the kernels' decisions name) and the program.
    public record Compilation(Graph graph, Program program) {}

    public static Compilation compile(Graph traced) { return compile(traced, FusionMode.COST_MODEL); }

    /// Compiles a traced graph (after the caller's transform, such as autograd's).
    public static Compilation compile(Graph traced, FusionMode mode) { return compile(traced, mode, true); }

    /// The stages. An eager op's graph skips the passes (it computes exactly the op it names, into
    /// a fresh buffer), as do the values an index check computes. The graph's index checks are
    /// taken out before fusion and run before the first kernel of every call ([IndexChecks],
    /// [Guard]). A kernel whose bytecode would exceed HotSpot's 8000-byte limit for JIT
    /// compilation is refused by the emitter; the graph is then planned again with half the
    /// operations per kernel.
    private static Compilation compile(Graph traced, FusionMode mode, boolean optimise) {
        Preload.start(); // eager ops compile here without a Compiled
        Graph unfused = mode == FusionMode.NONE ? AttentionMath.expandAll(traced) : traced; // NONE: attention as its ops, one per kernel
        Graph graph = optimise ? Dump.after("passes", Passes.apply(unfused)) : unfused;
        var checks = IndexChecks.of(graph);
        Guard guard = checks.any() && indexChecks() ? guard(checks, mode) : Guard.NONE;
        var options = FusionPlanner.Options.DEFAULT.withMode(mode);
        while (true) {
            Schedule schedule = Dump.after("fusion", FusionPlanner.plan(checks.unchecked(), options));
            MemoryPlan memory = Dump.after("memory", MemoryPlanner.plan(schedule));
            try {
                List<KernelFunction> kernels = Kernels.compile(schedule);
                return new Compilation(graph, new Program(schedule, memory, kernels, Executor.shared(), guard));
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
    public static Guard guard(IndexChecks checks, FusionMode mode) {
        Program computed = checks.computed() == null ? null : compile(checks.computed(), mode, false).program();
        var onInputs = checks.onInputs();
        return new Guard(onInputs.stream().map(IndexChecks.OnInput::slot).toList(), onInputs.stream().map(IndexChecks.OnInput::bounds).toList(),
                computed, checks.computedBounds());
    }

    private static final int EAGER_PROGRAMS = 1024;
    private static final OnceMap<String, Program> EAGER = new OnceMap<>(EAGER_PROGRAMS);

    /// The program of a one-op graph for an eager call, shared by every call of the same op on the
    /// same shapes. No passes: an eager op computes exactly the op it names, into a fresh buffer.
    public static Program eager(Graph graph) {
        return EAGER.get(graph.toString(), () -> compile(graph, FusionMode.COST_MODEL, false).program());
    }
}
