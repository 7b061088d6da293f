// SPDX-License-Identifier: Apache-2.0
package dev.smelt.benchmarks;

import dev.smelt.Compiled;
import dev.smelt.Generator;
import dev.smelt.Jit;
import dev.smelt.Tensor;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingStream;

/// How long a fresh kernel takes to reach vector code, and what the JIT spends on it (issue 18):
/// for the six-op chain on 1M floats, softmax and layer norm on [4096, 1024] and a gelu-tanh ·
/// sigmoid + tanh chain, each compiled in this fresh JVM and called until `explain()` shows vector
/// code, the seconds that took, and from JFR's `jdk.Compilation` events every compilation of the
/// kernels' generated vector classes: tier (C1 = 1–3, C2 = 4), OSR or not, milliseconds, bytecode
/// inlined and machine code produced. Optional argument: spinning threads to start beside it
/// ([Spinner]). Not JMH: each figure is one fresh JVM's first time.
/// `java --add-modules jdk.incubator.vector -cp benchmarks/target/benchmarks.jar dev.smelt.benchmarks.TierUpTime [busy]`
public final class TierUpTime {
    private TierUpTime() {}

    public static void main(String[] args) throws Exception {
        int busy = args.length > 0 ? Integer.parseInt(args[0]) : 0;
        Process spinner = busy > 0 ? Spinner.start(busy) : null;
        var compilations = new ArrayList<String>();
        try (var stream = new RecordingStream()) {
            stream.enable("jdk.Compilation").withThreshold(Duration.ZERO);
            stream.onEvent("jdk.Compilation", event -> {
                String method = event.getValue("method.type.name") + "." + event.getValue("method.name");
                if (method.contains("VectorKernel$")) synchronized (compilations) { compilations.add(describe(event, method)); }
            });
            stream.startAsync();
            var generator = new Generator(1);
            Tensor x = Tensor.randn(generator, 1 << 20), y = Tensor.randn(generator, 1 << 20), m = Tensor.randn(generator, 4096, 1024);
            Tensor w = Tensor.randn(generator, 1024), b = Tensor.randn(generator, 1024);
            tierUp("chain 1M", Jit.compile((Tensor p, Tensor q) -> p.sin().mul(q.cos()).add(p).mul(q).relu()), x, y);
            tierUp("softmax", Jit.compile((Tensor t) -> t.softmax(-1)), m);
            tierUp("layerNorm", Jit.compile((Tensor t) -> t.layerNorm(new int[] {1024}, w, b, 1e-5)), m);
            tierUp("gelu chain 1M", Jit.compile((Tensor t) -> t.geluTanh().mul(t.sigmoid()).add(t.tanh())), x);
            Thread.sleep(2000); // let the last compilations' events arrive
        } finally {
            if (spinner != null) spinner.destroy();
        }
        System.out.printf("busy threads: %d; compilations of generated vector kernels (in order):%n", busy);
        synchronized (compilations) { compilations.forEach(System.out::println); }
    }

    private static void tierUp(String name, Compiled function, Tensor... inputs) {
        long start = System.nanoTime();
        int calls = 0;
        while (function.explain(inputs).contains("runs scalar") && System.nanoTime() - start < 60_000_000_000L) {
            function.apply(inputs);
            calls++;
        }
        boolean vector = !function.explain(inputs).contains("runs scalar");
        System.out.printf("%-14s %s after %.2f s (%d calls)%n", name, vector ? "vector" : "STILL SCALAR", (System.nanoTime() - start) / 1e9, calls);
    }

    private static String describe(RecordedEvent event, String method) {
        int level = event.getInt("compileLevel");
        return "  %s %s%s %6.0f ms, %6d B inlined, %7d B code%s".formatted(method.replaceAll(".*(VectorKernel\\$[0-9a-f]{6}).*", "$1…"),
                level == 4 ? "C2" : "C1 (tier " + level + ")", event.getBoolean("isOsr") ? " OSR" : "", event.getDuration().toNanos() / 1e6,
                event.getLong("inlinedBytes"), event.getLong("codeSize"), event.getBoolean("succeded") ? "" : " FAILED");
    }
}
