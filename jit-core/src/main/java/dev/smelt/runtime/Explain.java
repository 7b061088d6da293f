// SPDX-License-Identifier: Apache-2.0
package dev.smelt.runtime;

import dev.smelt.ir.Graph;
import dev.smelt.ir.Node;
import dev.smelt.ir.UnaryOp;
import dev.smelt.kernel.Expr;
import dev.smelt.kernel.Kernel;
import dev.smelt.kernel.KernelForm;
import dev.smelt.kernel.MatMulKernel;
import dev.smelt.kernel.Transcendentals;
import dev.smelt.kernel.Schedule;
import java.util.HashMap;
import java.util.Map;
import java.util.function.IntToLongFunction;

/// The text of `explain()`: the graph, each kernel with the nodes it fuses, its category, the bytes
/// it reads and writes and which variant runs, the planner's decisions, the bytes the whole
/// program moves against the same graph run one op per kernel, and the memory plan: peak bytes
/// against the unplanned program's, and which values share each slot.
public final class Explain {
    private Explain() {}

    public static String of(Graph graph, Program program) { return of(graph, program, _ -> -1); }

    /// As [#of(Graph, Program)], with `packedBytes(i)` the bytes of graph input `i`'s bf16 or int8
    /// form (-1 for none): a kernel that reads an input packed is charged those, not its f32 size.
    public static String of(Graph graph, Program program, IntToLongFunction packedBytes) {
        Schedule schedule = program.schedule();
        var text = new StringBuilder("graph:\n").append(graph.toString().indent(2));
        Graph unfusedGraph = dev.smelt.ir.AttentionMath.expandAll(graph); // attention as it runs unfused
        text.append("kernels: %d (unfused: %d)%n".formatted(schedule.launches().size(), unfusedKernels(unfusedGraph)));
        text.append(program.executor().describe()).append('\n');
        long moved = 0;
        Map<Integer, Long> packed = packedReads(schedule, program, packedBytes);
        for (int i = 0; i < schedule.launches().size(); i++) {
            var launch = schedule.launches().get(i);
            long read = bytesRead(launch, packed), written = bytesWritten(launch.kernel());
            moved += read + written;
            text.append("kernel %d: %s; fuses %s%n".formatted(i, launch.category(), String.join(", ", launch.fused())));
            text.append("  reads %,d B, writes %,d B; runs %s%n".formatted(read, written, program.functions().get(i).tier()));
            text.append(program.profileLine(i));
            if (launch.kernel() instanceof Kernel loops && inlineTrigonometry(loops))
                text.append("  numerics: f32 sin/cos inline, within 2 ulps (past |x| = %d: Math.sin/cos, lane by lane)%n".formatted((int) Transcendentals.TRIG_LIMIT));
            text.append(launch.kernel().toString().indent(2));
        }
        for (var decision : schedule.decisions()) text.append("decision: ").append(decision).append('\n');
        long unfused = unfusedBytes(unfusedGraph);
        text.append("bytes moved: %,d fused vs %,d unfused (%,d saved)%n".formatted(moved, unfused, Math.max(0, unfused - moved)));
        text.append(intermediateTraffic(graph, schedule));
        if (!program.guard().isEmpty()) text.append(program.guard()).append('\n');
        text.append(program.updatingMemory());
        return text.toString();
    }

    /// Whether generated code computes a `sin` or `cos` by its polynomial, whose bound is looser than
    /// the JDK's: whether the kernel as code generation rewrites it (`kernel.Transcendentals`) falls
    /// back to `Math.sin` or `Math.cos` past the polynomial's range.
    static boolean inlineTrigonometry(Kernel kernel) {
        var found = new boolean[1];
        Expr.walk(Transcendentals.expand(kernel).expressions(),
                expr -> found[0] |= expr instanceof Expr.Fallback fallback && (fallback.op() == UnaryOp.SIN || fallback.op() == UnaryOp.COS));
        return found[0];
    }

    /// Each input buffer once (a broadcast input is read once per row, but from cache); a buffer in
    /// `packed` (its packed bytes) at that size.
    static long bytesRead(Schedule.Launch launch, Map<Integer, Long> packed) {
        KernelForm kernel = launch.kernel();
        long bytes = 0, points = points(kernel);
        for (int i = 0; i < kernel.inputs().size(); i++) {
            var input = kernel.inputs().get(i);
            Long packedBytes = packed.get(launch.reads().get(i));
            bytes += packedBytes != null ? packedBytes : Math.min(input.size(), points) * input.dtype().bytes();
        }
        return bytes;
    }

    // The buffers of the graph inputs the program binds packed, with their packed sizes.
    private static Map<Integer, Long> packedReads(Schedule schedule, Program program, IntToLongFunction packedBytes) {
        var packed = new HashMap<Integer, Long>();
        for (int i = 0; i < schedule.inputs().size(); i++) {
            long bytes = packedBytes.applyAsLong(i);
            if (program.readsPacked(i) && bytes >= 0) packed.put(program.inputBuffer(i), bytes);
        }
        return packed;
    }

    static long bytesWritten(KernelForm kernel) {
        long bytes = 0;
        for (var output : kernel.outputs()) bytes += written(kernel, output) * output.dtype().bytes();
        return bytes;
    }

    private static long points(KernelForm kernel) {
        return switch (kernel) {
            case Kernel loops -> loops.space().count();
            case MatMulKernel matmul -> matmul.space().count();
            case dev.smelt.kernel.UpdateKernel update -> update.region().count();
            case dev.smelt.kernel.SortKernel sort -> sort.shape().count();
            case dev.smelt.kernel.AttentionKernel _ -> Long.MAX_VALUE; // each operand once, from cache after
        };
    }

    // A matmul writes each output once per [m, n]; a loop kernel's row output once per row.
    private static long written(KernelForm kernel, Kernel.Output output) {
        return switch (kernel) {
            case Kernel loops -> output.perRow() ? loops.workItems() : loops.space().count();
            case MatMulKernel matmul -> matmul.result().size();
            case dev.smelt.kernel.UpdateKernel update -> update.region().count(); // the copy, when there is one, is the plan's to say
            case dev.smelt.kernel.SortKernel sort -> sort.shape().count();
            case dev.smelt.kernel.AttentionKernel _ -> output.size();
        };
    }

    /// One kernel per operation, as eager mode runs them; views are free in both.
    static int unfusedKernels(Graph graph) {
        return (int) graph.nodes().stream().filter(Explain::isOperation).count();
    }

    /// Each operation reads its operands and writes its result.
    static long unfusedBytes(Graph graph) {
        long bytes = 0;
        for (Node node : graph.nodes()) {
            if (!isOperation(node)) continue;
            bytes += (long) node.shape().size() * node.dtype().bytes();
            for (Node operand : node.inputs()) bytes += (long) operand.shape().size() * operand.dtype().bytes();
        }
        return bytes;
    }

    /// Fusion's saving as the usual formula counts it: each operation's result is written once and
    /// read once (2 × its bytes) when every operation is its own kernel; fusion saves that for
    /// each result that never reaches memory. For `relu(x@w + b)` at 128×256 f32: 786,432 B, of
    /// which 524,288 B (67%) saved.
    static String intermediateTraffic(Graph graph, Schedule schedule) {
        var materialised = new java.util.HashSet<String>();
        schedule.buffers().forEach(buffer -> materialised.add(buffer.label()));
        long unfused = 0, saved = 0;
        var nodes = graph.nodes();
        for (int i = 0; i < nodes.size(); i++) {
            Node node = nodes.get(i);
            if (!isOperation(node)) continue;
            long traffic = 2L * node.shape().size() * node.dtype().bytes();
            unfused += traffic;
            if (!materialised.contains("%" + i + " " + dev.smelt.ir.Printer.opName(node))) saved += traffic;
        }
        if (unfused == 0) return "";
        return "intermediate traffic (each result written and read once): %,d B unfused, %,d B saved (%.0f%%)%n"
                .formatted(unfused, saved, 100.0 * saved / unfused);
    }

    private static boolean isOperation(Node node) {
        return switch (node) {
            case Node.Input _, Node.Constant _, Node.Reshape _, Node.Permute _, Node.Expand _, Node.Slice _, Node.IndexCheck _ -> false;
            case Node.Iota _, Node.Unary _, Node.Binary _, Node.Where _, Node.Cast _, Node.Reduce _, Node.MatMul _, Node.Concat _, Node.Random _, Node.Attention _ -> true;
            case Node.Gather _, Node.Scatter _, Node.SliceUpdate _, Node.ArgSort _ -> true;
        };
    }
}
