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

    /// Two layers' bias updates, `b − 0.1·Σ dy` over the batch, traced after the whole backward in
    /// parameter order: each column sum is a kernel of its own and runs as soon as its layer's
    /// gradient is written (the second layer's before the product that computes the first's),
    /// instead of one kernel of both after the backward.
    @Test
    void eachLayersBiasGradientRunsRightAfterItsGradient() {
        var traced = Jit.trace((List<Tensor> a) -> {
            Tensor g = a.get(0), w1 = a.get(1), w2 = a.get(2), b1 = a.get(3), b2 = a.get(4);
            Tensor d2 = g.mul(Tensor.scalar(2f)).tanh();
            Tensor d1 = d2.matmul(w2.t()).tanh();
            Tensor dx = d1.matmul(w1.t());
            return List.of(dx, b1.sub(d1.sum(0).mul(Tensor.scalar(0.1f))), b2.sub(d2.sum(0).mul(Tensor.scalar(0.1f))));
        }, List.of(Tensor.zeros(96, 48), Tensor.zeros(40, 48), Tensor.zeros(48, 48), Tensor.zeros(48), Tensor.zeros(48)));
        Schedule schedule = FusionPlanner.plan(traced.graph());
        int w2 = schedule.inputs().get(2), b1 = launchWriting(schedule, schedule.outputs().get(1).buffer()), b2 = launchWriting(schedule, schedule.outputs().get(2).buffer());
        int product = launchReading(schedule, w2);
        assertTrue(b1 != b2 && b2 < product, () -> "b1's update %d, b2's %d, the product that computes d1 %d in%n%s".formatted(b1, b2, product, schedule));
    }

    /// A column sum that an update reads through another kernel (scaled by its own norm, which is
    /// a second reduction) writes an intermediate, yet moves up with the update: its result is 48
    /// values against the 96 × 48 it reads.
    @Test
    void aSmallReductionThatOnlyUpdatesReadMovesUpWithThem() {
        var traced = Jit.trace((List<Tensor> a) -> {
            Tensor g = a.get(0), w1 = a.get(1), w2 = a.get(2), b2 = a.get(3);
            Tensor d2 = g.mul(Tensor.scalar(2f)).tanh();
            Tensor dx = d2.matmul(w2.t()).tanh().matmul(w1.t());
            Tensor s = d2.sum(0);
            return List.of(dx, b2.sub(s.div(s.square().sum().sqrt())));
        }, List.of(Tensor.zeros(96, 48), Tensor.zeros(40, 48), Tensor.zeros(48, 48), Tensor.zeros(48)));
        Schedule schedule = FusionPlanner.plan(traced.graph());
        int w2 = schedule.inputs().get(2), update = launchWriting(schedule, schedule.outputs().get(1).buffer());
        int product = launchReading(schedule, w2);
        assertTrue(update < product, () -> "the update %d, the product %d in%n%s".formatted(update, product, schedule));
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
