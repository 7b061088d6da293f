// SPDX-License-Identifier: Apache-2.0
package dev.smelt.benchmarks;

import dev.smelt.Compiled;
import dev.smelt.Generator;
import dev.smelt.Jit;
import dev.smelt.Tensor;
import dev.smelt.autograd.Autograd;
import dev.smelt.ir.FusionMode;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/// Compile time against program size, in a warm JVM: trace, optimise, plan, generate and define
/// every kernel, then one call on 64 elements (microseconds). Each shot compiles a program whose
/// constants are new, so that no kernel comes from the kernel cache (which keys on the kernel's
/// text, constants included). `ops` counts the operations the function records:
///
/// - `chain`: `y·c`, `y+c` alternating, each op reading the last;
/// - `sharing`: rounds of `y·sigmoid(y+c)`, each reading its value twice (compile time was
///   exponential in the rounds: 20 rounds took 106 s);
/// - `gradient`: the gradient of rounds of `s = softmax(y); y = s·b − tanh(y)·s + c` (9 ops a
///   round), whose backward reads each softmax many times; `ops` counts the forward.
///
/// Linear compile time means `ms / ops` stays within a constant factor from 10 to 10,000 ops.
/// Before its shots each fork compiles 60 programs of 100 operations, so that Smelt's own code has
/// been compiled by the JIT (a warm JVM) whatever the size measured.
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@BenchmarkMode(Mode.SingleShotTime)
@Warmup(iterations = 3)
@Measurement(iterations = 7)
@Fork(value = 1, jvmArgsAppend = {"--add-modules", "jdk.incubator.vector"})
public class CompileScaleBench {
    static final int SIZE = 64;

    /// The programs, their inputs, and a source of constants no earlier shot used.
    abstract static class Programs {
        final Tensor x = Tensor.rand(new Generator(7), SIZE).mul(0.5), b = Tensor.randn(new Generator(8), SIZE);
        private double constant = 0.5;

        double nextConstant() {
            constant = Math.nextUp(constant);
            return constant;
        }

        Compiled compile(String shape, int ops, double c) {
            return switch (shape) {
                case "chain", "sharing" -> Jit.compile(forward(shape, ops, c));
                case "gradient" -> Autograd.grad(y -> rounds(y, b, ops / 9, c).sum());
                default -> throw new IllegalArgumentException(shape);
            };
        }

        void warmUpAndCheck(String shape, int ops) {
            for (int i = 0; i < 20; i++)
                for (String each : new String[] {"chain", "sharing", "gradient"}) compile(each, 100, nextConstant()).apply(x);
            double c = nextConstant();
            if (shape.equals("gradient")) {
                var fused = compile(shape, ops, c).apply(x).toFloatArray();
                var unfused = compile(shape, ops, c).withFusion(FusionMode.NONE).apply(x).toFloatArray();
                Tolerance.ROW_REDUCTION.check("gradient fused vs one kernel per op", unfused, fused);
            } else {
                var function = forward(shape, Math.min(ops, 1000), c);
                var interpreted = Jit.trace(function, x).interpret(x).getFirst().toFloatArray();
                var tolerance = shape.equals("chain") ? Tolerance.ELEMENTWISE : Tolerance.ROW_REDUCTION;
                tolerance.check(shape + " compiled vs interpreter", interpreted, Jit.compile(function).apply(x).toFloatArray());
            }
        }

        static Jit.Function1 forward(String shape, int ops, double c) {
            return shape.equals("chain")
                    ? y -> { for (int i = 0; i < ops; i++) y = i % 2 == 0 ? y.mul(c) : y.add(c); return y; }
                    : y -> { for (int i = 0; i < ops / 3; i++) y = y.mul(y.add(c).sigmoid()); return y; };
        }

        static Tensor rounds(Tensor y, Tensor b, int rounds, double c) {
            for (int i = 0; i < rounds; i++) {
                Tensor s = y.softmax(0);
                y = s.mul(b).sub(y.tanh().mul(s)).add(c);
            }
            return y;
        }
    }

    @State(Scope.Benchmark)
    public static class Forward extends Programs {
        @Param({"10", "100", "1000", "10000"})
        public int ops;

        @Param({"chain", "sharing"})
        public String shape;

        @Setup
        public void kernelsAgree() { warmUpAndCheck(shape, ops); }
    }

    @Benchmark
    public Tensor forward(Forward program) {
        return program.compile(program.shape, program.ops, program.nextConstant()).apply(program.x);
    }

    /// Gradients, to 1,000 operations of the forward (111 rounds): their backward is several times larger.
    @State(Scope.Benchmark)
    public static class Gradient extends Programs {
        @Param({"10", "100", "1000"})
        public int ops;

        @Setup
        public void kernelsAgree() { warmUpAndCheck("gradient", ops); }
    }

    @Benchmark
    public Tensor gradient(Gradient program) {
        return program.compile("gradient", program.ops, program.nextConstant()).apply(program.x);
    }

    /// The three programs the compile-time issue names, each to compile in under 100 ms: a
    /// hand-written tanh-GELU stacked 9 times (81 ops), `y = y·sigmoid(y)` 20 times, and the gradient
    /// of 8 rounds of `s = softmax(x); x = s·b − tanh(x)·s` on a 6-element vector.
    @State(Scope.Benchmark)
    public static class Named {
        @Param({"gelu9", "sigmoid20", "softmaxTanhGradient8"})
        public String program;

        Tensor x, b;
        private double constant = 0.044715;

        Compiled compile() {
            double c = constant = Math.nextUp(constant);
            return switch (program) {
                case "gelu9" -> Jit.compile(y -> { for (int i = 0; i < 9; i++) y = gelu(y, c); return y; });
                case "sigmoid20" -> Jit.compile(y -> { for (int i = 0; i < 20; i++) y = y.mul(y.sigmoid()); return y.add(c); });
                case "softmaxTanhGradient8" -> Autograd.grad(y -> Programs.rounds(y, b, 8, c - 0.044715).sum());
                default -> throw new IllegalArgumentException(program);
            };
        }

        static Tensor gelu(Tensor x, double c) {
            Tensor inner = x.add(x.mul(x).mul(x).mul(c)).mul(0.7978845608);
            return x.mul(0.5).mul(inner.tanh().add(1));
        }

        @Setup
        public void kernelsAgree() {
            var generator = new Generator(11);
            x = Tensor.randn(generator, program.equals("softmaxTanhGradient8") ? 6 : SIZE);
            b = Tensor.randn(generator, 6);
            var compiled = compile();
            var unfused = compiled.withFusion(FusionMode.NONE).apply(x).toFloatArray();
            Tolerance.ROW_REDUCTION.check(program + " fused vs one kernel per op", unfused, compiled.apply(x).toFloatArray());
        }
    }

    /// Thirty shots of warm-up: each program alone warms the JIT for its own shots.
    @Benchmark
    @Warmup(iterations = 30)
    @Measurement(iterations = 20)
    public Tensor named(Named named) {
        return named.compile().apply(named.x);
    }
}
