// SPDX-License-Identifier: Apache-2.0
package dev.smelt.usage;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.DynamicTest.dynamicTest;

import dev.smelt.Compiled;
import dev.smelt.Generator;
import dev.smelt.Jit;
import dev.smelt.Tensor;
import dev.smelt.Traced;
import dev.smelt.WeightFormat;
import dev.smelt.ir.DType;
import dev.smelt.ir.FusionMode;
import dev.smelt.ir.Graph;
import dev.smelt.ir.SmeltException;
import java.lang.invoke.MethodHandles;
import java.lang.reflect.Executable;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

/// Every public method and constructor of the API types, called with null for each reference
/// parameter in turn (every other argument valid), throws a [SmeltException] that says what is
/// null and names the caller's line: eagerly, and for [Tensor] also inside a trace. Found by
/// reflection, so a method added later is covered without a new test; a parameter type the table
/// below lacks fails the test until a valid value for it is added.
class NullArgumentsTest {
    private static final Tensor M = Tensor.zeros(2, 3);
    private static final Traced TRACED = Jit.trace(x -> x.add(1), M);

    /// A valid argument of each parameter type the API takes.
    private static final Map<Class<?>, Object> VALID = Map.ofEntries(
            Map.entry(Tensor.class, M), Map.entry(Tensor[].class, new Tensor[] {M}), Map.entry(List.class, List.of(M)),
            Map.entry(Number.class, 1), Map.entry(DType.class, DType.F32), Map.entry(Generator.class, new Generator(1)),
            Map.entry(int[].class, new int[0]), Map.entry(float[].class, new float[6]), Map.entry(double[].class, new double[6]),
            Map.entry(boolean[].class, new boolean[6]), Map.entry(int.class, 0), Map.entry(long.class, 0L),
            Map.entry(double.class, 1e-5), Map.entry(boolean.class, false), Map.entry(FusionMode.class, FusionMode.NONE),
            Map.entry(Jit.Function1.class, (Jit.Function1) a -> a), Map.entry(Jit.Function2.class, (Jit.Function2) (a, b) -> a),
            Map.entry(Jit.Function3.class, (Jit.Function3) (a, b, c) -> a), Map.entry(Jit.Function4.class, (Jit.Function4) (a, b, c, d) -> a),
            Map.entry(Jit.FunctionN.class, (Jit.FunctionN) arguments -> arguments), Map.entry(UnaryOperator.class, UnaryOperator.identity()),
            Map.entry(Traced.class, TRACED), Map.entry(Graph.class, TRACED.graph()), Map.entry(Class.class, Object.class),
            Map.entry(MethodHandles.Lookup.class, MethodHandles.lookup()), Map.entry(Object.class, new Object()),
            Map.entry(Object[].class, new Object[0]), Map.entry(String.class, "ij"), Map.entry(WeightFormat.class, WeightFormat.BF16));

    /// Parameters documented to take null: layerNorm's weight and bias; `Jit.instance`'s
    /// constructor arguments, where a null array is one null argument; `equals`.
    private static final Set<String> NULLABLE = Set.of("Tensor.layerNorm(int[],Tensor,Tensor,double) #1",
            "Tensor.layerNorm(int[],Tensor,Tensor,double) #2", "Jit.instance(Class,Object[]) #1", "Jit.instance(Lookup,Class,Object[]) #2",
            "Traced.equals(Object) #0", "Tensor.rmsNorm(int[],Tensor,double) #1",
            "Tensor.scaledDotProductAttention(Tensor,Tensor,Tensor,Tensor,boolean,double) #3", "Tensor.scaledDotProductAttention(Tensor,Tensor,Tensor,Tensor) #3");

    /// One call: `member` with every argument valid but `nulled`, which is null or, for an array
    /// or list of tensors, holds a null.
    private record Call(Executable member, int nulled, boolean element) {
        String name() { return signature(member) + " #" + nulled + (element ? " (a null element)" : ""); }

        Object invoke(Object receiver) throws Throwable {
            var parameters = member.getParameterTypes();
            Object[] arguments = new Object[parameters.length];
            for (int i = 0; i < parameters.length; i++) arguments[i] = i != nulled ? VALID.get(parameters[i]) : element ? withNull(parameters[i]) : null;
            try {
                return member instanceof Method method ? method.invoke(receiver, arguments) : ((java.lang.reflect.Constructor<?>) member).newInstance(arguments);
            } catch (InvocationTargetException e) {
                throw e.getCause();
            }
        }

        private static Object withNull(Class<?> type) { return type == List.class ? Arrays.asList((Tensor) null) : new Tensor[] {null}; }
    }

    @TestFactory
    Stream<DynamicTest> tensorMethodsRefuseNullEagerly() {
        return calls(Tensor.class).map(call -> dynamicTest(call.name(), () -> refusesNull(() -> call.invoke(M))));
    }

    @TestFactory
    Stream<DynamicTest> tensorMethodsRefuseNullInsideATrace() {
        return calls(Tensor.class).map(call -> dynamicTest(call.name(), () -> refusesNull(() -> Jit.trace(x -> {
            try {
                call.invoke(x);
            } catch (RuntimeException | Error e) {
                throw e;
            } catch (Throwable e) {
                throw new AssertionError(e);
            }
            return x;
        }, M))));
    }

    @TestFactory
    Stream<DynamicTest> compilingAndTracingRefuseNull() {
        Compiled compiled = Jit.compile((Tensor x) -> x.add(1));
        var receivers = Map.<Class<?>, Object>of(Jit.class, Jit.class, Compiled.class, compiled, Traced.class, TRACED);
        return receivers.entrySet().stream().flatMap(entry -> calls(entry.getKey())
                .map(call -> dynamicTest(call.name(), () -> refusesNull(() -> call.invoke(entry.getValue())))));
    }

    @Test
    void reflectionFindsTheWholeTensorApi() {
        long count = calls(Tensor.class).count();
        assertTrue(count > 90, "only " + count + " calls with a reference parameter found");
    }

    private static void refusesNull(org.junit.jupiter.api.function.Executable call) {
        var error = assertThrows(SmeltException.class, call);
        String message = error.getMessage();
        assertTrue(message.startsWith(error.op() + ": "), message);
        assertTrue(message.contains("null"), () -> "does not say what is null: " + message);
        assertTrue(message.contains("(at dev.smelt.usage.NullArgumentsTest"), () -> "no call site in: " + message);
    }

    /// Each public method and constructor of `type` declared there or in the sealed interfaces that hold
    /// its method families, once per reference parameter,
    /// and again with a null element for arrays and lists of tensors.
    private static Stream<Call> calls(Class<?> type) {
        var members = new ArrayList<Executable>(Arrays.asList(type.getDeclaredMethods()));
        for (Class<?> family : type.getInterfaces()) if (family.isSealed()) members.addAll(Arrays.asList(family.getDeclaredMethods()));
        members.addAll(Arrays.asList(type.getDeclaredConstructors()));
        var calls = new ArrayList<Call>();
        for (Executable member : members) {
            if (!Modifier.isPublic(member.getModifiers()) || member.isSynthetic()) continue;
            var parameters = member.getParameterTypes();
            for (int i = 0; i < parameters.length; i++) {
                if (parameters[i].isPrimitive() || NULLABLE.contains(signature(member) + " #" + i)) continue;
                for (Class<?> parameter : parameters)
                    assertTrue(VALID.containsKey(parameter), () -> "no valid " + parameter.getSimpleName() + " for " + signature(member) + ": add one to VALID");
                calls.add(new Call(member, i, false));
                if (parameters[i] == Tensor[].class || parameters[i] == List.class) calls.add(new Call(member, i, true));
            }
        }
        return calls.stream();
    }

    private static String signature(Executable member) {
        return member.getDeclaringClass().getSimpleName() + "." + (member instanceof Method ? member.getName() : "new")
                + Arrays.stream(member.getParameterTypes()).map(Class::getSimpleName).collect(java.util.stream.Collectors.joining(",", "(", ")"));
    }
}
