// SPDX-License-Identifier: Apache-2.0
package dev.smelt.benchmarks;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/// Cold start, measured in fresh JVMs: [FirstCall] (compile plus the first call of the chain on 1M
/// floats; targets ≤ 100 ms, ≤ 50 ms with the AOT cache) and [FirstSteps] (the first 100 Adam steps
/// of an MLP 784-512-10 against 100 steady ones; target ≤ 3×), [FirstTokens] (a stories15M
/// decode's first token and first 256 against 256 more) and [FirstGptStep] (a GPT training step's
/// first call, compile included, against its second). Each probe first runs once to record
/// a JDK AOT cache (`-XX:AOTCacheOutput`, JEP 483/515), then `runs` times without and with it,
/// alternating which goes first, and the medians of what the children print are shown side by
/// side, with each child's wall time from process start to exit. Run:
/// `java -cp benchmarks/target/benchmarks.jar dev.smelt.benchmarks.ColdStart [runs] [probe…]`;
/// `-Dcoldstart.options="-XX:+UseTransparentHugePages"` adds JVM options to every child.
public final class ColdStart {
    private ColdStart() {}

    static final List<String> JVM_OPTIONS = List.of(System.getProperty("coldstart.options", "").split(" ")).stream().filter(o -> !o.isBlank()).toList();
    static final List<String> PROBES = List.of("FirstCall", "FirstSteps", "FirstTokens", "FirstGptStep");

    public static void main(String[] args) throws Exception {
        int runs = args.length > 0 ? Integer.parseInt(args[0]) : 5;
        List<String> probes = args.length > 1 ? List.of(args).subList(1, args.length) : PROBES;
        Path directory = Files.createTempDirectory("smelt-coldstart");
        System.out.printf("%s, load average %s, options %s%n", cpu(), Files.readString(Path.of("/proc/loadavg")).trim(), JVM_OPTIONS);
        for (String probe : probes) {
            Path cache = directory.resolve(probe + ".aot");
            run(probe, List.of("-XX:AOTCacheOutput=" + cache));
            var results = new LinkedHashMap<String, Map<String, List<Double>>>();
            for (int r = 0; r < runs; r++) {
                var configurations = new ArrayList<>(List.of("plain", "aot"));
                if (r % 2 == 1) configurations = new ArrayList<>(configurations.reversed());
                for (String configuration : configurations) {
                    var values = run(probe, configuration.equals("aot") ? List.of("-XX:AOTCache=" + cache) : List.of());
                    values.forEach((key, value) -> results.computeIfAbsent(configuration, c -> new LinkedHashMap<>()).computeIfAbsent(key, k -> new ArrayList<>()).add(value));
                }
            }
            results.forEach((configuration, values) -> System.out.printf("%-10s %-5s %s%n", probe, configuration, medians(values)));
        }
        System.out.printf("load average after: %s%n", Files.readString(Path.of("/proc/loadavg")).trim());
    }

    // Runs dev.smelt.benchmarks.<probe> in a fresh JVM; its printed `key=value` pairs, and `process` (ms).
    private static Map<String, Double> run(String probe, List<String> options) throws IOException, InterruptedException {
        var command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "--add-modules", "jdk.incubator.vector"));
        command.addAll(JVM_OPTIONS);
        command.addAll(options);
        command.addAll(List.of("-cp", System.getProperty("java.class.path"), ColdStart.class.getPackageName() + "." + probe));
        long start = System.nanoTime();
        var process = new ProcessBuilder(command).redirectErrorStream(true).start();
        String output = new String(process.getInputStream().readAllBytes());
        int exit = process.waitFor();
        double millis = (System.nanoTime() - start) / 1e6;
        if (exit != 0) throw new IllegalStateException("%s exited with %d:%n%s".formatted(String.join(" ", command), exit, output));
        var values = new LinkedHashMap<String, Double>();
        for (String token : output.split("\\s+"))
            if (token.matches("\\w+=[-0-9.]+")) values.put(token.substring(0, token.indexOf('=')), Double.parseDouble(token.substring(token.indexOf('=') + 1)));
        values.put("process", millis);
        return values;
    }

    private static String medians(Map<String, List<Double>> values) {
        var text = new StringBuilder();
        values.forEach((key, list) -> {
            var sorted = list.stream().sorted().toList();
            text.append("%s %.1f %s  ".formatted(key, sorted.get(sorted.size() / 2), sorted.stream().map(v -> "%.0f".formatted(v)).toList()));
        });
        return text.toString();
    }

    private static String cpu() throws IOException {
        return Files.readAllLines(Path.of("/proc/cpuinfo")).stream().filter(l -> l.startsWith("model name")).findFirst().map(l -> l.substring(l.indexOf(':') + 2)).orElse("unknown CPU")
                + ", " + Runtime.getRuntime().availableProcessors() + " cores";
    }
}
