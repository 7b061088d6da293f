// SPDX-License-Identifier: Apache-2.0
package dev.smelt.plan;

import dev.smelt.fusion.FusionPlanner;
import dev.smelt.ir.Graph;
import dev.smelt.ir.Node;
import dev.smelt.ir.Parser;
import dev.smelt.ir.Printer;
import dev.smelt.kernel.Schedule;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/// A graph scheduled with no fusion at all: every node but the inputs is its own one-op graph,
/// planned alone, and the launches are stitched together over one buffer per node, as eager mode
/// runs them (views become copies). The fullest test of buffer reuse: every value is materialised.
final class Unfused {
    private static final Pattern REFERENCE = Pattern.compile("%(\\d+)");

    private Unfused() {}

    static Schedule schedule(Graph graph) {
        List<Node> nodes = graph.nodes();
        String[] lines = graph.toString().lines().toArray(String[]::new);
        var buffers = new ArrayList<Schedule.Buffer>();
        var launches = new ArrayList<Schedule.Launch>();
        Map<Integer, Integer> bufferOf = new HashMap<>();   // node number → global buffer
        for (int n = 0; n < nodes.size(); n++) {
            Node node = nodes.get(n);
            if (node instanceof Node.Input) {
                bufferOf.put(n, buffers.size());
                buffers.add(new Schedule.Buffer(node.dtype(), node.shape().size(), "%" + n + " input"));
                continue;
            }
            String prefix = "  %" + n + " = ";
            String line = Arrays.stream(lines).filter(l -> l.startsWith(prefix)).findFirst().orElseThrow();
            var operands = new ArrayList<Integer>();
            Matcher refs = REFERENCE.matcher(line.substring(line.indexOf('=')));
            while (refs.find()) if (!operands.contains(Integer.parseInt(refs.group(1)))) operands.add(Integer.parseInt(refs.group(1)));
            var one = new StringBuilder("graph(");
            for (int i = 0; i < operands.size(); i++) one.append(i == 0 ? "" : ", ").append('%').append(i).append(": ").append(Printer.type(nodes.get(operands.get(i))));
            String body = REFERENCE.matcher(line.substring(line.indexOf('=') + 1)).replaceAll(match -> "%" + operands.indexOf(Integer.parseInt(match.group(1))));
            one.append(") {\n  %").append(operands.size()).append(" =").append(body).append("\n  return %").append(operands.size()).append("\n}\n");
            Schedule part = FusionPlanner.plan(Parser.parse(one.toString()));
            int[] global = new int[part.buffers().size()];
            for (int b = 0; b < global.length; b++) {
                if (b < operands.size()) global[b] = bufferOf.get(operands.get(b));
                else {
                    global[b] = buffers.size();
                    buffers.add(new Schedule.Buffer(part.buffers().get(b).dtype(), part.buffers().get(b).size(), "%" + n + " " + Printer.opName(node)));
                }
            }
            bufferOf.put(n, global[part.outputs().getFirst().buffer()]);
            for (var launch : part.launches())
                launches.add(new Schedule.Launch(launch.kernel(), launch.buffers().stream().map(b -> global[b]).toList(), List.of("%" + n + " " + Printer.opName(node)), launch.category()));
        }
        var inputs = graph.inputs().stream().map(input -> bufferOf.get(indexOf(nodes, input))).toList();
        var outputs = graph.outputs().stream().map(output -> new Schedule.Output(bufferOf.get(indexOf(nodes, output)), output.shape())).toList();
        return new Schedule(buffers, launches, inputs, outputs, List.of("no fusion: one kernel per node"));
    }

    private static int indexOf(List<Node> nodes, Node node) {
        for (int i = 0; i < nodes.size(); i++) if (nodes.get(i) == node) return i;
        throw new IllegalArgumentException("not in the graph: " + node);
    }
}
