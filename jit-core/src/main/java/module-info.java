// SPDX-License-Identifier: Apache-2.0

/// Smelt: tensors in Java, traced, fused and compiled to JVM bytecode. The API is the `dev.smelt`
/// package (`Tensor`, `Jit`, `Compiled`, …) with `dev.smelt.ir`, the graph IR that a traced
/// function becomes and whose `DType`, `Shape` and `FusionMode` the API speaks of. The compiler's
/// stages are internal; Smelt's own modules reach the few they build on through qualified exports.
///
/// On the module path, requiring this module also resolves `jdk.incubator.vector`; on the class
/// path, start the JVM with `--add-modules jdk.incubator.vector`.
module dev.smelt {
    requires jdk.incubator.vector;
    requires jdk.management; // HotSpotDiagnosticMXBean: whether the heap is on huge pages, for explain()
    requires org.objectweb.asm;

    exports dev.smelt;
    exports dev.smelt.ir;

    exports dev.smelt.fusion to dev.smelt.autograd;  // the cost model, for saving or recomputing activations
    exports dev.smelt.runtime to dev.smelt.autograd; // OnceMap
}
