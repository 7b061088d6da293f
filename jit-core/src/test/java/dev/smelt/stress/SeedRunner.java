// SPDX-License-Identifier: Apache-2.0
package dev.smelt.stress;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/// Runs one check per seed, on a few threads, and collects what failed. A check returns null when
/// its seed passed and a report (seed, program, what differed) when it did not; an exception it
/// throws is a failure too. A seed still running after the time limit is reported as hung, with
/// its thread's stack, and the run goes on without it (the thread is a daemon, so it cannot keep
/// the JVM alive). After [#MAX_FAILURES] failures no new seeds start: the first ones are what a
/// reader needs. Progress is printed every 30 seconds, for runs of an hour.
public final class SeedRunner {
    static final int MAX_FAILURES = 50;

    /// A check of one seed: null when it passed, else the report.
    @FunctionalInterface
    public interface Check { String run(long seed) throws Exception; }

    /// The seeds run, the failure reports (in the order found) and the wall time.
    public record Summary(String name, long seedsRun, List<String> failures, long millis) {
        /// The first `count` reports in full, then every failing seed's first line.
        public String firstFailures(int count) {
            var text = new StringBuilder("%s: %d of %d seeds failed%n".formatted(name, failures.size(), seedsRun));
            failures.stream().limit(count).forEach(report -> text.append(report).append("\n"));
            failures.stream().skip(count).forEach(report -> text.append(report.lines().findFirst().orElse("")).append("\n"));
            return text.toString();
        }

        public double perSecond() { return seedsRun * 1000.0 / Math.max(1, millis); }
    }

    private record Running(long seed, long startNanos) {}

    private SeedRunner() {}

    public static Summary run(String name, long[] seeds, int threads, Check check) {
        long timeoutNanos = TimeUnit.SECONDS.toNanos(Settings.integer("timeoutSeconds", 300));
        var next = new AtomicInteger();
        var finished = new AtomicInteger();
        var failures = Collections.synchronizedList(new ArrayList<String>());
        Map<Thread, Running> running = new ConcurrentHashMap<>();
        long start = System.nanoTime();
        var workers = new ArrayList<Thread>();
        for (int t = 0; t < threads; t++) {
            var worker = Thread.ofPlatform().daemon().name(name + "-" + t).unstarted(() -> {
                for (int i; failures.size() < MAX_FAILURES && (i = next.getAndIncrement()) < seeds.length; finished.incrementAndGet()) {
                    running.put(Thread.currentThread(), new Running(seeds[i], System.nanoTime()));
                    String report = runOne(check, seeds[i]);
                    running.remove(Thread.currentThread());
                    if (report != null) failures.add(report);
                }
            });
            workers.add(worker);
            worker.start();
        }
        watch(name, workers, running, failures, timeoutNanos, finished, seeds.length, start);
        return new Summary(name, finished.get() + running.size(), List.copyOf(failures), TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start));
    }

    private static String runOne(Check check, long seed) {
        try {
            return check.run(seed);
        } catch (Exception | Error e) {
            return "seed %d (rerun alone with -Dsmelt.stress.seed=%d): the check threw %s".formatted(seed, seed, describe(e));
        }
    }

    /// Waits until every worker has finished or is stuck on a seed past the time limit (reported once).
    private static void watch(String name, List<Thread> workers, Map<Thread, Running> running, List<String> failures,
                              long timeoutNanos, AtomicInteger finished, int total, long start) {
        var hung = new ArrayList<Thread>();
        long lastProgress = System.nanoTime();
        while (workers.stream().anyMatch(worker -> worker.isAlive() && !hung.contains(worker))) {
            sleep();
            long now = System.nanoTime();
            running.forEach((thread, seed) -> {
                if (now - seed.startNanos() > timeoutNanos && !hung.contains(thread)) {
                    hung.add(thread);
                    failures.add("seed %d (rerun alone with -Dsmelt.stress.seed=%d): still running after %d s, stack:%n      %s".formatted(seed.seed(),
                            seed.seed(), TimeUnit.NANOSECONDS.toSeconds(now - seed.startNanos()), stack(thread)));
                }
            });
            if (now - lastProgress > TimeUnit.SECONDS.toNanos(30)) {
                lastProgress = now;
                System.out.printf("%s: %,d of %,d seeds in %d s, %d failed%n", name, finished.get(), total, TimeUnit.NANOSECONDS.toSeconds(now - start), failures.size());
            }
        }
    }

    /// The exception with its stack, cut after 25 lines, indented to sit under a report's first line.
    public static String describe(Throwable e) {
        var text = new java.io.StringWriter();
        e.printStackTrace(new java.io.PrintWriter(text));
        return text.toString().lines().limit(25).reduce((a, b) -> a + "\n      " + b).orElse("");
    }

    private static String stack(Thread thread) {
        var frames = java.util.Arrays.stream(thread.getStackTrace()).limit(40).map(String::valueOf).toList();
        return String.join("\n      ", frames);
    }

    private static void sleep() {
        try {
            Thread.sleep(200);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
