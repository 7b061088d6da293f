// SPDX-License-Identifier: Apache-2.0
package dev.smelt.runtime;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.smelt.ir.BinaryOp;
import dev.smelt.ir.DType;
import dev.smelt.ir.ReduceOp;
import dev.smelt.ir.Shape;
import dev.smelt.ir.UnaryOp;
import dev.smelt.kernel.Expr;
import dev.smelt.kernel.IndexMap;
import dev.smelt.kernel.Kernel;
import dev.smelt.kernel.KernelFunction;
import dev.smelt.kernel.KernelInterpreter;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.Test;

/// Large kernels split their rows across threads; the result must not depend on the split.
class ExecutorTest {
    @Test
    void aLargePointwiseKernelSplitAcrossThreadsEqualsOneThread() {
        int n = 2 * Executor.PARALLEL_THRESHOLD + 3;
        var space = Shape.of(n);
        var input = new Kernel.Input(DType.F32, n, IndexMap.contiguous(space));
        var value = new Expr.Unary(UnaryOp.SIN, new Expr.Load(0, DType.F32));
        var kernel = new Kernel(space, 0, List.of(input), List.of(), List.of(new Kernel.Output(value, n, IndexMap.contiguous(space), false)));
        assertSplitsAgree(kernel, n, n);
    }

    @Test
    void aLargeRowKernelSplitsByRows() {
        int rows = 2 * Executor.PARALLEL_THRESHOLD / 517 + 1, columns = 517;
        var space = Shape.of(rows, columns);
        var input = new Kernel.Input(DType.F32, rows * columns, IndexMap.contiguous(space));
        var sum = new Kernel.Reduction(ReduceOp.SUM, new Expr.Load(0, DType.F32));
        var scaled = new Expr.Binary(BinaryOp.DIV, new Expr.Load(0, DType.F32), new Expr.Accumulated(0, DType.F32));
        var kernel = new Kernel(space, 1, List.of(input), List.of(sum), List.of(new Kernel.Output(scaled, rows * columns, IndexMap.contiguous(space), false)));
        assertSplitsAgree(kernel, rows * columns, rows * columns);
    }

    private static void assertSplitsAgree(Kernel kernel, int inputSize, int outputSize) {
        float[] in = new float[inputSize];
        for (int i = 0; i < in.length; i++) in[i] = (float) Math.sin(i * 0.37) + 1;
        float[] alone = new float[outputSize], split = new float[outputSize];
        Set<String> threads = ConcurrentHashMap.newKeySet();
        KernelFunction interpreter = new KernelInterpreter(kernel);
        KernelFunction recording = (buffers, start, end) -> {
            threads.add(Thread.currentThread().getName());
            interpreter.run(buffers, start, end);
        };
        Executor.sequential().run(recording, new Object[] {in, alone}, kernel);
        assertEquals(1, threads.size());
        threads.clear();
        new Executor(2).run(recording, new Object[] {in, split}, kernel);
        assertEquals(2, threads.size(), "the kernel should run on two threads: " + threads);
        assertArrayEquals(alone, split);
    }
}
