// SPDX-License-Identifier: Apache-2.0
package dev.smelt;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedClass;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;
import org.junit.jupiter.api.Test;

/// A small kernel that becomes hot switches to its tiered function without loading a class on the
/// calling thread (issue 18: a training step after the first loads none). Run in a JVM of its own,
/// so that this is the first promotion and the first tiered kernel there: in the shared test JVM
/// other tests would have loaded the classes already.
class SmallKernelPromotionTest {
    /// Run in the child JVM: prints "loaded <class>" for each class the calling thread loaded after
    /// the first call, then the kernel's line of `explain()`.
    public static void main(String[] args) throws Exception {
        Tensor x = Tensor.randn(new Generator(7), 1, 2048);
        Compiled gate = Jit.compile((Tensor t) -> t.mul(t.sigmoid()));
        gate.apply(x);
        var tier = new String[] {gate.explain()};
        var watcher = new Thread(() -> { // explain() loads classes: not on the calling thread
            while (true) {
                tier[0] = gate.explain();
                try {
                    Thread.sleep(5);
                } catch (InterruptedException e) {
                    return;
                }
            }
        });
        watcher.setDaemon(true);
        Path file = Files.createTempFile("small-kernel", ".jfr");
        long thread = Thread.currentThread().threadId();
        try (var recording = new Recording()) {
            recording.enable("jdk.ClassLoad").withThreshold(Duration.ZERO).withStackTrace();
            recording.start();
            watcher.start();
            long deadline = System.nanoTime() + 60_000_000_000L, promotedAt = 0;
            // after the promotion, until the vector variant runs or 5 s (a lost round's retry starts on this thread)
            while (System.nanoTime() < deadline && (promotedAt == 0 || !tier[0].contains("runs vector") && System.nanoTime() - promotedAt < 5_000_000_000L)) {
                gate.apply(x);
                if (promotedAt == 0 && tier[0].contains("(a small kernel, run often)")) promotedAt = System.nanoTime();
            }
            recording.stop();
            recording.dump(file);
            for (RecordedEvent event : RecordingFile.readAllEvents(file))
                if (event.getThread() != null && event.getThread().getJavaThreadId() == thread && !byTheRecorder(event))
                    System.out.println("loaded " + event.<RecordedClass>getValue("loadedClass").getName() + " from " + event.getStackTrace());
        } finally {
            Files.delete(file);
        }
        watcher.interrupt();
        tier[0].lines().filter(line -> line.contains("runs ")).forEach(System.out::println);
    }

    // Stopping a recording loads the recorder's own classes on the thread that stops it.
    private static boolean byTheRecorder(RecordedEvent event) {
        var stack = event.getStackTrace();
        return stack != null && stack.getFrames().stream().anyMatch(frame -> frame.getMethod().getType().getName().startsWith("jdk.jfr."));
    }

    @Test
    void aHotSmallKernelSwitchesWithoutLoadingAClassOnTheCallingThread() throws Exception {
        var java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        var process = new ProcessBuilder(java, "--add-modules", "jdk.incubator.vector", "-cp", System.getProperty("java.class.path"),
                "-Dsmelt.kernelFiles=off", SmallKernelPromotionTest.class.getName()).redirectErrorStream(true).start();
        String output = new String(process.getInputStream().readAllBytes());
        assertTrue(process.waitFor(120, TimeUnit.SECONDS));
        assertEquals(0, process.exitValue(), output);
        List<String> lines = output.lines().filter(line -> !line.startsWith("WARNING")).toList();
        assertEquals(List.of(), lines.stream().filter(line -> line.startsWith("loaded ")).toList(), output);
        assertTrue(lines.stream().anyMatch(line -> line.contains("(a small kernel, run often)")), output);
    }
}
