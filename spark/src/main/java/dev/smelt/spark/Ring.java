// SPDX-License-Identifier: Apache-2.0
package dev.smelt.spark;

import dev.smelt.ir.SmeltException;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BooleanSupplier;

/// A ring all-reduce over plain sockets between the `n` tasks of a barrier stage: each task sends
/// to the next and receives from the previous. [#sum] is the textbook two phases over `n` chunks:
/// `n-1` steps of reduce-scatter (each adds the chunk it receives to its own), after which task `r`
/// holds the whole sum of chunk `r+1`, then `n-1` steps of all-gather that copy each finished chunk
/// around the ring. Each chunk is summed once, on one task, and copied bit for bit to the others,
/// so every replica ends with identical values. Each task sends `2(n-1)/n` of the data and
/// receives as much, whatever `n` is.
///
/// Every wait is bounded by the timeout: a peer that dies closes its socket (an end of stream
/// here), and one that hangs is a read that times out; both are a [SmeltException] naming the
/// peer, which fails the task, and Spark restarts the barrier stage as a whole.
final class Ring implements AutoCloseable {
    private static final int HELLO = 0x534D4C54; // "SMLT"
    // How often a wait looks up from its socket to see whether the task was cancelled.
    private static final int POLL_MILLIS = 200;
    private final int rank, size;
    private final Duration timeout;
    private final BooleanSupplier cancelled;
    private final Socket next, previous;
    private final DataOutputStream out;
    private final InputStream in;
    private final ExecutorService sender;
    private byte[] bytes = new byte[0];
    private byte[] received = new byte[0];

    private Ring(int rank, int size, Duration timeout, BooleanSupplier cancelled, Socket next, Socket previous) throws IOException {
        this.rank = rank;
        this.size = size;
        this.timeout = timeout;
        this.cancelled = cancelled;
        this.next = next;
        this.previous = previous;
        this.out = next == null ? null : new DataOutputStream(new BufferedOutputStream(next.getOutputStream(), 1 << 16));
        // Unbuffered: a read that times out leaves the stream as it was, so it can be retried.
        this.in = previous == null ? null : previous.getInputStream();
        this.sender = Executors.newSingleThreadExecutor(Thread.ofPlatform().daemon().name("smelt-ring-send-" + rank).factory());
    }

    /// Task `rank`'s place in the ring of `addresses` (`host:port`, by rank): it connects to the
    /// next task's listening `server` socket and accepts the previous one's connection on its own.
    /// Every wait also ends, a few times a second, when `cancelled` says so (Spark's kill of the task).
    static Ring connect(int rank, List<String> addresses, ServerSocket server, Duration timeout, BooleanSupplier cancelled) {
        int size = addresses.size();
        int millis = (int) Math.min(Integer.MAX_VALUE, timeout.toMillis());
        if (size == 1) {
            try {
                return new Ring(rank, 1, timeout, cancelled, null, null);
            } catch (IOException e) {
                throw failure(rank, "set up", e);
            }
        }
        Socket next = null, previous = null;
        try {
            String target = addresses.get((rank + 1) % size);
            int colon = target.lastIndexOf(':');
            next = new Socket();
            next.setTcpNoDelay(true);
            next.connect(new InetSocketAddress(target.substring(0, colon), Integer.parseInt(target.substring(colon + 1))), millis);
            next.setSoTimeout(millis);
            var hello = new DataOutputStream(next.getOutputStream());
            hello.writeInt(HELLO);
            hello.writeInt(rank);
            hello.flush();
            server.setSoTimeout(POLL_MILLIS);
            long deadline = System.nanoTime() + timeout.toNanos();
            while (previous == null)
                try {
                    previous = server.accept();
                } catch (SocketTimeoutException e) {
                    checkWaiting(cancelled, deadline, timeout);
                }
            previous.setTcpNoDelay(true);
            previous.setSoTimeout(millis);
            var greeting = new DataInputStream(previous.getInputStream());
            int magic = greeting.readInt(), from = greeting.readInt(); // sent right after connecting
            previous.setSoTimeout(POLL_MILLIS);
            int expected = (rank + size - 1) % size;
            if (magic != HELLO || from != expected)
                throw SmeltException.of("all-reduce", "task %d expected task %d to connect, but a connection said %08x/%d", rank, expected, magic, from);
            return new Ring(rank, size, timeout, cancelled, next, previous);
        } catch (IOException e) {
            closeQuietly(next);
            closeQuietly(previous);
            throw failure(rank, "connect the ring of " + addresses, e);
        }
    }

    /// Replaces `data` on every task by the element-wise sum of all tasks' `data`, which must have
    /// the same length everywhere.
    void sum(float[] data) {
        if (size == 1) return;
        int n = size;
        try {
            for (int step = 0; step < n - 1; step++) {
                int send = Math.floorMod(rank - step, n), receive = Math.floorMod(rank - step - 1, n);
                exchange(data, send, receive, true);
            }
            for (int step = 0; step < n - 1; step++) {
                int send = Math.floorMod(rank - step + 1, n), receive = Math.floorMod(rank - step, n);
                exchange(data, send, receive, false);
            }
        } catch (IOException e) {
            throw failure(rank, "exchange gradients with its neighbours in the ring of " + n, e);
        }
    }

    // Sends chunk `send` to the next task while receiving chunk `receive` from the previous one,
    // then adds it into `data` (or copies it there).
    private void exchange(float[] data, int send, int receive, boolean add) throws IOException {
        int from = chunkStart(data.length, send), to = chunkStart(data.length, send + 1);
        int length = (to - from) * Float.BYTES;
        if (bytes.length < length) bytes = new byte[length];
        ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN).asFloatBuffer().put(data, from, to - from);
        byte[] outgoing = bytes;
        Future<?> sent = sender.submit(() -> {
            out.writeInt(length);
            out.write(outgoing, 0, length);
            out.flush();
            return null;
        });
        int start = chunkStart(data.length, receive), end = chunkStart(data.length, receive + 1);
        int expected = (end - start) * Float.BYTES;
        if (received.length < Math.max(expected, Integer.BYTES)) received = new byte[Math.max(expected, Integer.BYTES)];
        readFully(received, Integer.BYTES);
        int announced = ByteBuffer.wrap(received, 0, Integer.BYTES).getInt();
        if (announced != expected)
            throw SmeltException.of("all-reduce", "task %d received %d bytes for chunk %d, expected %d: the tasks' gradients differ in size", rank, announced, receive, expected);
        readFully(received, expected);
        var floats = ByteBuffer.wrap(received, 0, expected).order(ByteOrder.LITTLE_ENDIAN).asFloatBuffer();
        if (add) for (int i = start; i < end; i++) data[i] += floats.get(i - start);
        else floats.get(data, start, end - start);
        awaitSend(sent); // `bytes` is free for the next exchange only once sent
    }

    // The first `length` bytes of the previous task's next message into `buffer`.
    private void readFully(byte[] buffer, int length) throws IOException {
        long deadline = System.nanoTime() + timeout.toNanos();
        for (int at = 0; at < length; ) {
            try {
                int read = in.read(buffer, at, length - at);
                if (read < 0) throw new EOFException();
                at += read;
                deadline = System.nanoTime() + timeout.toNanos(); // the peer is alive: the wait starts again
            } catch (SocketTimeoutException e) {
                checkWaiting(cancelled, deadline, timeout);
            }
        }
    }

    private void awaitSend(Future<?> sent) throws IOException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true)
            try {
                sent.get(POLL_MILLIS, TimeUnit.MILLISECONDS);
                return;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IOException("interrupted while sending", e);
            } catch (TimeoutException e) {
                try {
                    checkWaiting(cancelled, deadline, timeout);
                } catch (IOException stop) {
                    sent.cancel(true);
                    throw stop;
                }
            } catch (ExecutionException e) {
                throw e.getCause() instanceof IOException io ? io : new IOException(e.getCause());
            }
    }

    // After a poll found nothing: stop if the task was cancelled or the whole wait took too long.
    private static void checkWaiting(BooleanSupplier cancelled, long deadline, Duration timeout) throws IOException {
        if (cancelled.getAsBoolean()) throw new InterruptedIOException("the task was cancelled");
        if (System.nanoTime() > deadline) throw new SocketTimeoutException("nothing arrived for " + timeout);
    }

    // Chunk `chunk` of `n` is [chunkStart(chunk), chunkStart(chunk + 1)).
    private int chunkStart(int length, int chunk) { return (int) ((long) length * chunk / size); }

    @Override
    public void close() {
        sender.shutdownNow();
        closeQuietly(next);
        closeQuietly(previous);
    }

    private static void closeQuietly(Socket socket) {
        if (socket == null) return;
        try {
            socket.close();
        } catch (IOException ignored) {
            // closing after a failure: the failure is what is reported
        }
    }

    private static SmeltException failure(int rank, String what, IOException cause) {
        String reason = switch (cause) {
            case SocketTimeoutException e -> "no answer within the timeout (" + e.getMessage() + "): a peer hangs or its executor was lost";
            case EOFException _ -> "a peer closed its connection: its task failed or its executor was lost";
            case InterruptedIOException e when !(e instanceof SocketTimeoutException) -> e.getMessage();
            default -> cause.toString();
        };
        var error = SmeltException.of("all-reduce", "task %d could not %s: %s", rank, what, reason);
        error.initCause(cause);
        return error;
    }
}
