// SPDX-License-Identifier: Apache-2.0
package dev.smelt.kernel;

import java.util.List;

/// A kernel in one of its forms: a loop nest ([Kernel]), a matmul with a fused epilogue
/// ([MatMulKernel]), a tensor with a region rewritten ([UpdateKernel]), or a sort ([SortKernel]). Both bind buffers the same way (inputs, then outputs) and split their work
/// into items that calls on disjoint ranges compute independently.
public sealed interface KernelForm permits Kernel, MatMulKernel, UpdateKernel, SortKernel, AttentionKernel {
    List<Kernel.Input> inputs();

    List<Kernel.Output> outputs();

    /// The number of independent work items `run(buffers, start, end)` ranges over.
    int workItems();

    /// Roughly the scalar operations of the whole kernel, which decides whether it is worth
    /// spreading over threads.
    long work();

    /// A parallel split puts its boundaries on multiples of this many work items.
    int splitGranule();

    /// Pieces per thread a parallel split cuts the items into, which the threads claim one at a
    /// time: several, so that a thread that starts late or runs slower (another process on its
    /// core) leaves only a piece for the others to wait on; one where every call repeats a setup
    /// that does not shrink with its range of items.
    default int chunksPerThread() { return 4; }

    /// Buffers in the order `run` takes them: the inputs, then the outputs.
    default int bufferCount() { return inputs().size() + outputs().size(); }
}
