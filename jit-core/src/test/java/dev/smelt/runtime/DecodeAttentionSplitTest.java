// SPDX-License-Identifier: Apache-2.0
package dev.smelt.runtime;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.smelt.Jit;
import dev.smelt.Tensor;
import dev.smelt.fusion.FusionPlanner;
import dev.smelt.ir.DType;
import dev.smelt.ir.Graph;
import dev.smelt.ir.Storage;
import dev.smelt.kernel.AttentionKernel;
import dev.smelt.kernel.Schedule;
import dev.smelt.ref.Interpreter;
import dev.smelt.testing.GraphTolerance;
import dev.smelt.testing.Programs;
import dev.smelt.testing.VectorOnly;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/// A decode step's attention (one query per head over the first rows of a KV cache, masked past
/// its position), which a ready worker now shares over the heads: split over threads it gives the
/// bits one thread gives, and the reference interpreter's values within the graph's tolerance.
class DecodeAttentionSplitTest {
    static LongStream seeds() { return LongStream.range(0, 24); }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void decodeAttentionSplitOverHeadsEqualsOneThreadAndTheInterpreter(long seed) {
        var random = new Random(seed * 0x9E3779B97F4A7C15L);
        int kvHeads = 1 + random.nextInt(4), heads = kvHeads * (1 + random.nextInt(3)), depth = new int[] {1, 7, 16, 48, 65}[random.nextInt(5)];
        int cache = 1 + random.nextInt(130), bucket = 1 + random.nextInt(cache), position = random.nextInt(bucket);
        String description = "%d heads, %d kv heads, depth %d, cache %d, bucket %d, position %d".formatted(heads, kvHeads, depth, cache, bucket, position);
        var examples = List.of(Tensor.zeros(heads, 1, depth), Tensor.zeros(kvHeads, cache, depth), Tensor.zeros(kvHeads, cache, depth), Tensor.zeros(DType.I32));
        Graph graph = Jit.trace(a -> List.of(Tensor.scaledDotProductAttention(a.get(0), a.get(1).slice(1, 0, bucket), a.get(2).slice(1, 0, bucket),
                Tensor.arange(bucket).le(a.get(3)).reshape(1, bucket))), examples).graph();
        Schedule schedule = FusionPlanner.plan(graph);
        assertTrue(schedule.launches().stream().anyMatch(l -> l.kernel() instanceof AttentionKernel), () -> description + ": no fused attention in\n" + schedule);

        var inputs = new ArrayList<Storage>();
        for (int i = 0; i < 3; i++) {
            var storage = Storage.allocate(DType.F32, graph.inputs().get(i).shape().size());
            for (int e = 0; e < storage.size(); e++) storage.set(e, random.nextGaussian());
            inputs.add(storage);
        }
        inputs.add(Storage.wrap(new int[] {position}));
        var expected = Interpreter.run(graph, inputs);
        var bounds = Interpreter.run(GraphTolerance.bounds(graph), inputs);
        var one = Programs.of(schedule, VectorOnly::compile, new Executor(1)).run(inputs);
        for (int threads : new int[] {2, 3}) {
            var split = Programs.of(schedule, VectorOnly::compile, new Executor(threads, 0)).run(inputs); // split however small
            assertArrayEquals((float[]) one.getFirst().array(), (float[]) split.getFirst().array(), () -> description + ": one thread against " + threads);
        }
        for (int i = 0; i < expected.getFirst().size(); i++) {
            String mismatch = GraphTolerance.mismatch(expected.getFirst().get(i), one.getFirst().get(i), bounds.getFirst().get(i));
            if (mismatch != null) fail("%s: element %d: reference %s, compiled %s: %s".formatted(description, i, expected.getFirst().get(i), one.getFirst().get(i), mismatch));
        }
    }

    /// One query over a stories15M layer's cache (6 heads, 128 keys of 48) streams 295 KB: worth a
    /// ready worker (its products alone would say 2,304 units); a training step's attention is
    /// still sized by its products.
    @Test
    void aDecodeStepsAttentionIsSizedByTheCacheItReads() {
        var decode = attention(1, 128);
        assertEquals(6L * 128 * 96 / 3, decode.work());
        assertTrue(decode.work() >= Executor.READY_THRESHOLD && decode.work() < Executor.PARALLEL_THRESHOLD, () -> "work " + decode.work());
        var training = attention(128, 128);
        assertEquals(training.flops() / 64, training.work());
    }

    private static AttentionKernel attention(int tokens, int sources) {
        Graph graph = Jit.trace(a -> List.of(Tensor.scaledDotProductAttention(a.get(0), a.get(1), a.get(2), false)),
                List.of(Tensor.zeros(6, tokens, 48), Tensor.zeros(6, sources, 48), Tensor.zeros(6, sources, 48))).graph();
        return FusionPlanner.plan(graph).launches().stream().map(l -> l.kernel()).filter(k -> k instanceof AttentionKernel)
                .map(k -> (AttentionKernel) k).findFirst().orElseThrow(() -> new AssertionError("no fused attention"));
    }
}
