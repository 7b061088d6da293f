// SPDX-License-Identifier: Apache-2.0
package dev.smelt.golden;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.smelt.Compiled;
import dev.smelt.Generator;
import dev.smelt.Jit;
import dev.smelt.Tensor;
import dev.smelt.fusion.Machine;
import dev.smelt.nn.Activations;
import dev.smelt.nn.Linear;
import dev.smelt.nn.Sequential;
import dev.smelt.optim.Adam;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/// Process replay: the kernels a fixed corpus of programs compiles to (graph, each kernel's fused
/// nodes and kernel IR, the planner's decisions with their estimates, the memory plan) are checked
/// in under `src/test/resources/golden`. A change that alters what is generated shows as a diff of
/// those files in review; an intended change regenerates them in the same commit with
/// `mvn -pl autograd -am test -Dtest=GoldenKernelsTest -Dgolden.update=true -Dsurefire.failIfNoSpecifiedTests=false`.
/// Which variant runs (scalar or vector, the matmul's blocking) depends on the machine and on
/// timing and is left out; the cost model's register budget follows the vector width, so the files
/// are those of an AVX-512 machine and the test is skipped on others.
class GoldenKernelsTest {
    private static final Path DIRECTORY = Path.of("src/test/resources/golden");

    static Stream<Arguments> corpus() {
        return Stream.of(
                program("six-op-chain", () -> {
                    Tensor x = random(1, 256, 512), y = random(2, 256, 512);
                    Compiled f = Jit.compile((Tensor a, Tensor b) -> a.sin().mul(b.cos()).add(a).mul(b).relu());
                    f.apply(x, y);
                    return f.explain();
                }),
                program("matmul-bias-relu", () -> {
                    Tensor x = random(3, 128, 784), w = random(4, 784, 256), b = random(5, 256);
                    Compiled f = Jit.compile((Tensor p, Tensor q, Tensor r) -> p.matmul(q).add(r).relu());
                    f.apply(x, w, b);
                    return f.explain();
                }),
                program("unused-matmul", () -> {
                    Tensor x = random(6, 64, 128), g0 = random(7, 128, 256), g1 = random(8, 128, 256), l = random(9, 256, 128);
                    Compiled f = Jit.compile(args -> {
                        Tensor y = args.get(0).matmul(args.get(1)), z = args.get(0).matmul(args.get(2)); // z is never used
                        return List.of(y.relu().matmul(args.get(3)));
                    }, 4);
                    f.apply(x, g0, g1, l);
                    return f.explain();
                }),
                program("softmax", () -> {
                    Compiled f = Jit.compile((Tensor a) -> a.softmax(-1));
                    f.apply(random(10, 64, 1000));
                    return f.explain();
                }),
                program("layer-norm", () -> {
                    Compiled f = Jit.compile((Tensor a, Tensor w, Tensor b) -> a.layerNorm(new int[] {768}, w, b, 1e-5));
                    f.apply(random(11, 64, 768), random(12, 768), random(13, 768));
                    return f.explain();
                }),
                program("attention", () -> {
                    Compiled f = Jit.compile((Tensor q, Tensor k, Tensor v) -> Tensor.scaledDotProductAttention(q, k, v, true));
                    f.apply(random(14, 2, 4, 33, 16), random(15, 2, 4, 33, 16), random(16, 2, 4, 33, 16));
                    return f.explain();
                }),
                program("einsum-heads-last", () -> {
                    Compiled f = Jit.compile((Tensor a, Tensor b) -> Tensor.einsum("tdh,hde->hte", a, b));
                    f.apply(random(17, 64, 96, 4), random(18, 4, 96, 32));
                    return f.explain();
                }),
                program("mlp-adam-step", () -> {
                    var generator = new Generator(19);
                    var model = new Sequential(new Linear(64, 128, generator), new Activations.ReLU(), new Linear(128, 10, generator));
                    var step = new Adam(model.parameters(), 1e-3).compile((x, y) -> model.forward(x).crossEntropy(y));
                    int[] labels = new int[32];
                    for (int i = 0; i < labels.length; i++) labels[i] = i % 10;
                    step.apply(random(20, 32, 64), Tensor.of(labels));
                    return step.explain();
                }));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("corpus")
    void kernelsAreThoseCheckedIn(String name, Supplier<String> explain) throws IOException {
        assumeTrue(Machine.CURRENT.vectorBits() == 512, "golden files are an AVX-512 machine's");
        String text = stable(explain.get());
        Path file = DIRECTORY.resolve(name + ".txt");
        if (Boolean.getBoolean("golden.update")) Files.writeString(file, text);
        assertEquals(Files.readString(file), text, name + ": the generated kernels changed; if intended, rerun with -Dgolden.update=true and commit " + file);
    }

    // `explain()` without which variant runs now (machine and timing), the threads (the machine's
    // cores) or the profile.
    static String stable(String explain) {
        return explain.lines().filter(line -> !line.startsWith("  time: ") && !line.startsWith("threads: ")).map(line -> line.replaceFirst("^(  reads [\\d,]+ B, writes [\\d,]+ B); runs .*$", "$1"))
                .reduce(new StringBuilder(), (text, line) -> text.append(line).append('\n'), StringBuilder::append).toString();
    }

    private static Arguments program(String name, Supplier<String> explain) { return Arguments.of(name, explain); }

    private static Tensor random(long seed, int... shape) { return Tensor.randn(new Generator(seed), shape); }
}
