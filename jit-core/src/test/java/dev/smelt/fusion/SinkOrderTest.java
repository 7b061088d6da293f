// SPDX-License-Identifier: Apache-2.0
package dev.smelt.fusion;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.smelt.Jit;
import dev.smelt.Tensor;
import dev.smelt.kernel.Schedule;
import dev.smelt.plan.MemoryPlanner;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/// Launches whose results only leave the program run as soon as what they read is ready.
class SinkOrderTest {
    /// `relu(x·w1)·w2` summed, and w1's update from `xᵀ·h`, traced last as an optimiser's update
    /// comes after the whole backward: the update (a product with its epilogue) runs right after
    /// `h`'s kernel, before the second product, and still writes w1 in place.
    @Test
    void anUpdateRunsRightAfterWhatItReadsAndStillOverwritesItsParameter() {
        var traced = Jit.trace((List<Tensor> a) -> {
            Tensor x = a.get(0), w1 = a.get(1), w2 = a.get(2);
            Tensor h = x.matmul(w1).relu();
            Tensor loss = h.matmul(w2).sum();
            return List.of(loss, w1.sub(x.t().matmul(h).mul(Tensor.scalar(0.1f))));
        }, List.of(Tensor.zeros(96, 40), Tensor.zeros(40, 48), Tensor.zeros(48, 24)));
        Schedule schedule = FusionPlanner.plan(traced.graph());
        int w1 = schedule.inputs().get(1), w2 = schedule.inputs().get(2), updated = schedule.outputs().get(1).buffer();
        int update = launchWriting(schedule, updated), second = launchReading(schedule, w2), first = launchReading(schedule, w1);
        assertTrue(first < update && update < second, () -> "first product %d, update %d, second product %d in%n%s".formatted(first, update, second, schedule));
        assertTrue(MemoryPlanner.plan(schedule, Map.of(1, 1)).toString().contains("in the array of input 1"), () -> MemoryPlanner.plan(schedule, Map.of(1, 1)).toString());
    }

    /// A later reader of the parameter keeps the update after it: moving the update before would
    /// cost the donation.
    @Test
    void anUpdateStaysAfterEveryReaderOfItsParameter() {
        var traced = Jit.trace((List<Tensor> a) -> {
            Tensor x = a.get(0), w = a.get(1);
            Tensor h = x.matmul(w).relu();
            Tensor again = h.matmul(w.t()).sum();
            return List.of(again, w.sub(x.t().matmul(h).mul(Tensor.scalar(0.1f))));
        }, List.of(Tensor.zeros(96, 40), Tensor.zeros(40, 40)));
        Schedule schedule = FusionPlanner.plan(traced.graph());
        int w = schedule.inputs().get(1), updated = schedule.outputs().get(1).buffer();
        int update = launchWriting(schedule, updated);
        for (int l = 0; l < schedule.launches().size(); l++)
            if (schedule.launches().get(l).reads().contains(w) && l != update) assertTrue(l < update, "launch " + l + " reads w after its update " + update);
        assertTrue(MemoryPlanner.plan(schedule, Map.of(1, 1)).toString().contains("in the array of input 1"));
    }

    private static int launchWriting(Schedule schedule, int buffer) {
        for (int l = 0; l < schedule.launches().size(); l++) {
            if (schedule.launches().get(l).writes().contains(buffer)) return l;
        }
        throw new AssertionError("no launch writes buffer " + buffer);
    }

    private static int launchReading(Schedule schedule, int buffer) {
        for (int l = 0; l < schedule.launches().size(); l++) if (schedule.launches().get(l).reads().contains(buffer)) return l;
        throw new AssertionError("no launch reads buffer " + buffer);
    }
}
