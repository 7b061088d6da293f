// SPDX-License-Identifier: Apache-2.0
package dev.smelt;

import dev.smelt.codegen.SubclassEmitter;
import dev.smelt.ir.SmeltException;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.reflect.Constructor;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/// The hidden subclass generated for a model type with [Compile] methods: those methods, a handle
/// on each original body, and the constructors. Checked once per type; generated once per type
/// and lookup package (a [ClassValue], so it unloads with the model's class loader).
record MethodClass(Class<?> model, List<Method> methods, List<MethodHandle> originals, Map<Constructor<?>, MethodHandle> constructors) {
    private static final Set<Class<?>> VALUES = Set.of(int.class, long.class, float.class, double.class, boolean.class, String.class);
    private static final ClassValue<Map<Class<?>, MethodClass>> GENERATED = new ClassValue<>() {
        @Override
        protected Map<Class<?>, MethodClass> computeValue(Class<?> type) { return new java.util.concurrent.ConcurrentHashMap<>(); }
    };

    static MethodClass of(MethodHandles.Lookup lookup, Class<?> model) {
        check(model);
        var methods = compiledMethods(model);
        return GENERATED.get(model).computeIfAbsent(lookup.lookupClass(), _ -> generate(lookup, model, methods));
    }

    /// The constructor handle for `arguments`: exactly one non-private constructor must accept them.
    MethodHandle constructor(Object[] arguments) {
        var fitting = constructors.keySet().stream().filter(c -> accepts(c.getParameterTypes(), arguments)).toList();
        if (fitting.size() == 1) return constructors.get(fitting.getFirst());
        String given = Arrays.stream(arguments).map(a -> a == null ? "null" : a.getClass().getSimpleName()).toList().toString();
        throw SmeltException.of("Jit.instance", "%s has %s constructor taking %s; its non-private constructors take %s", model.getName(),
                fitting.isEmpty() ? "no" : "more than one", given, constructors.keySet().stream().map(c -> Arrays.toString(c.getParameterTypes())).toList());
    }

    private static void check(Class<?> model) {
        if (model == null) throw SmeltException.of("Jit.instance", "the model class is null");
        String why = model.isPrimitive() || model.isArray() ? "is not a class"
                : Modifier.isFinal(model.getModifiers()) ? "is final (records and enums are too), so it cannot be subclassed"
                : model.isSealed() ? "is sealed, so it cannot be subclassed"
                : model.isAnnotation() ? "is an annotation"
                : model.isMemberClass() && !Modifier.isStatic(model.getModifiers()) && !model.isInterface() ? "is an inner class; make it static"
                : model.isHidden() ? "is a hidden class" : null;
        if (why != null) throw SmeltException.of("Jit.instance", "%s %s", model.getName(), why);
    }

    /// The most derived declaration of every method, keeping those marked [Compile]; checked.
    private static List<Method> compiledMethods(Class<?> model) {
        var declared = new LinkedHashMap<String, Method>();
        var types = new ArrayList<Class<?>>();
        for (Class<?> c = model; c != null && c != Object.class; c = c.getSuperclass()) types.add(c);
        for (int i = 0; i < types.size(); i++)
            for (Class<?> face : types.get(i).getInterfaces()) if (!types.contains(face)) types.add(face);
        for (Class<?> type : types)
            for (Method method : type.getDeclaredMethods())
                if (!method.isSynthetic() && !method.isBridge()) declared.putIfAbsent(method.getName() + MethodType.methodType(method.getReturnType(), method.getParameterTypes()), method);
        var abstracts = declared.values().stream().filter(m -> Modifier.isAbstract(m.getModifiers())).map(CompiledMethods::describe).toList();
        if (!abstracts.isEmpty())
            throw SmeltException.of("Jit.instance", "%s has abstract methods %s; Jit.instance can only create types whose every method has a body", model.getName(), abstracts);
        var compiled = declared.values().stream().filter(m -> m.isAnnotationPresent(Compile.class)).toList();
        if (compiled.isEmpty()) throw SmeltException.of("Jit.instance", "%s has no method annotated @Compile", model.getName());
        compiled.forEach(MethodClass::checkMethod);
        return compiled;
    }

    private static void checkMethod(Method method) {
        int modifiers = method.getModifiers();
        String why = Modifier.isStatic(modifiers) ? "is static; only instance methods can be compiled (use Jit.compile for a static method reference)"
                : Modifier.isPrivate(modifiers) ? "is private, so it cannot be overridden"
                : Modifier.isFinal(modifiers) ? "is final, so it cannot be overridden"
                : method.getReturnType() != Tensor.class ? "returns %s; a compiled method must return a Tensor".formatted(method.getReturnType().getSimpleName())
                : method.isVarArgs() ? "takes varargs; pass tensors as separate parameters" : null;
        for (Class<?> parameter : method.getParameterTypes())
            if (why == null && parameter != Tensor.class && !VALUES.contains(parameter) && !parameter.isEnum())
                why = "takes a %s; compiled methods take Tensor, int, long, float, double, boolean, String or an enum".formatted(parameter.getSimpleName());
        for (int i = 0; i < method.getParameterCount() && why == null; i++) {
            Dynamic dynamic = method.getParameters()[i].getAnnotation(Dynamic.class);
            if (dynamic != null && method.getParameterTypes()[i] != Tensor.class)
                why = "marks parameter %d (a %s) @Dynamic; only tensor dimensions can be dynamic".formatted(i, method.getParameterTypes()[i].getSimpleName());
            else if (dynamic != null && dynamic.value().length == 0) why = "marks parameter %d @Dynamic({}) with no axes; name at least one, such as @Dynamic(0) for the batch".formatted(i);
        }
        if (why != null) throw SmeltException.of("@Compile", "%s %s", CompiledMethods.describe(method), why);
    }

    private static MethodClass generate(MethodHandles.Lookup lookup, Class<?> model, List<Method> methods) {
        var constructors = model.isInterface() ? List.<Constructor<?>>of()
                : Arrays.stream(model.getDeclaredConstructors()).filter(c -> !Modifier.isPrivate(c.getModifiers())).toList();
        if (!model.isInterface() && constructors.isEmpty()) throw SmeltException.of("Jit.instance", "%s has only private constructors", model.getName());
        String pkg = lookup.lookupClass().getPackageName();
        String name = (pkg.isEmpty() ? "" : pkg.replace('.', '/') + "/") + model.getSimpleName() + "$Compiled";
        byte[] bytes = SubclassEmitter.emit(model, name, constructors, methods);
        try {
            var hidden = lookup.defineHiddenClass(bytes, true);
            var originals = new ArrayList<MethodHandle>();
            for (int i = 0; i < methods.size(); i++)
                originals.add(hidden.findVirtual(hidden.lookupClass(), "original$" + i, MethodType.methodType(methods.get(i).getReturnType(), methods.get(i).getParameterTypes())));
            var handles = new LinkedHashMap<Constructor<?>, MethodHandle>();
            if (model.isInterface()) handles.put(Object.class.getConstructor(), hidden.findConstructor(hidden.lookupClass(), MethodType.methodType(void.class, SubclassEmitter.MethodCalls.class)));
            for (Constructor<?> c : constructors)
                handles.put(c, hidden.findConstructor(hidden.lookupClass(), MethodType.methodType(void.class, c.getParameterTypes()).insertParameterTypes(0, SubclassEmitter.MethodCalls.class)));
            return new MethodClass(model, methods, List.copyOf(originals), handles);
        } catch (IllegalAccessException e) {
            throw SmeltException.of("Jit.instance", "cannot define a subclass of %s in package '%s' (%s); pass MethodHandles.lookup() from a class in that package: Jit.instance(MethodHandles.lookup(), %s.class, …)",
                    model.getName(), pkg, e.getMessage(), model.getSimpleName());
        } catch (NoSuchMethodException e) {
            throw new IllegalStateException("generated class lacks a member it was written with", e);
        }
    }

    private static boolean accepts(Class<?>[] parameters, Object[] arguments) {
        if (parameters.length != arguments.length) return false;
        for (int i = 0; i < parameters.length; i++) {
            Class<?> wanted = parameters[i].isPrimitive() ? MethodType.methodType(parameters[i]).wrap().returnType() : parameters[i];
            if (arguments[i] == null ? parameters[i].isPrimitive() : !wanted.isInstance(arguments[i])) return false;
        }
        return true;
    }
}
