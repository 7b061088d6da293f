// SPDX-License-Identifier: Apache-2.0
package dev.smelt.benchmarks;

/// Other work on the machine, for [LoadBench]: `threads` threads computing square roots until this
/// process's standard input closes (its parent ended) or `seconds` pass, whichever comes first.
public final class Spinner {
    private Spinner() {}

    public static void main(String[] args) throws Exception {
        int threads = Integer.parseInt(args[0]);
        long end = System.nanoTime() + Long.parseLong(args[1]) * 1_000_000_000L;
        for (int i = 0; i < threads; i++) {
            var thread = new Thread(() -> {
                double sum = 0;
                while (System.nanoTime() < end) sum += Math.sqrt(sum + 1);
                if (sum < 0) System.out.println(sum);
            });
            thread.setDaemon(true);
            thread.start();
        }
        while (System.in.read() >= 0 && System.nanoTime() < end) Thread.onSpinWait(); // returns -1 once the parent is gone
    }

    /// Starts `threads` spinning threads in a process of their own, for at most 10 minutes.
    static Process start(int threads) throws java.io.IOException {
        String launcher = java.nio.file.Path.of(System.getProperty("java.home"), "bin", "java").toString();
        return new ProcessBuilder(launcher, "-cp", System.getProperty("java.class.path"), Spinner.class.getName(), String.valueOf(threads), "600")
                .redirectOutput(ProcessBuilder.Redirect.DISCARD).redirectError(ProcessBuilder.Redirect.DISCARD).start();
    }
}
