// SPDX-License-Identifier: Apache-2.0
package dev.smelt.ops;

import dev.smelt.ir.IndexOutOfRange;
import dev.smelt.ir.SmeltException;
import dev.smelt.ir.Storage;
import dev.smelt.runtime.Program;
import java.util.List;

/// The API's side of running a program ([dev.smelt.driver.Pipeline] builds them): every call of a
/// program from the API goes through here, so a failed index check becomes its op's
/// [SmeltException], and a JVM without the Vector API is told which flag to add.
public final class Calls {
    private Calls() {}

    // Generated kernels and the matmul tile use the Vector API, an incubator module the JVM resolves
    // only when asked: without it, the first kernel died with a NoClassDefFoundError in the planner.
    private static final boolean VECTOR_API = ModuleLayer.boot().findModule("jdk.incubator.vector").isPresent();

    /// Throws a [SmeltException] for `op` that says which flag to add when the Vector API module is
    /// missing.
    public static void requireVectorApi(String op) {
        if (!VECTOR_API)
            throw SmeltException.of(op, "Smelt needs the Vector API module, which this JVM was started without; add --add-modules jdk.incubator.vector "
                    + "to the java command (with Maven, to Surefire's argLine and to exec's arguments: see the README)");
    }

    /// [Program#run(List, List)], with a failed index check reported as its op's [SmeltException].
    public static List<Storage> run(Program program, List<Storage> inputs, List<Storage> outputs) {
        try {
            return program.run(inputs, outputs);
        } catch (IndexOutOfRange failure) {
            throw SmeltException.of(failure);
        }
    }

    /// [Program#runOne], with a failed index check reported as for [#run].
    public static Object runOne(Program program, Object[] buffers) {
        try {
            return program.runOne(buffers);
        } catch (IndexOutOfRange failure) {
            throw SmeltException.of(failure);
        }
    }
}
