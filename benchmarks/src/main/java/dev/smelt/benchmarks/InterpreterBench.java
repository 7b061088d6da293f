// SPDX-License-Identifier: Apache-2.0
package dev.smelt.benchmarks;

import dev.smelt.ir.BinaryOp;
import dev.smelt.ir.DType;
import dev.smelt.ir.Graph;
import dev.smelt.ir.Node;
import dev.smelt.ir.Node.Binary;
import dev.smelt.ir.Node.Unary;
import dev.smelt.ir.Shape;
import dev.smelt.ir.Storage;
import dev.smelt.ir.UnaryOp;
import dev.smelt.ref.Interpreter;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/// The reference interpreter on `relu((sin(x)·cos(y) + x)·y)` over two f32[2²⁰] inputs: the unfused
/// baseline that compiled kernels are measured against, next to the same formula as a plain Java loop.
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = {"--add-modules", "jdk.incubator.vector"}) // every fork: kernels use the Vector API
public class InterpreterBench {
    static final int SIZE = 1 << 20;
    static final long SEED = 42;

    Graph graph;
    List<Storage> inputs;
    float[] x, y, out;

    /// Builds the graph and its inputs, and refuses to time an interpreter that disagrees with [#plainLoop].
    @Setup
    public void kernelsAgree() {
        var a = new Node.Input(0, Shape.of(SIZE), DType.F32);
        var b = new Node.Input(1, Shape.of(SIZE), DType.F32);
        var sinCos = new Binary(BinaryOp.MUL, new Unary(UnaryOp.SIN, a), new Unary(UnaryOp.COS, b));
        var body = new Unary(UnaryOp.RELU, new Binary(BinaryOp.MUL, new Binary(BinaryOp.ADD, sinCos, a), b));
        graph = new Graph(List.of(a, b), List.of(body));
        var random = new SplittableRandom(SEED);
        x = new float[SIZE];
        y = new float[SIZE];
        out = new float[SIZE];
        for (int i = 0; i < SIZE; i++) {
            x[i] = (float) random.nextDouble(-4, 4);
            y[i] = (float) random.nextDouble(-4, 4);
        }
        inputs = List.of(Storage.wrap(x), Storage.wrap(y));
        float[] interpreted = Interpreter.run(graph, inputs).getFirst().floats();
        plainLoop();
        // Exact: the interpreter rounds each op to f32, as this loop does, and sin/cos are Math's.
        for (int i = 0; i < SIZE; i++)
            if (Float.floatToIntBits(interpreted[i]) != Float.floatToIntBits(out[i]))
                throw new AssertionError("element %d (x=%s, y=%s): interpreter %s, plain loop %s"
                        .formatted(i, x[i], y[i], interpreted[i], out[i]));
    }

    @Benchmark
    public List<Storage> interpreter() {
        return Interpreter.run(graph, inputs);
    }

    /// The same formula written by hand: the floor that a fused kernel without SIMD would reach.
    @Benchmark
    public float[] plainLoop() {
        for (int i = 0; i < SIZE; i++) {
            float sinCos = (float) Math.sin(x[i]) * (float) Math.cos(y[i]);
            out[i] = Math.max((sinCos + x[i]) * y[i], 0f); // relu; Math.max keeps NaN and turns -0 into +0
        }
        return out;
    }
}
