// SPDX-License-Identifier: Apache-2.0
package dev.smelt.benchmarks;

import dev.smelt.Jit;
import dev.smelt.Tensor;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.regex.Pattern;

/// Writes the list `dev.smelt.runtime.Preload` loads ahead of a first compile: runs [Child] (the
/// README's chain, compiled and called once on 1M floats, as [FirstCall] does) in a fresh JVM with
/// the preloading off and class loading logged, and prints Smelt's and ASM's classes that the
/// call loaded, in order: `link <name>` for those it also verified, `load <name>` for the others.
/// The function is made and traced once before, so that the list leaves out what that loads: the
/// compiling thread needs those classes at once, and a second thread loading them too only made it
/// wait for each class's lock (JFR, FirstCall at load 7: 17–70 ms of the calling thread blocked behind the
/// preloading thread with them listed, 0.3–38 ms without).
/// Run after changing what a first compile loads, from the repository root:
/// `java -cp benchmarks/target/benchmarks.jar dev.smelt.benchmarks.PreloadList > jit-core/src/main/resources/dev/smelt/runtime/first-compile-classes.txt`.
public final class PreloadList {
    private PreloadList() {}

    private static final String START = "== first call ==", END = "== done ==";
    private static final Pattern LOADED = Pattern.compile(".*\\[class,load\\s*\\] (\\S+) source: .*");
    private static final Pattern VERIFIED = Pattern.compile(".*\\[class,init\\s*\\] Start class verification for: (\\S+).*");

    public static void main(String[] args) throws Exception {
        var command = List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "--add-modules", "jdk.incubator.vector",
                "-Dsmelt.preload=false", "-Dsmelt.kernelFiles=off", "-Xlog:class+load=info,class+init=info:stdout", "-cp", System.getProperty("java.class.path"), Child.class.getName());
        var process = new ProcessBuilder(command).redirectErrorStream(true).start();
        List<String> lines = new String(process.getInputStream().readAllBytes()).lines().toList();
        if (process.waitFor() != 0) throw new IllegalStateException(String.join("\n", lines));
        var loaded = new ArrayList<String>();
        var verified = new HashSet<String>();
        boolean inCall = false;
        for (String line : lines) {
            if (line.equals(START)) inCall = true;
            else if (line.equals(END)) break;
            else if (inCall) {
                var load = LOADED.matcher(line);
                var verify = VERIFIED.matcher(line);
                if (load.matches() && listed(load.group(1))) loaded.add(load.group(1));
                else if (verify.matches()) verified.add(verify.group(1));
            }
        }
        System.out.println("# The classes a fresh JVM's first compile loads, in order (dev.smelt.benchmarks.PreloadList); see Preload.");
        for (String name : loaded) System.out.println((verified.contains(name) ? "link " : "load ") + name);
    }

    // Smelt's and ASM's classes from the class path: not hidden classes (lambdas, pattern switches, kernels), not the benchmarks'
    private static boolean listed(String name) {
        return (name.startsWith("dev.smelt.") || name.startsWith("org.objectweb.asm.")) && !name.contains("/") && !name.startsWith("dev.smelt.benchmarks.");
    }

    /// The first call, between two marker lines.
    public static final class Child {
        private Child() {}

        public static void main(String[] args) {
            float[] xs = new float[FirstCall.SIZE], ys = new float[FirstCall.SIZE];
            for (int i = 0; i < xs.length; i++) {
                xs[i] = (i % 97) * 0.08f - 4;
                ys[i] = (i % 89) * 0.09f - 4;
            }
            Tensor x = Tensor.of(xs, xs.length), y = Tensor.of(ys, ys.length);
            var compiled = Jit.compile(Chain::apply);
            Jit.trace(Chain::apply, x, y);
            System.out.println(START);
            compiled.apply(x, y);
            System.out.println(END);
        }
    }
}
