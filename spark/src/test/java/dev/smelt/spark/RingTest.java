// SPDX-License-Identifier: Apache-2.0
package dev.smelt.spark;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.smelt.ir.SmeltException;
import java.io.IOException;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

/// The ring all-reduce between threads: every task ends with the same sum for 1 to 5 tasks and
/// lengths shorter and longer than the ring, and a peer that dies or hangs is a clear error within
/// the timeout, never a hang.
class RingTest {
    @Test
    void everyTaskEndsWithTheSameSum() throws Exception {
        var random = new Random(1);
        for (int tasks = 1; tasks <= 5; tasks++)
            for (int length : new int[] {1, 3, 7, 1000}) {
                var data = new float[tasks][length];
                var exact = new double[length];
                for (float[] row : data)
                    for (int i = 0; i < length; i++) {
                        row[i] = (float) random.nextGaussian();
                        exact[i] += row[i];
                    }
                run(tasks, Duration.ofSeconds(10), () -> false, (rank, ring) -> ring.sum(data[rank]));
                for (int rank = 0; rank < tasks; rank++) {
                    assertArrayEquals(data[0], data[rank], "task " + rank + " of " + tasks + ", length " + length);
                    for (int i = 0; i < length; i++) assertEquals(exact[i], data[rank][i], tasks * 1e-5);
                }
            }
    }

    @Test
    void aPeerThatDiesIsAnErrorNotAHang() {
        var e = assertTimeoutPreemptively(Duration.ofSeconds(20), () -> failure(Duration.ofSeconds(10), (rank, ring) -> {
            if (rank == 1) throw new IllegalStateException("task 1 dies");
            ring.sum(new float[100]);
        }));
        assertTrue(e.getMessage().contains("closed its connection") || e.getMessage().contains("Connection reset"), e.getMessage());
    }

    @Test
    void aPeerThatHangsIsAnErrorWithinTheTimeout() {
        var e = assertTimeoutPreemptively(Duration.ofSeconds(20), () -> failure(Duration.ofMillis(500), (rank, ring) -> {
            if (rank == 1) Thread.sleep(3000);
            else ring.sum(new float[100]);
        }));
        // Task 0 either times out itself or, when task 2 timed out first (a loaded machine
        // schedules the three tasks unevenly), sees task 2 close its connection: an error both ways.
        assertTrue(e.getMessage().contains("no answer within the timeout") || e.getMessage().contains("closed its connection"), e.getMessage());
    }

    /// Spark's kill of a task ends its wait within a poll, long before the timeout.
    @Test
    void aCancelledTaskStopsWaitingAtOnce() {
        var cancelled = new java.util.concurrent.atomic.AtomicBoolean();
        long start = System.nanoTime();
        var e = assertTimeoutPreemptively(Duration.ofSeconds(20), () -> failure(2, Duration.ofSeconds(60), () -> cancelled.get(), (rank, ring) -> {
            if (rank == 1) {
                Thread.sleep(300);
                cancelled.set(true);
                Thread.sleep(3000); // holds its connection open, sending nothing
            } else ring.sum(new float[100]);
        }));
        assertTrue(e.getMessage().contains("the task was cancelled"), e.getMessage());
        assertTrue(System.nanoTime() - start < 10e9, "stopped long before the timeout of 60 s");
    }

    interface Task {
        void run(int rank, Ring ring) throws Exception;
    }

    // The first SmeltException of `tasks` tasks running `task`.
    private static SmeltException failure(Duration timeout, Task task) { return failure(3, timeout, () -> false, task); }

    private static SmeltException failure(int tasks, Duration timeout, java.util.function.BooleanSupplier cancelled, Task task) {
        var error = assertThrows(Exception.class, () -> run(tasks, timeout, cancelled, task));
        Throwable cause = error;
        while (cause != null && !(cause instanceof SmeltException)) cause = cause.getCause();
        assertTrue(cause instanceof SmeltException, () -> "expected a SmeltException, got " + error);
        return (SmeltException) cause;
    }

    private static void run(int tasks, Duration timeout, java.util.function.BooleanSupplier cancelled, Task task) throws Exception {
        var servers = new ArrayList<ServerSocket>();
        var addresses = new ArrayList<String>();
        for (int rank = 0; rank < tasks; rank++) {
            var server = new ServerSocket(0, tasks);
            servers.add(server);
            addresses.add("localhost:" + server.getLocalPort());
        }
        ExecutorService pool = Executors.newFixedThreadPool(tasks);
        try {
            var futures = new ArrayList<Future<Void>>();
            for (int rank = 0; rank < tasks; rank++) {
                int r = rank;
                Callable<Void> body = () -> {
                    try (Ring ring = Ring.connect(r, List.copyOf(addresses), servers.get(r), timeout, cancelled)) {
                        task.run(r, ring);
                    }
                    return null;
                };
                futures.add(pool.submit(body));
            }
            Exception first = null;
            for (var future : futures)
                try {
                    future.get();
                } catch (Exception e) {
                    if (first == null || !(first.getCause() instanceof SmeltException)) first = e;
                }
            if (first != null) throw first;
        } finally {
            pool.shutdownNow();
            for (var server : servers) close(server);
        }
    }

    private static void close(ServerSocket server) {
        try {
            server.close();
        } catch (IOException ignored) {
            // the test is over
        }
    }
}
