// SPDX-License-Identifier: Apache-2.0
package dev.smelt.stress;

import dev.smelt.Compiled;
import dev.smelt.Jit;
import dev.smelt.Tensor;
import dev.smelt.Traced;
import dev.smelt.ir.SmeltException;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.function.Supplier;

/// Runs a random program every way a user can and compares each result with the reference
/// interpreter ([Reference]): the compiled function's first call (trace, fuse, generate), a
/// cached second call (through `apply`'s fast path when there is one result), a call on new
/// data, `applyInto` preallocated outputs, eager execution op by op, at another extent of the
/// arguments' first axis (recompiled, and with that axis marked dynamic), and, for programs with
/// kernels large enough to have a vector variant, a call after that variant has taken over.
final class ProgramCheck {
    private ProgramCheck() {}

    /// How long to wait for vector variants to warm up before giving up on that mode.
    static final long VECTOR_WAIT_MILLIS = 20_000;

    /// What happened: the problems found (each naming the mode), the traced graph as text, and
    /// whether the program ran at another extent and after the vector tier took over.
    record Outcome(Program program, List<String> problems, String graph, boolean resizedChecked, boolean vectorChecked) {
        boolean passed() { return problems.isEmpty(); }

        /// The seed, every problem, the program as Java and its graph as IR: all a reproduction needs.
        String report() {
            return "seed %d (rerun alone with -Dsmelt.stress.seed=%d):%n  %s%n%s%s".formatted(program.seed(), program.seed(),
                    String.join("\n  ", problems), program.listing(), graph);
        }
    }

    static Outcome check(Program program) {
        var problems = new ArrayList<String>();
        List<Tensor> data = program.data(0), fresh = program.data(1);
        Traced traced;
        Reference expected, renewed;
        try {
            traced = Jit.trace(program::apply, data);
            expected = Reference.of(traced, data);
            renewed = Reference.of(traced, fresh);
        } catch (RuntimeException | Error e) {
            return new Outcome(program, List.of("tracing or interpreting threw " + SeedRunner.describe(e)), "", false, false);
        }
        Tensor[] first = data.toArray(Tensor[]::new), second = fresh.toArray(Tensor[]::new);
        Compiled compiled = Jit.compile(program::apply, first.length);
        boolean one = program.results().size() == 1;
        compare(problems, "first compiled call", expected, () -> compiled.applyAll(first));
        compare(problems, "cached call", expected, () -> one ? List.of(compiled.apply(first)) : compiled.applyAll(first));
        compare(problems, "call on new data", renewed, () -> compiled.applyAll(second));
        compare(problems, "applyInto", expected, () -> compiled.applyInto(outputs(program, expected), first));
        compare(problems, "eager", expected, () -> program.apply(data));
        // before the run at another extent: explain() describes the program compiled last
        boolean vector = problems.isEmpty() && VectorTier.isTiered(compiled);
        if (vector) checkVectorTier(problems, compiled, renewed, second);
        boolean resized = checkResized(problems, program, compiled, first, expected);
        return new Outcome(program, problems, traced.toString(), resized, vector);
    }

    /// Calls with axis 0 of every argument that has the first one's extent there at another
    /// extent: the function recompiled for it, and one with that axis marked dynamic (its kernels
    /// reused across extents), called at both. A program whose steps fix that extent (a reshape, a
    /// captured constant) refuses the new one when traced, and is skipped: false then.
    private static boolean checkResized(List<String> problems, Program program, Compiled compiled, Tensor[] first, Reference expected) {
        var resized = program.resized();
        if (resized == null) return false;
        List<Tensor> data = resized.data();
        Reference other;
        try {
            other = Reference.of(Jit.trace(resized.program()::apply, data), data);
        } catch (SmeltException refused) {
            return false;
        } catch (RuntimeException | Error e) {
            problems.add("tracing at axis-0 extent %d threw %s".formatted(resized.extent(), SeedRunner.describe(e)));
            return true;
        }
        Tensor[] arguments = data.toArray(Tensor[]::new);
        String mode = "axis 0 at %d instead of %d".formatted(resized.extent(), resized.original());
        compare(problems, mode + ", recompiled", other, () -> compiled.applyAll(arguments));
        Compiled dynamic = Jit.compile(program::apply, first.length);
        for (int argument : resized.marked()) dynamic = dynamic.dynamic(argument, 0);
        Compiled marked = dynamic;
        compare(problems, "axis 0 marked dynamic, first at " + resized.original(), expected, () -> marked.applyAll(first));
        compare(problems, mode + ", marked dynamic", other, () -> marked.applyAll(arguments));
        return true;
    }

    private static void checkVectorTier(List<String> problems, Compiled compiled, Reference expected, Tensor[] arguments) {
        var state = VectorTier.await(compiled, VECTOR_WAIT_MILLIS);
        for (String failed : state.failed()) problems.add("vector tier: " + failed);
        if (state.vector()) compare(problems, "after the vector variant took over", expected, () -> compiled.applyAll(arguments));
    }

    private static void compare(List<String> problems, String mode, Reference expected, Supplier<List<Tensor>> run) {
        try {
            String mismatch = expected.mismatch(run.get());
            if (mismatch != null) problems.add(mode + ": " + mismatch);
        } catch (RuntimeException | Error e) {
            problems.add(mode + " threw " + SeedRunner.describe(e));
        }
    }

    /// Dense outputs of the results' shapes and dtypes, filled with random values, so an element a
    /// kernel fails to write shows.
    private static List<Tensor> outputs(Program program, Reference expected) {
        var random = new Random(program.seed());
        var outputs = new ArrayList<Tensor>();
        for (int o = 0; o < expected.shapes().size(); o++) outputs.add(Argument.data(random, expected.dtypes().get(o), expected.shapes().get(o)));
        return outputs;
    }
}
