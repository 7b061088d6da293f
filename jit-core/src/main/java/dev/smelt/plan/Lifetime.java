// SPDX-License-Identifier: Apache-2.0
package dev.smelt.plan;

import dev.smelt.kernel.Schedule;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/// When one buffer of a [Schedule] holds a live value: from launch `start`, the first that writes
/// it, until launch `end`, the last that reads or writes it. A graph input is live from before the
/// first launch (`start` −1) and a returned value until after the last (`end` = the launch count).
/// `writers` counts the launches that write it: one, or one per part of a concat.
public record Lifetime(int start, int end, int writers, boolean input, boolean returned) {
    /// `launch 2-4`; `launch 5-end` for a returned value, `launch in-3` for an input.
    @Override
    public String toString() { return "launch " + (input ? "in" : start) + "-" + (returned ? "end" : end); }

    /// The lifetime of every buffer of `schedule`, indexed by buffer.
    public static List<Lifetime> of(Schedule schedule) {
        int buffers = schedule.buffers().size(), launches = schedule.launches().size();
        int[] start = new int[buffers], end = new int[buffers], writers = new int[buffers];
        Arrays.fill(start, Integer.MAX_VALUE);
        Arrays.fill(end, -1);
        for (int buffer : schedule.inputs()) start[buffer] = -1;
        for (int l = 0; l < launches; l++) {
            var launch = schedule.launches().get(l);
            for (int buffer : launch.reads()) end[buffer] = Math.max(end[buffer], l);
            for (int buffer : launch.writes()) {
                start[buffer] = Math.min(start[buffer], l);
                end[buffer] = Math.max(end[buffer], l);
                writers[buffer]++;
            }
        }
        boolean[] input = new boolean[buffers], returned = new boolean[buffers];
        for (int buffer : schedule.inputs()) input[buffer] = true;
        for (var output : schedule.outputs()) returned[output.buffer()] = true;
        var lifetimes = new ArrayList<Lifetime>();
        for (int b = 0; b < buffers; b++) {
            if (start[b] == Integer.MAX_VALUE) throw new IllegalArgumentException("buffer " + b + " (" + schedule.buffers().get(b).label() + ") is neither an input nor written by a launch");
            lifetimes.add(new Lifetime(start[b], returned[b] ? launches : Math.max(end[b], start[b]), writers[b], input[b], returned[b]));
        }
        return lifetimes;
    }
}
