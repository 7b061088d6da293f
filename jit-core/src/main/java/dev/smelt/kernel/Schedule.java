// SPDX-License-Identifier: Apache-2.0
package dev.smelt.kernel;

import dev.smelt.ir.DType;
import dev.smelt.ir.Shape;
import java.util.List;

/// A graph compiled to loop level: the buffers, and the kernel launches that fill them in order.
/// Graph input `i` arrives in buffer `inputs[i]`; output `i` is buffer `outputs[i]`, dense in its
/// shape. Launches read only buffers written by earlier launches or inputs.
public record Schedule(List<Buffer> buffers, List<Launch> launches, List<Integer> inputs, List<Output> outputs, List<Decision> decisions) {
    /// A flat array of `size` elements of `dtype`; `label` names the graph value it holds (`%7`).
    public record Buffer(DType dtype, int size, String label) {}

    /// Runs `kernel` (a loop nest or a matmul) on buffers `buffers` (its inputs, then its outputs).
    /// `fused` lists the graph nodes computed inside it, as printed IR lines, and `category` is
    /// XLA's name for the fusion.
    public record Launch(KernelForm kernel, List<Integer> buffers, List<String> fused, String category) {
        public Launch {
            buffers = List.copyOf(buffers);
            fused = List.copyOf(fused);
            if (buffers.size() != kernel.bufferCount())
                throw new IllegalArgumentException("launch binds " + buffers.size() + " buffers to a kernel of " + kernel.bufferCount());
        }

        /// The buffers it reads: its kernel's inputs.
        public List<Integer> reads() { return buffers.subList(0, kernel.inputs().size()); }

        /// The buffers it writes: its kernel's outputs.
        public List<Integer> writes() { return buffers.subList(kernel.inputs().size(), buffers.size()); }
    }

    /// Graph output: buffer `buffer`, read as `shape`.
    public record Output(int buffer, Shape shape) {}

    public Schedule {
        buffers = List.copyOf(buffers);
        launches = List.copyOf(launches);
        inputs = List.copyOf(inputs);
        outputs = List.copyOf(outputs);
        decisions = List.copyOf(decisions);
    }

    /// The launches in order, each with its buffers and kernel, then the planner's decisions.
    @Override
    public String toString() {
        var text = new StringBuilder();
        for (int i = 0; i < buffers.size(); i++)
            text.append("buffer %d: %s[%d] %s%n".formatted(i, buffers.get(i).dtype(), buffers.get(i).size(), buffers.get(i).label()));
        for (var launch : launches)
            text.append("launch %s on buffers %s, fusing %s%n".formatted(launch.category(), launch.buffers(), launch.fused())).append(launch.kernel());
        decisions.forEach(decision -> text.append("decision: ").append(decision).append('\n'));
        return text.toString();
    }
}
