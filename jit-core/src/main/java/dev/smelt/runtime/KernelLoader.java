// SPDX-License-Identifier: Apache-2.0
package dev.smelt.runtime;

import dev.smelt.codegen.GeneratedKernel;
import dev.smelt.codegen.Variant;
import dev.smelt.kernel.KernelFunction;
import java.io.IOException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.atomic.LongAdder;

/// Turns a [GeneratedKernel] into a running [KernelFunction]: a hidden class in this package.
///
/// The class is defined without `ClassOption.STRONG`, so it is unloaded once its function is no
/// longer reachable, and without `NESTMATE`: it needs nothing private. It links against
/// `dev.smelt.kernel`, `dev.smelt.codegen` (the scalar helpers) and `jdk.incubator.vector`, which
/// this class's module reads.
///
/// Dumps: `-Dsmelt.dump=<dir>` (or `-Djit.dump=…,bytecode,…`, into `target/jit-dump`) writes each
/// class file and its `kernel-<hash>.ir` there, for `javap -c -p -l`. The class's line numbers are
/// lines of that `.ir` file; stack traces show a hidden class's frames only with
/// `-XX:+ShowHiddenFrames`.
public final class KernelLoader {
    private static final Map<Variant, LongAdder> DEFINED = Map.of(Variant.SCALAR, new LongAdder(), Variant.VECTOR, new LongAdder());

    private KernelLoader() {}

    public static KernelFunction load(GeneratedKernel kernel) { return load(kernel, KernelFunction.class); }

    /// An instance of the generated class, which implements `type` (a matmul's micro-kernel, …).
    public static <T> T load(GeneratedKernel kernel, Class<T> type) {
        Path directory = Dump.classDirectory().orElse(null);
        if (directory != null) dump(kernel, directory);
        if (kernel.variant() == Variant.VECTOR && type == KernelFunction.class) VectorCodeDirective.addOnce(); // not for a matmul's tile: see VectorCodeDirective
        try {
            var lookup = MethodHandles.lookup().defineHiddenClass(kernel.bytes(), true);
            DEFINED.get(kernel.variant()).increment();
            return type.cast(lookup.findConstructor(lookup.lookupClass(), MethodType.methodType(void.class)).invoke());
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable e) {
            throw new IllegalStateException("cannot load " + kernel.className(), e);
        }
    }

    /// How many classes of `variant` were defined since the JVM started. Scalar classes are defined
    /// by the calls that compile, vector ones by background warm-ups (a matmul's micro-kernel too).
    public static long defined(Variant variant) { return DEFINED.get(variant).sum(); }

    private static void dump(GeneratedKernel kernel, Path directory) {
        try {
            Files.createDirectories(directory);
            String simpleName = kernel.className().substring(kernel.className().lastIndexOf('.') + 1);
            Files.write(directory.resolve(simpleName + ".class"), kernel.bytes());
            Files.writeString(directory.resolve(kernel.sourceFile()), kernel.kernelText());
        } catch (IOException e) { // a debugging aid, as Dump.write: the kernel runs all the same
            System.err.println("smelt.dump: cannot write " + kernel.className() + " to " + directory + ": " + e);
        }
    }
}
