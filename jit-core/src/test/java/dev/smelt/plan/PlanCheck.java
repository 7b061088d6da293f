// SPDX-License-Identifier: Apache-2.0
package dev.smelt.plan;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.smelt.kernel.Schedule;
import java.util.ArrayList;
import java.util.List;

/// Checks a [MemoryPlan] against its schedule without trusting the planner: every buffer but the
/// inputs has a slot of its dtype and at least its size; values in one slot follow each other, the
/// next written after the last reader of the one before or in place over it by that reader; a
/// returned slot is exactly its output's size and ends holding it; nothing else is returned.
final class PlanCheck {
    private PlanCheck() {}

    static void verify(Schedule schedule, MemoryPlan plan) {
        var lifetimes = Lifetime.of(schedule);
        var returned = schedule.outputs().stream().map(Schedule.Output::buffer).toList();
        for (int b = 0; b < lifetimes.size(); b++) {
            int slot = plan.slot(b);
            assertEquals(lifetimes.get(b).input(), slot < 0, "buffer " + b + " in slot " + slot);
            if (slot < 0) continue;
            var home = plan.slots().get(slot);
            var buffer = schedule.buffers().get(b);
            assertTrue(home.dtype() == buffer.dtype() && home.size() >= buffer.size(), "buffer %d %s[%d] in slot %s".formatted(b, buffer.dtype(), buffer.size(), home));
            if (returned.contains(b)) assertEquals(b, home.output(), "returned buffer " + b + " is not in its own slot");
        }
        for (var slot : plan.slots()) {
            var tenants = slot.tenants();
            var mapped = new ArrayList<Integer>();
            for (int b = 0; b < lifetimes.size(); b++) if (plan.slot(b) >= 0 && plan.slots().get(plan.slot(b)) == slot) mapped.add(b);
            assertEquals(mapped.stream().sorted().toList(), tenants.stream().map(MemoryPlan.Tenant::buffer).sorted().toList(), "tenants of " + slot);
            for (int i = 1; i < tenants.size(); i++) {
                Lifetime before = lifetimes.get(tenants.get(i - 1).buffer()), after = lifetimes.get(tenants.get(i).buffer());
                boolean inPlace = after.start() == before.end() && tenants.get(i).inPlace() && after.writers() == 1;
                assertTrue(after.start() > before.end() || inPlace, "overlapping tenants in " + slot);
            }
            if (slot.returned()) {
                assertEquals(schedule.buffers().get(slot.output()).size(), slot.size(), "a returned slot is exactly its output's size");
                assertEquals(slot.output(), tenants.getLast().buffer(), "a returned slot ends holding its output");
            } else assertTrue(tenants.stream().noneMatch(t -> returned.contains(t.buffer())), "a returned value in an arena slot " + slot);
        }
    }

    /// Tenants written in place over the previous tenant, and tenants that share a slot at all.
    static List<Long> reuse(MemoryPlan plan) {
        long inPlace = plan.slots().stream().flatMap(s -> s.tenants().stream()).filter(MemoryPlan.Tenant::inPlace).count();
        long shared = plan.slots().stream().mapToLong(s -> s.tenants().size() - 1).sum();
        return List.of(inPlace, shared);
    }
}
