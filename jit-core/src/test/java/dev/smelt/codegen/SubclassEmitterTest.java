// SPDX-License-Identifier: Apache-2.0
package dev.smelt.codegen;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.smelt.Tensor;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.objectweb.asm.ClassReader;
import org.objectweb.asm.util.CheckClassAdapter;

/// The subclass behind `@Compile` methods verifies, hands each call's boxed arguments to the
/// `MethodCalls` with its method index, and reaches the original body through `original$<i>`.
class SubclassEmitterTest {
    static class Base {
        final String label;

        Base(String label, int copies) { this.label = label.repeat(copies); }

        public Tensor wide(Tensor x, long a, double b, float c, boolean d, Tensor y) { return x; }

        protected Tensor narrow(Tensor x) { return x.neg(); }
    }

    interface Face {
        default Tensor twice(Tensor x) { return x.add(x); }
    }

    private static final String NAME = "dev/smelt/codegen/Base$Test";

    private static List<Method> methods(Class<?> type, String... names) throws NoSuchMethodException {
        var methods = new ArrayList<Method>();
        for (String name : names) methods.add(Arrays.stream(type.getDeclaredMethods()).filter(m -> m.getName().equals(name)).findFirst().orElseThrow());
        return methods;
    }

    private static String verify(byte[] bytes) {
        var report = new StringWriter();
        CheckClassAdapter.verify(new ClassReader(bytes), SubclassEmitterTest.class.getClassLoader(), false, new PrintWriter(report));
        return report.toString();
    }

    @Test
    void subclassVerifiesAndDispatchesBoxedArguments() throws Throwable {
        byte[] bytes = SubclassEmitter.emit(Base.class, NAME, List.of(Base.class.getDeclaredConstructor(String.class, int.class)), methods(Base.class, "wide", "narrow"));
        assertEquals("", verify(bytes));
        var lookup = MethodHandles.lookup().defineHiddenClass(bytes, true);
        var calls = new ArrayList<String>();
        SubclassEmitter.MethodCalls recorder = (method, self, arguments) -> {
            calls.add(method + " " + Arrays.toString(arguments));
            return arguments[0];
        };
        var instance = (Base) lookup.findConstructor(lookup.lookupClass(), MethodType.methodType(void.class, SubclassEmitter.MethodCalls.class, String.class, int.class))
                .invoke(recorder, "ab", 2);
        assertEquals("abab", instance.label);
        Tensor x = Tensor.ones(2), y = Tensor.zeros(1);
        instance.wide(x, 7L, 2.5, 1.5f, true, y);
        instance.narrow(x);
        assertEquals(List.of("0 [" + x + ", 7, 2.5, 1.5, true, " + y + "]", "1 [" + x + "]"), calls);
        var original = lookup.findVirtual(lookup.lookupClass(), "original$1", MethodType.methodType(Tensor.class, Tensor.class));
        assertEquals(Tensor.ones(2).neg().toString(), original.invoke(instance, x).toString());
    }

    @Test
    void interfaceImplementationVerifiesAndCallsTheDefaultBody() throws Throwable {
        byte[] bytes = SubclassEmitter.emit(Face.class, "dev/smelt/codegen/Face$Test", List.of(), methods(Face.class, "twice"));
        assertEquals("", verify(bytes));
        var lookup = MethodHandles.lookup().defineHiddenClass(bytes, true);
        var instance = (Face) lookup.findConstructor(lookup.lookupClass(), MethodType.methodType(void.class, SubclassEmitter.MethodCalls.class))
                .invoke((SubclassEmitter.MethodCalls) (method, self, arguments) -> Tensor.scalar(method));
        assertEquals(Tensor.scalar(0).toString(), instance.twice(Tensor.ones(1)).toString());
        var original = lookup.findVirtual(lookup.lookupClass(), "original$0", MethodType.methodType(Tensor.class, Tensor.class));
        assertTrue(original.invoke(instance, Tensor.ones(1)).toString().startsWith("tensor([2."));
    }
}
