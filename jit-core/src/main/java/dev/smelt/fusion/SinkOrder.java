// SPDX-License-Identifier: Apache-2.0
package dev.smelt.fusion;

import dev.smelt.kernel.Schedule;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/// The launch order, with every sink moved up: a launch that writes only returned values, read by
/// no other launch but sinks (an optimiser's update of a parameter and its moments, and the
/// weight gradient's product or sum that writes the moments), runs right after the launches it
/// depends on, instead of where its graph nodes come. So does a reduction read only by sinks
/// whose results are small beside what it reads (a bias gradient's column sum, which an update
/// then reads): moving it up keeps only its small results alive longer.
/// An optimiser's nodes come after the whole backward, so in graph order each update read its
/// layer's gradient tens of kernels after the backward wrote it, from memory rather than cache.
///
/// A sink still runs after every launch that writes a buffer it reads, after every earlier reader
/// of a graph input it reads and could overwrite (one of its outputs has the input's dtype and
/// size: an update may then still write its parameter in place, as the memory planner grants a
/// donation only when nothing reads the input after its writer), and after every earlier writer
/// of a buffer it writes (the parts of a concat). Inputs it cannot overwrite, such as the learning
/// rate every update reads, do not order sinks. Moving independent launches changes no result.
final class SinkOrder {
    private SinkOrder() {}

    static List<Schedule.Launch> early(Schedule schedule) {
        var buffers = schedule.buffers();
        var launches = schedule.launches();
        Set<Integer> graphInputs = new HashSet<>(schedule.inputs()), outputs = new HashSet<>();
        for (var output : schedule.outputs()) outputs.add(output.buffer());
        boolean[] sinks = sinks(buffers, launches, outputs);
        var order = new ArrayList<Schedule.Launch>();
        for (int l = 0; l < launches.size(); l++) {
            var launch = launches.get(l);
            order.add(sinks[l] ? after(order, launch, overwritable(buffers, launch, graphInputs)) + 1 : order.size(), launch);
        }
        return order;
    }

    // The sinks: launches that write only returned values or are small reductions, and whose
    // results no launch reads but other sinks (a product whose epilogue writes an update's new
    // moments, which the update then reads, moves with the update). A large intermediate result
    // never makes its writer a sink, so the program's own order, which the fusion planner's
    // estimates assume, stays as it was: moving all that feeds the updates would move the backward.
    private static boolean[] sinks(List<Schedule.Buffer> buffers, List<Schedule.Launch> launches, Set<Integer> outputs) {
        boolean[] sinks = new boolean[launches.size()];
        Set<Integer> readByOthers = new HashSet<>();
        for (int l = launches.size() - 1; l >= 0; l--) {
            var launch = launches.get(l);
            sinks[l] = (outputs.containsAll(launch.writes()) || reduces(buffers, launch)) && launch.writes().stream().noneMatch(readByOthers::contains);
            if (!sinks[l]) readByOthers.addAll(launch.reads());
        }
        return sinks;
    }

    // Whether `launch` writes at most a sixteenth of the elements it reads.
    private static boolean reduces(List<Schedule.Buffer> buffers, Schedule.Launch launch) {
        long read = 0, written = 0;
        for (int buffer : new HashSet<>(launch.reads())) read += buffers.get(buffer).size();
        for (int buffer : launch.writes()) written += buffers.get(buffer).size();
        return 16 * written <= read;
    }

    // The last launch of `order` that `launch` must follow, or -1.
    private static int after(List<Schedule.Launch> order, Schedule.Launch launch, Set<Integer> overwritable) {
        var reads = launch.reads();
        var writes = launch.writes();
        for (int l = order.size() - 1; l >= 0; l--) {
            var earlier = order.get(l);
            for (int buffer : earlier.writes()) if (reads.contains(buffer) || writes.contains(buffer)) return l;
            for (int buffer : earlier.reads()) if (overwritable.contains(buffer)) return l;
        }
        return -1;
    }

    // The graph inputs `launch` reads that one of its outputs could be written over: same dtype and size.
    private static Set<Integer> overwritable(List<Schedule.Buffer> buffers, Schedule.Launch launch, Set<Integer> graphInputs) {
        Set<Integer> inputs = new HashSet<>();
        for (int input : launch.reads()) {
            if (!graphInputs.contains(input)) continue;
            var in = buffers.get(input);
            for (int output : launch.writes())
                if (buffers.get(output).dtype() == in.dtype() && buffers.get(output).size() == in.size()) inputs.add(input);
        }
        return inputs;
    }
}
