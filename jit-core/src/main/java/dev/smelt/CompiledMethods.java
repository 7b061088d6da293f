// SPDX-License-Identifier: Apache-2.0
package dev.smelt;

import dev.smelt.codegen.SubclassEmitter;
import dev.smelt.ir.SmeltException;
import dev.smelt.trace.Tracer;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Collectors;

/// The calls of one [Jit#instance]: one [Compiled] per [Compile] method, tracing the method's
/// original body on the instance. The generated subclass hands every call of such a method here.
final class CompiledMethods implements SubclassEmitter.MethodCalls {
    private final MethodClass type;
    private volatile Compiled[] compiled;
    private volatile Object self;
    /// The model's tensor fields that can be given another tensor, and what they held when a
    /// method was last traced. A trace captures the tensor a field holds, so after `this.w =
    /// w.sub(step)` the methods trace again at their next call rather than run on the old tensor.
    private final List<Field> tensorFields;
    private volatile Tensor[] seen;
    // Methods whose parameters are all tensors, which take Compiled's fast path for a call like the last
    private final boolean[] tensorsOnly;

    CompiledMethods(MethodClass type) {
        this.type = type;
        this.compiled = fresh();
        this.tensorFields = tensorFields(type.model());
        this.tensorsOnly = new boolean[type.methods().size()];
        for (int i = 0; i < tensorsOnly.length; i++)
            tensorsOnly[i] = Arrays.stream(type.methods().get(i).getParameterTypes()).allMatch(p -> p == Tensor.class);
    }

    private Compiled[] fresh() {
        var functions = new Compiled[type.methods().size()];
        for (int i = 0; i < functions.length; i++) functions[i] = compiled(i);
        return functions;
    }

    /// A new instance of `type`'s subclass, built by the constructor that takes `arguments`.
    static <T> T instance(MethodHandles.Lookup lookup, Class<T> model, Object[] arguments) {
        MethodClass type = MethodClass.of(lookup, model);
        var calls = new CompiledMethods(type);
        var constructor = type.constructor(arguments);
        Object[] withCalls = new Object[arguments.length + 1];
        withCalls[0] = calls;
        System.arraycopy(arguments, 0, withCalls, 1, arguments.length);
        try {
            return model.cast(constructor.invokeWithArguments(withCalls));
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable e) {
            throw new IllegalStateException(e);
        }
    }

    /// The compiled function behind each [Compile] method of `instance`, by method name.
    static java.util.Map<String, Compiled> of(Object instance) {
        if (instance == null || !(callsOf(instance) instanceof CompiledMethods calls))
            throw SmeltException.of("Jit.methods", "%s was not made by Jit.instance", instance == null ? "null" : instance.getClass().getName());
        var byName = new java.util.LinkedHashMap<String, Compiled>();
        for (int i = 0; i < calls.compiled.length; i++) byName.putIfAbsent(calls.type.methods().get(i).getName(), calls.compiled[i]);
        return byName;
    }

    // The generated class's private field; readable since its package is open to Smelt (or it
    // could not have been defined there).
    private static Object callsOf(Object instance) {
        if (!instance.getClass().isHidden()) return null;
        try {
            var field = instance.getClass().getDeclaredField("calls");
            field.setAccessible(true);
            return field.get(instance);
        } catch (ReflectiveOperationException | RuntimeException e) {
            return null;
        }
    }

    @Override
    public Object call(int method, Object self, Object[] arguments) {
        this.self = self;
        String name = compiled[method].name();
        for (int i = 0; i < arguments.length; i++)
            if (arguments[i] == null) throw SmeltException.of(name, "argument %d is null", i);
        if (Tracer.CURRENT.isBound()) return trace(name, type.originals().get(method), Arrays.asList(arguments)); // called while tracing another method: inline it
        if (reassigned()) retrace();
        Compiled function = compiled[method];
        if (tensorsOnly[method]) {
            var tensors = new Tensor[arguments.length];
            for (int i = 0; i < tensors.length; i++) tensors[i] = (Tensor) arguments[i];
            return function.apply(tensors);
        }
        return function.call(Arrays.asList(arguments)).getFirst();
    }

    private boolean reassigned() {
        Tensor[] before = seen;
        if (before == null) return false;
        for (int i = 0; i < before.length; i++)
            if (read(tensorFields.get(i)) != before[i]) return true;
        return false;
    }

    private synchronized void retrace() {
        if (!reassigned()) return;
        seen = null;
        compiled = fresh();
    }

    // Non-static, non-final fields of type Tensor, up the class hierarchy; those a package closed
    // to Smelt keeps unreadable are left out (README: update those in place).
    private static List<Field> tensorFields(Class<?> model) {
        var fields = new java.util.ArrayList<Field>();
        for (Class<?> c = model; c != null && c != Object.class; c = c.getSuperclass())
            for (Field field : c.getDeclaredFields())
                if (field.getType() == Tensor.class && !Modifier.isStatic(field.getModifiers()) && !Modifier.isFinal(field.getModifiers()) && field.trySetAccessible())
                    fields.add(field);
        return List.copyOf(fields);
    }

    private Object read(Field field) {
        try {
            return field.get(self);
        } catch (IllegalAccessException e) {
            throw new IllegalStateException(e); // made accessible above
        }
    }

    private Compiled compiled(int index) {
        Method method = type.methods().get(index);
        MethodHandle original = type.originals().get(index);
        String name = describe(method);
        Compile options = method.getAnnotation(Compile.class);
        int limit = options.recompileLimit() < 0 ? Compiled.DEFAULT_RECOMPILE_LIMIT : options.recompileLimit();
        var parameters = Arrays.stream(method.getParameters()).map(p -> p.isNamePresent() ? p.getName() : "argument " + Arrays.asList(method.getParameters()).indexOf(p)).toList();
        var compiled = new Compiled(arguments -> List.of(trace(name, original, arguments)), name, parameters, Compiled.AS_TRACED, options.fusion(), limit);
        for (int i = 0; i < method.getParameterCount(); i++) {
            Dynamic dynamic = method.getParameters()[i].getAnnotation(Dynamic.class);
            if (dynamic != null) compiled = compiled.dynamic(i, dynamic.value());
        }
        return compiled;
    }

    /// Runs the original body on symbolic tensors; errors it raises name the method first.
    private Tensor trace(String name, MethodHandle original, List<Object> arguments) {
        requireTypes(name, original, arguments);
        Object result;
        try {
            Object[] withSelf = new Object[arguments.size() + 1];
            withSelf[0] = self;
            for (int i = 0; i < arguments.size(); i++) withSelf[i + 1] = arguments.get(i);
            result = original.invokeWithArguments(withSelf);
        } catch (SmeltException e) {
            throw SmeltException.in(name, e);
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable e) {
            throw SmeltException.of(name, "threw %s while being traced", e);
        }
        if (result == null) throw SmeltException.of(name, "returned null; a compiled method must return a tensor");
        var now = new Tensor[tensorFields.size()];
        for (int i = 0; i < now.length; i++) now[i] = (Tensor) read(tensorFields.get(i));
        seen = now;
        return (Tensor) result;
    }

    // A call through the method's Compiled (Jit.methods), whose apply passes tensors only, may
    // give a tensor where the method takes a value: refused here rather than as a
    // ClassCastException from the handle.
    private static void requireTypes(String name, MethodHandle original, List<Object> arguments) {
        for (int i = 0; i < arguments.size(); i++) {
            Class<?> type = original.type().wrap().parameterType(i + 1);
            if (!type.isInstance(arguments.get(i)))
                throw SmeltException.of(name, "argument %d is a %s, but that parameter is %s; call the method itself", i,
                        arguments.get(i).getClass().getSimpleName(), original.type().parameterType(i + 1).getSimpleName());
        }
    }

    /// `Model.forward(Tensor, int)`: how errors and recompile reasons name a method.
    static String describe(Method method) {
        return method.getDeclaringClass().getSimpleName() + "." + method.getName()
                + Arrays.stream(method.getParameterTypes()).map(Class::getSimpleName).collect(Collectors.joining(", ", "(", ")"));
    }
}
