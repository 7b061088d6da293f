// SPDX-License-Identifier: Apache-2.0
package dev.smelt.stress;

import static org.junit.jupiter.api.Assertions.fail;

import dev.smelt.Compiled;
import dev.smelt.Jit;
import dev.smelt.Tensor;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.Test;

/// Eight threads calling a few shared compiled functions at once, each function serving many
/// random programs (one per input signature), with two data sets each, through `apply`,
/// `applyAll` and `applyInto`. The threads start together on fresh functions, so first calls
/// (tracing, fusing, generating) race; in the `stress` profile each function serves more
/// signatures than it caches (64), so evictions and recompiles race too, and some programs are
/// large enough that their vector variants take over mid-run. Every result must be within the
/// derived bound of the interpreter's, computed on one thread beforehand.
class ConcurrentCallsTest {
    private static final int THREADS = 8, ARITY = 3;

    /// A program padded to [#ARITY] arguments, its two data sets and their references.
    private record Case(Program program, List<List<Tensor>> data, List<Reference> references) {}

    @Test
    void eightThreadsCallingSharedFunctionsMatchTheInterpreter() throws InterruptedException {
        int functionCount = Settings.integer("concurrentFunctions", 3), perFunction = Settings.integer("concurrentPrograms", 12);
        int calls = Settings.integer("concurrentCalls", 200);
        long first = Long.getLong("smelt.stress.firstSeed", 0);
        var functions = new ArrayList<Map<String, Case>>();
        for (int f = 0; f < functionCount; f++) functions.add(cases(first + 100_000L * f, perFunction));
        var compiled = functions.stream().map(ConcurrentCallsTest::compile).toList();
        var failures = Collections.synchronizedList(new ArrayList<String>());
        var start = new CountDownLatch(1);
        var threads = new ArrayList<Thread>();
        for (int t = 0; t < THREADS; t++) {
            var random = new Random(t);
            threads.add(Thread.ofPlatform().start(() -> {
                await(start);
                for (int call = 0; call < calls && failures.size() < 10; call++) {
                    int f = random.nextInt(functions.size());
                    var cases = new ArrayList<>(functions.get(f).values());
                    String problem = call(compiled.get(f), cases.get(random.nextInt(cases.size())), random);
                    if (problem != null) failures.add(problem);
                }
            }));
        }
        start.countDown();
        for (Thread thread : threads) thread.join();
        System.out.printf("ConcurrentCallsTest: %d threads, %d calls each over %d functions of %s programs; %d failed%n", THREADS, calls,
                functionCount, functions.stream().map(Map::size).toList(), failures.size());
        if (!failures.isEmpty()) fail(failures.size() + " calls failed, the first:\n" + String.join("\n", failures.subList(0, Math.min(3, failures.size()))));
    }

    /// Programs from consecutive seeds, one per distinct input signature (padded to [#ARITY]).
    private static Map<String, Case> cases(long firstSeed, int count) {
        var cases = new LinkedHashMap<String, Case>();
        Scale scale = Scale.mixed(0.1, 1 << 17);
        for (long seed = firstSeed; cases.size() < count; seed++) {
            Program program = ProgramGenerator.generate(seed, scale);
            var data = List.of(padded(program.data(0)), padded(program.data(1)));
            String key = signature(data.getFirst());
            if (cases.containsKey(key)) continue;
            var traced = Jit.trace(program::apply, data.getFirst().subList(0, program.arity()));
            var references = data.stream().map(set -> Reference.of(traced, set.subList(0, program.arity()))).toList();
            cases.put(key, new Case(program, data, references));
        }
        return cases;
    }

    /// One function that runs the program registered for its arguments' signature.
    private static Compiled compile(Map<String, Case> cases) {
        return Jit.compile(args -> {
            Case chosen = cases.get(signature(args));
            return chosen.program().apply(args.subList(0, chosen.program().arity()));
        }, ARITY).withRecompileLimit(Integer.MAX_VALUE);
    }

    private static String call(Compiled compiled, Case chosen, Random random) {
        int set = random.nextInt(2), mode = random.nextInt(3);
        Tensor[] arguments = chosen.data().get(set).toArray(Tensor[]::new);
        Reference expected = chosen.references().get(set);
        try {
            List<Tensor> results = switch (mode) {
                case 0 -> expected.shapes().size() == 1 ? List.of(compiled.apply(arguments)) : compiled.applyAll(arguments);
                case 1 -> compiled.applyAll(arguments);
                default -> compiled.applyInto(outputs(expected, random), arguments);
            };
            String mismatch = expected.mismatch(results);
            return mismatch == null ? null : report(chosen, set, mode, mismatch);
        } catch (RuntimeException | Error e) {
            return report(chosen, set, mode, "threw " + SeedRunner.describe(e));
        }
    }

    private static String report(Case chosen, int set, int mode, String problem) {
        return "program seed %d, data set %d, %s on %s: %s%n%s".formatted(chosen.program().seed(), set, List.of("apply", "applyAll", "applyInto").get(mode),
                Thread.currentThread().getName(), problem, chosen.program().listing());
    }

    private static List<Tensor> outputs(Reference expected, Random random) {
        var outputs = new ArrayList<Tensor>();
        for (int o = 0; o < expected.shapes().size(); o++) outputs.add(Argument.data(random, expected.dtypes().get(o), expected.shapes().get(o)));
        return outputs;
    }

    private static List<Tensor> padded(List<Tensor> arguments) {
        var padded = new ArrayList<>(arguments);
        while (padded.size() < ARITY) padded.add(Tensor.zeros(1));
        return padded;
    }

    private static String signature(List<Tensor> arguments) {
        return arguments.stream().map(argument -> argument.dtype() + argument.shape().toString()).toList().toString();
    }

    private static void await(CountDownLatch latch) {
        try {
            latch.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
