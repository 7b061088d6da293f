// SPDX-License-Identifier: Apache-2.0
package dev.smelt.codegen;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.smelt.testing.RandomData;
import dev.smelt.testing.RandomKernels;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.LongStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/// Differential tests on [RandomKernels]: every variant of every kernel against the interpreter.
class KernelEmitterRandomTest {
    static final int KERNELS = 400;
    private static final AtomicReference<Differential.Counts> VECTOR_COUNTS = new AtomicReference<>(new Differential.Counts(0, 0, 0));

    static LongStream seeds() { return LongStream.range(0, KERNELS); }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void scalarKernelsStayWithinTolerance(long seed) {
        var kernel = RandomKernels.generate(seed);
        Differential.check(seed, kernel, RandomData.buffers(seed, kernel), Variant.SCALAR);
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void vectorKernelsStayWithinTolerance(long seed) {
        var kernel = RandomKernels.generate(seed);
        var counts = Differential.check(seed, kernel, RandomData.buffers(seed, kernel), Variant.VECTOR);
        VECTOR_COUNTS.accumulateAndGet(counts, Differential.Counts::plus);
    }

    /// A tiered kernel switches from scalar to vector code while it runs, so the two must agree to
    /// the bit, whatever the machine's width.
    @ParameterizedTest(name = "seed {0}, {1} lanes")
    @MethodSource("agreementSeeds")
    void variantsGiveTheSameBits(long seed, int lanes) {
        var kernel = RandomKernels.generate(seed);
        Differential.agree(seed, kernel, RandomData.buffers(seed, kernel), lanes);
    }

    static Stream<Arguments> agreementSeeds() {
        return LongStream.range(0, KERNELS).boxed().flatMap(seed -> Stream.of(Arguments.of(seed, 0), Arguments.of(seed, seed % 2 == 0 ? 4 : 8)));
    }

    /// Narrower vectors, as on AVX2 or NEON hosts: 4 lanes leave `bool` buffers without a byte
    /// species (32 bits), so those loops run scalar; 8 lanes put `f64` kernels in 512-bit vectors.
    @ParameterizedTest(name = "seed {0}, {1} lanes")
    @MethodSource("narrowSeeds")
    void vectorKernelsOfOtherWidthsStayWithinTolerance(long seed, int lanes) {
        var kernel = RandomKernels.generate(seed);
        Differential.check(seed, kernel, RandomData.buffers(seed, kernel), Variant.VECTOR, lanes);
    }

    static Stream<Arguments> narrowSeeds() {
        return LongStream.range(0, KERNELS / 2).boxed().flatMap(seed -> Stream.of(Arguments.of(seed, 4), Arguments.of(seed, 8)));
    }

    /// The bounds must leave most elements checked, or the vector test proves little.
    @AfterAll
    static void mostVectorElementsAreChecked() {
        var counts = VECTOR_COUNTS.get();
        long total = counts.exact() + counts.bounded() + counts.unbounded();
        System.out.printf("vector elements: %d exact, %d within a bound, %d unbounded%n", counts.exact(), counts.bounded(), counts.unbounded());
        assertTrue(total == 0 || counts.unbounded() < total / 10, "too many elements the bounds do not check: " + counts);
    }
}
