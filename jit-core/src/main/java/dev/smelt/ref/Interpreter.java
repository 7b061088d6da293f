// SPDX-License-Identifier: Apache-2.0
package dev.smelt.ref;

import dev.smelt.ir.Graph;
import dev.smelt.ir.Storage;
import java.util.List;

/// STUB on the `build` branch so that `benchmarks` compiles; drop it at merge in favour of the
/// real interpreter from the `ref` branch, which has the same signature.
public final class Interpreter {
    private Interpreter() {}

    /// The graph's outputs for `inputs` (slot `i` at index `i`).
    public static List<Storage> run(Graph graph, List<Storage> inputs) {
        throw new UnsupportedOperationException("stub: the reference interpreter lands from the ref branch");
    }
}
