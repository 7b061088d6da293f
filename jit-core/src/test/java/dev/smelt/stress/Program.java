// SPDX-License-Identifier: Apache-2.0
package dev.smelt.stress;

import dev.smelt.Tensor;
import dev.smelt.ir.DType;
import dev.smelt.ir.SmeltException;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Collectors;

/// A random program over the public `Tensor` API: its arguments, the tensors it reads from its
/// closure (weights, which tracing turns into extra graph inputs), and a list of API calls whose
/// operands are earlier values by number. It runs on any tensors, concrete (eager) or traced, and
/// [#listing] prints it as the Java it stands for, so a failing seed reads as code.
///
/// Values are numbered in order: the arguments (`a0`, `a1`, …), then one per step (`v3`, `v4`, …).
public record Program(long seed, List<Argument> arguments, List<Constant> constants, List<Step> steps, List<Integer> results) {
    public Program {
        arguments = List.copyOf(arguments);
        constants = List.copyOf(constants);
        steps = List.copyOf(steps);
        results = List.copyOf(results);
    }

    /// A tensor the program reads from its closure, as a model reads its weights.
    record Constant(String name, Tensor value) {}

    /// Operands of a step, in its argument list.
    record Value(int index) {}

    record Values(List<Integer> indices) {}

    record Scalar(Number value) {}

    /// A null tensor argument (`layerNorm` without weight).
    record NoTensor() {}

    /// `arguments[0].method(arguments[1…])`, or `Tensor.method(arguments)` when static. Each argument
    /// is a [Value], [Values], [Constant], [Scalar] (a `Number` parameter), [NoTensor], an
    /// `Integer`, `Boolean` or `Double` (the primitive parameter), an `int[]`, a [DType] or a `String`
    /// (einsum's spec). A call that returns tensors (`split`, `chunk`, `topk`) keeps the one at
    /// `part`; any other has `part` -1.
    record Step(String method, boolean isStatic, List<Object> arguments, int part) {
        public Step {
            arguments = java.util.Collections.unmodifiableList(new ArrayList<>(arguments));
        }

        Tensor apply(List<Tensor> values) {
            List<Object> actual = arguments.stream().map(argument -> resolve(argument, values)).toList();
            Object receiver = isStatic ? null : actual.getFirst();
            Object[] rest = (isStatic ? actual : actual.subList(1, actual.size())).toArray();
            try {
                Object result = resolved().invoke(receiver, rest);
                if (part < 0) return (Tensor) result;
                var parts = (List<?>) result; // fewer at another extent ([#resized]): the program cannot take it, as a reshape cannot
                if (part >= parts.size()) throw SmeltException.of(method, "no piece %d of %d", part, parts.size());
                return (Tensor) parts.get(part);
            } catch (InvocationTargetException e) {
                if (e.getCause() instanceof RuntimeException runtime) throw runtime;
                if (e.getCause() instanceof Error error) throw error;
                throw new IllegalStateException(e.getCause());
            } catch (IllegalAccessException e) {
                throw new IllegalStateException(e);
            }
        }

        /// The call as Java, operands named by `names`.
        String text(List<String> names) {
            List<String> shown = arguments.stream().map(argument -> show(argument, names)).toList();
            Method resolved = resolved();
            if (resolved.isVarArgs() && arguments.getLast() instanceof int[] dims) {
                var varargs = new ArrayList<>(shown.subList(0, shown.size() - 1));
                Arrays.stream(dims).mapToObj(String::valueOf).forEach(varargs::add);
                shown = varargs;
            }
            String part = this.part < 0 ? "" : ".get(" + this.part + ")";
            if (isStatic) return "Tensor." + method + "(" + String.join(", ", shown) + ")" + part;
            return shown.getFirst() + "." + method + "(" + String.join(", ", shown.subList(1, shown.size())) + ")" + part;
        }

        private Method resolved() {
            var types = (isStatic ? arguments : arguments.subList(1, arguments.size())).stream().map(Step::type).toArray(Class<?>[]::new);
            return METHODS.computeIfAbsent(method + Arrays.toString(types), _ -> {
                try {
                    return Tensor.class.getMethod(method, types);
                } catch (NoSuchMethodException e) {
                    throw new IllegalStateException("no Tensor." + method + Arrays.toString(types), e);
                }
            });
        }

        private static Class<?> type(Object argument) {
            return switch (argument) {
                case Value _, Constant _, NoTensor _ -> Tensor.class;
                case Values _ -> Tensor[].class;
                case Scalar _ -> Number.class;
                case Integer _ -> int.class;
                case Boolean _ -> boolean.class;
                case Double _ -> double.class;
                case int[] _ -> int[].class;
                case DType _ -> DType.class;
                case String _ -> String.class;
                default -> throw new IllegalArgumentException("not a step argument: " + argument);
            };
        }

        private static Object resolve(Object argument, List<Tensor> values) {
            return switch (argument) {
                case Value(int index) -> values.get(index);
                case Values(var indices) -> indices.stream().map(values::get).toArray(Tensor[]::new);
                case Constant constant -> constant.value();
                case Scalar(var number) -> number;
                case NoTensor _ -> null;
                default -> argument;
            };
        }

        private static String show(Object argument, List<String> names) {
            return switch (argument) {
                case Value(int index) -> names.get(index);
                case Values(var indices) -> indices.stream().map(names::get).collect(Collectors.joining(", "));
                case Constant constant -> constant.name();
                case Scalar(Integer number) -> number.toString();
                case Scalar(var number) -> literal(number.doubleValue());
                case NoTensor _ -> "null";
                case Double number -> literal(number);
                case int[] dims -> "new int[] {" + Arrays.stream(dims).mapToObj(String::valueOf).collect(Collectors.joining(", ")) + "}";
                case DType dtype -> "DType." + dtype.name();
                case String text -> '"' + text + '"';
                default -> argument.toString();
            };
        }

        private static String literal(double value) {
            if (Double.isNaN(value)) return "Double.NaN";
            if (Double.isInfinite(value)) return value > 0 ? "Double.POSITIVE_INFINITY" : "Double.NEGATIVE_INFINITY";
            return Double.toString(value);
        }
    }

    private static final Map<String, Method> METHODS = new ConcurrentHashMap<>();

    /// The number of arguments.
    public int arity() { return arguments.size(); }

    /// The program's results for `arguments`: eager on concrete tensors, recorded inside a trace.
    public List<Tensor> apply(List<Tensor> arguments) {
        var values = new ArrayList<Tensor>(arguments);
        for (Step step : steps) values.add(step.apply(values));
        return results.stream().map(values::get).toList();
    }

    /// A generator for stream `stream` of `seed`. `java.util.Random` seeded with consecutive
    /// numbers starts almost alike (the first `nextDouble` of seeds 0–2000 all lie near 0.73), so
    /// the seed is scrambled first (SplitMix64's finalizer).
    static Random random(long seed, int stream) {
        long z = seed * 0x9E3779B97F4A7C15L + stream * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return new Random(z ^ (z >>> 31));
    }

    /// Fresh arguments: data set `set` of this program (0 for the first call, 1 for "new data", …).
    public List<Tensor> data(int set) {
        var random = random(seed, 1 + set);
        return arguments.stream().map(argument -> argument.tensor(random)).toList();
    }

    /// The same steps on arguments whose axis 0 has another extent where the first argument of
    /// rank 1 or more has its extent (1, one more or less, about twice), and data for them; null
    /// when no argument has an axis.
    Resized resized() {
        int original = arguments.stream().filter(argument -> argument.shape().rank() > 0).mapToInt(argument -> argument.shape().dim(0)).findFirst().orElse(-1);
        if (original < 0) return null;
        var random = random(seed, 7);
        int[] others = {1, original + 1, original - 1, 2 * original + 1, original + 5};
        int extent;
        do extent = others[random.nextInt(others.length)]; while (extent < 0 || extent == original);
        var changed = new ArrayList<Argument>();
        var marked = new ArrayList<Integer>();
        for (int i = 0; i < arguments.size(); i++) {
            Argument argument = arguments.get(i);
            boolean resize = argument.shape().rank() > 0 && argument.shape().dim(0) == original;
            if (resize) marked.add(i);
            changed.add(resize ? argument.withShape(argument.shape().with(0, extent)) : argument);
        }
        return new Resized(new Program(seed, changed, constants, steps, results), original, extent, List.copyOf(marked));
    }

    /// [#resized]: the program on the new arguments, axis 0's extents, and the arguments changed.
    record Resized(Program program, int original, int extent, List<Integer> marked) {
        List<Tensor> data() { return program.data(7); }
    }

    /// The program as a Java lambda, ready to paste into a test.
    public String listing() {
        var names = new ArrayList<String>();
        for (int i = 0; i < arguments.size(); i++) names.add("a" + i);
        for (int i = 0; i < steps.size(); i++) names.add("v" + (arguments.size() + i));
        var text = new StringBuilder("// seed %d%n(List<Tensor> args) -> {%n".formatted(seed));
        for (int i = 0; i < arguments.size(); i++) text.append("    Tensor a%d = args.get(%d);  // %s%n".formatted(i, i, arguments.get(i)));
        for (Constant constant : constants)
            text.append("    // %s: a captured %s%s of random data%n".formatted(constant.name(), constant.value().dtype(), constant.value().shape()));
        for (int i = 0; i < steps.size(); i++)
            text.append("    Tensor %s = %s;%n".formatted(names.get(arguments.size() + i), steps.get(i).text(names)));
        text.append("    return List.of(").append(results.stream().map(names::get).collect(Collectors.joining(", "))).append(");\n}\n");
        return text.toString();
    }
}
