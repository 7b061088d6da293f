// SPDX-License-Identifier: Apache-2.0
package dev.smelt.ops;

import dev.smelt.ir.IndexOutOfRange;
import dev.smelt.ir.Node;
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

    /// Input `i` of `program` as its kernels read it from `argument`, a tensor of `size` elements whose
    /// dense strides are `dense`: its storage's array when it is dense, else a dense copy (views, and
    /// size-1 axes of other strides).
    public static Object inputArray(Program program, int i, Value argument, int size, int[] dense) {
        Storage storage = argument.storage();
        boolean isDense = argument.offset() == 0 && storage.size() == size && same(argument.strides(), dense);
        return program.inputArray(i, isDense ? storage : Dispatch.dense(argument));
    }

    // Arrays.equals, without its call into the vectorised mismatch stub: a few ints.
    private static boolean same(int[] strides, int[] dense) {
        if (strides.length != dense.length) return false;
        for (int axis = 0; axis < strides.length; axis++)
            if (strides[axis] != dense[axis]) return false;
        return true;
    }

    /// The storage that result `index` (`result` in the graph) of a call to `op` is written into:
    /// `output`'s, which must be a dense, writable tensor of the result's type sharing no memory with
    /// `inputs` or the `earlier` outputs.
    public static Storage output(String op, int index, Value output, Node result, List<Storage> inputs, List<Storage> earlier) {
        if (output == null) throw SmeltException.of(op, "output %d is null", index);
        Values.requireConcrete(op, output);
        if (!output.shape().equals(result.shape()) || output.dtype() != result.dtype())
            throw SmeltException.of(op, "output %d is %s%s but the result is %s%s", index, output.dtype(), output.shape(), result.dtype(), result.shape());
        if (!Views.isDense(output))
            throw SmeltException.of(op, "output %d must be a dense tensor that is its whole storage, not a view (%s%s); pass a new tensor, then copy it into the view with copyFrom", index, output.dtype(), output.shape());
        Storage storage = output.storage();
        Formats.requireWritable(op, output);
        if (Program.indexOfArray(inputs, storage.array()) >= 0 || Program.indexOfArray(earlier, storage.array()) >= 0)
            throw SmeltException.of(op, "output %d shares memory with an argument, a captured tensor or another output", index);
        return storage;
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
