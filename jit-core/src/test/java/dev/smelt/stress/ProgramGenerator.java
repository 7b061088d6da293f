// SPDX-License-Identifier: Apache-2.0
package dev.smelt.stress;

import dev.smelt.Jit;
import dev.smelt.Tensor;
import dev.smelt.ir.DType;
import dev.smelt.ir.Shape;
import dev.smelt.stress.Program.Constant;
import dev.smelt.stress.Program.Step;
import dev.smelt.stress.Program.Value;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.function.Predicate;

/// Random programs over the public `Tensor` API, the same for the same seed.
///
/// The generator runs inside a trace: each call it picks is applied at once to the symbolic
/// values, whose shapes and dtypes then guide the next pick, so every program is valid by
/// construction (an exception here is a generator bug or an API regression, and fails the
/// test). A call whose result would exceed the scale's element budget is dropped. Operands are
/// mostly among the newest values, so chains form, and otherwise anywhere, so values fan out;
/// partners for binary calls are found among the values (broadcasting when shapes allow), made
/// from the operand (a slice, a reduction with keepDims, a transpose) or read from the closure
/// as a constant, which tracing turns into an extra input.
public final class ProgramGenerator {
    final Random random;
    final Scale scale;
    private final List<Tensor> pool = new ArrayList<>();
    private final List<Step> steps = new ArrayList<>();
    private final List<Constant> constants = new ArrayList<>();
    private final Set<Integer> used = new HashSet<>();
    private final Family family;

    /// Which calls a program may use: all of them, or those with derivatives almost everywhere.
    public enum Family { ALL, DIFFERENTIABLE }

    private ProgramGenerator(Random random, Scale scale, Family family) {
        this.random = random;
        this.scale = scale;
        this.family = family;
    }

    public static Program generate(long seed, Scale scale) { return generate(seed, scale, Family.ALL); }

    public static Program generate(long seed, Scale scale, Family family) {
        var random = Program.random(seed, 0);
        Scale chosen = scale.pick(random);
        List<Argument> arguments = chosen.arguments(random, family);
        var generator = new ProgramGenerator(random, chosen, family);
        var examples = arguments.stream().map(argument -> Tensor.zeros(argument.dtype(), argument.shape().toArray())).toList();
        var results = new ArrayList<Integer>();
        Jit.trace(symbolic -> {
            results.addAll(generator.build(symbolic));
            return List.of(generator.pool.getLast());
        }, examples);
        return new Program(seed, arguments, generator.constants, generator.steps, results);
    }

    private List<Integer> build(List<Tensor> arguments) {
        pool.addAll(arguments);
        int count = 1 + random.nextInt(scale.maxSteps());
        for (int attempt = 0; steps.size() < count && attempt < 4 * count; attempt++) {
            if (family == Family.DIFFERENTIABLE) SmoothCalls.any(this);
            else anyCall();
        }
        if (family == Family.DIFFERENTIABLE) return List.of(SmoothCalls.loss(this, unused(arguments.size())));
        return results(arguments.size());
    }

    private void anyCall() {
        int roll = random.nextInt(100);
        if (roll < 16) ElementwiseCalls.unary(this);
        else if (roll < 33) ElementwiseCalls.binary(this);
        else if (roll < 42) ElementwiseCalls.scalar(this);
        else if (roll < 47) ElementwiseCalls.where(this);
        else if (roll < 51) ElementwiseCalls.cast(this);
        else if (roll < 61) ReductionCalls.reduce(this);
        else if (roll < 76) ViewCalls.view(this);
        else if (roll < 79) ViewCalls.concat(this);
        else if (roll < 85) ReductionCalls.matmul(this);
        else if (roll < 91) ReductionCalls.composite(this);
        else if (roll < 96) IndexCalls.index(this);
        else ModelCalls.any(this);
    }

    /// Up to three values that no step reads (newest first), sometimes one more from anywhere.
    private List<Integer> results(int arity) {
        var results = new ArrayList<>(unused(arity).stream().limit(3).toList());
        if (results.isEmpty() || random.nextInt(10) == 0) results.add(random.nextInt(pool.size()));
        return results;
    }

    /// The values no step reads, newest first, arguments left out.
    private List<Integer> unused(int arity) {
        var unused = new ArrayList<Integer>();
        for (int i = pool.size() - 1; i >= arity; i--) if (!used.contains(i)) unused.add(i);
        return unused;
    }

    // ---- what the call families use ----

    /// Applies `method` to the symbolic values and keeps it, returning its value's index; -1 (and
    /// nothing kept) when the result would exceed the element budget.
    int call(String method, Object... arguments) { return keep(new Step(method, false, List.of(arguments), -1)); }

    int callStatic(String method, Object... arguments) { return keep(new Step(method, true, List.of(arguments), -1)); }

    /// The tensor at `part` of a call that returns several (`split`, `chunk`, `topk`).
    int callPart(int part, String method, Object... arguments) { return keep(new Step(method, false, List.of(arguments), part)); }

    private int keep(Step step) {
        Tensor result = step.apply(pool);
        if (!fits(result.shape())) return -1;
        steps.add(step);
        pool.add(result);
        for (Object argument : step.arguments()) {
            if (argument instanceof Value(int index)) used.add(index);
            if (argument instanceof Program.Values(var indices)) used.addAll(indices);
        }
        return pool.size() - 1;
    }

    /// Whether a value of `shape` is within the element budget: a call past it is dropped, so a
    /// family need not make one (past `Tensor.MAX_SIZE` the API refuses it outright).
    boolean fits(Shape shape) { return shape.count() <= scale.maxElements(); }

    /// Whether the program is to be differentiated: its calls smooth almost everywhere, its values f64.
    boolean smooth() { return family == Family.DIFFERENTIABLE; }

    Shape shape(int index) { return pool.get(index).shape(); }

    DType dtype(int index) { return pool.get(index).dtype(); }

    int size() { return pool.size(); }

    /// Mostly one of the three newest values, so that chains form; otherwise any, for fan-out.
    int pick() { return random.nextBoolean() ? pool.size() - 1 - random.nextInt(Math.min(3, pool.size())) : random.nextInt(pool.size()); }

    /// A value (from a random starting point) whose shape `fits`, skipping each with chance ¼; -1 if none.
    int find(Predicate<Integer> fits) {
        int start = random.nextInt(pool.size());
        for (int offset = 0; offset < pool.size(); offset++) {
            int index = (start + offset) % pool.size();
            if (fits.test(index) && random.nextInt(4) > 0) return index;
        }
        return -1;
    }

    /// A captured tensor of random data (special values included, unless the program is to be
    /// differentiated): read from the closure.
    Constant constant(DType dtype, Shape shape) {
        boolean smooth = smooth(); // f64 throughout: f32 rounding would swamp central differences
        var values = new Argument(smooth ? DType.F64 : dtype, shape, new Argument.Layout.Dense(), smooth);
        var data = new Random(random.nextLong());
        return capture(() -> values.tensor(data));
    }

    /// A captured `i32` tensor of values in `[0, bound)`, repeats included: indices read from the
    /// closure, as a model reads token ids; null when it has elements and no index is valid.
    Constant indices(Shape shape, int bound) {
        if (bound <= 0 && shape.count() > 0) return null;
        var data = new Random(random.nextLong());
        int[] values = new int[shape.size()];
        for (int i = 0; i < values.length; i++) values[i] = data.nextInt(bound);
        return capture(() -> {
            Tensor tensor = Tensor.of(values, shape.toArray());
            return shape.rank() == 0 ? tensor.reshape() : tensor; // Tensor.of with no dims makes a vector
        });
    }

    // The next constant, made on another thread: inside the trace bound to this one, even making a tensor records.
    private Constant capture(java.util.function.Supplier<Tensor> make) {
        var constant = new Constant("c" + constants.size(), CompletableFuture.supplyAsync(make).join());
        constants.add(constant);
        return constant;
    }

    /// `index` converted to `dtype` by a `to` call when it has another dtype; -1 if dropped.
    int as(int index, DType dtype) { return dtype(index) == dtype ? index : call("to", new Value(index), dtype); }

    <T> T any(List<T> values) { return values.get(random.nextInt(values.size())); }
}
