// SPDX-License-Identifier: Apache-2.0
package dev.smelt.testing;

import java.io.File;
import java.lang.module.FindException;
import java.lang.module.ModuleFinder;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.spi.ToolProvider;
import java.util.stream.Collectors;

/// Which `dev.smelt` packages of a module's compiled classes use which, read by `jdeps` from the
/// class files: it sees every reference (fully qualified names, types of lambdas, constants), not
/// only imports.
public record PackageGraph(Map<String, Set<String>> uses) {
    /// The graph of `classes` (a `target/classes` directory).
    public static PackageGraph of(Path classes) {
        if (!Files.isDirectory(classes)) throw new IllegalStateException(classes.toAbsolutePath() + " is missing: run the tests from the module's directory after compiling");
        var jdeps = ToolProvider.findFirst("jdeps").orElseThrow(() -> new IllegalStateException("this JDK has no jdeps"));
        var out = new StringWriter();
        int status = jdeps.run(new PrintWriter(out), new PrintWriter(out), "-verbose:package", "-filter:none", "--ignore-missing-deps",
                "--multi-release", "25", "--module-path", modulePath(classes), classes.toString());
        if (status != 0) throw new IllegalStateException("jdeps failed:\n" + out);
        Map<String, Set<String>> uses = new TreeMap<>();
        for (String line : out.toString().lines().toList()) {
            String[] words = line.trim().split("\\s+");
            if (words.length < 3 || !words[1].equals("->") || !words[0].startsWith("dev.smelt")) continue;
            uses.computeIfAbsent(words[0], p -> new TreeSet<>());
            if (words[2].startsWith("dev.smelt") && !words[2].equals(words[0])) uses.get(words[0]).add(words[2]);
        }
        return new PackageGraph(uses);
    }

    // The modules the classes require (ASM, jit-core for autograd): this JVM's modular jars and
    // directories, other than the classes analysed.
    private static String modulePath(Path classes) {
        return Arrays.stream(System.getProperty("java.class.path").split(File.pathSeparator)).map(Path::of)
                .filter(entry -> !entry.toAbsolutePath().equals(classes.toAbsolutePath()))
                .filter(PackageGraph::modular)
                .map(Path::toString).collect(Collectors.joining(File.pathSeparator));
    }

    // Automatic modules are left out: a test jar would split jit-core's packages.
    private static boolean modular(Path entry) {
        try {
            return ModuleFinder.of(entry).findAll().stream().anyMatch(module -> !module.descriptor().isAutomatic());
        } catch (FindException notAModule) {
            return false;
        }
    }

    /// Every cycle's packages (strongly connected components of more than one package), each as
    /// `a → b → … → a` along real edges.
    public List<String> cycles() {
        var components = new Tarjan().components();
        var cycles = new ArrayList<String>();
        for (Set<String> component : components) if (component.size() > 1) cycles.add(path(component));
        return cycles;
    }

    // One cycle through the component, found by walking edges that stay inside it.
    private String path(Set<String> component) {
        String start = component.iterator().next();
        var seen = new ArrayList<String>();
        String at = start;
        while (!seen.contains(at)) {
            seen.add(at);
            at = uses.get(at).stream().filter(component::contains).findFirst().orElseThrow();
        }
        var cycle = new ArrayList<>(seen.subList(seen.indexOf(at), seen.size()));
        cycle.add(at);
        return String.join(" → ", cycle);
    }

    private final class Tarjan {
        final Map<String, Integer> index = new HashMap<>(), low = new HashMap<>();
        final Deque<String> stack = new ArrayDeque<>();
        final Set<String> onStack = new TreeSet<>();
        final List<Set<String>> components = new ArrayList<>();

        List<Set<String>> components() {
            for (String p : uses.keySet()) if (!index.containsKey(p)) visit(p);
            return components;
        }

        void visit(String p) {
            index.put(p, index.size());
            low.put(p, index.get(p));
            stack.push(p);
            onStack.add(p);
            for (String q : uses.getOrDefault(p, Set.of())) {
                if (!uses.containsKey(q)) continue; // another module's package
                if (!index.containsKey(q)) {
                    visit(q);
                    low.put(p, Math.min(low.get(p), low.get(q)));
                } else if (onStack.contains(q)) {
                    low.put(p, Math.min(low.get(p), index.get(q)));
                }
            }
            if (low.get(p).equals(index.get(p))) {
                var component = new TreeSet<String>();
                String q;
                do {
                    q = stack.pop();
                    onStack.remove(q);
                    component.add(q);
                } while (!q.equals(p));
                components.add(component);
            }
        }
    }
}
