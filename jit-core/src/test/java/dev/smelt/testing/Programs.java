// SPDX-License-Identifier: Apache-2.0
package dev.smelt.testing;

import dev.smelt.kernel.KernelForm;
import dev.smelt.kernel.KernelFunction;
import dev.smelt.kernel.Schedule;
import dev.smelt.plan.MemoryPlanner;
import dev.smelt.runtime.Executor;
import dev.smelt.runtime.Guard;
import dev.smelt.runtime.Program;
import java.util.function.Function;

/// A [Program] whose kernels a test compiles its own way ([VectorOnly], forced tiles, the
/// interpreter), planned as the pipeline plans it.
public final class Programs {
    private Programs() {}

    public static Program of(Schedule schedule, Function<KernelForm, KernelFunction> compile, Executor executor) {
        return of(schedule, compile, executor, Guard.NONE);
    }

    public static Program of(Schedule schedule, Function<KernelForm, KernelFunction> compile, Executor executor, Guard guard) {
        var functions = schedule.launches().stream().map(launch -> compile.apply(launch.kernel())).toList();
        return new Program(schedule, MemoryPlanner.plan(schedule), functions, executor, guard);
    }
}
