// SPDX-License-Identifier: Apache-2.0
package dev.smelt.codegen;

import static org.objectweb.asm.Opcodes.INVOKEINTERFACE;
import static org.objectweb.asm.Opcodes.INVOKESTATIC;
import static org.objectweb.asm.Opcodes.INVOKEVIRTUAL;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.List;
import org.objectweb.asm.MethodVisitor;
import org.objectweb.asm.Type;

/// A method that generated code calls, resolved by reflection the first time code calling it is
/// emitted, so a typo or a wrong parameter list fails as an `IllegalStateException` naming the
/// method rather than as a `VerifyError` in a kernel (`MethodRefTest` resolves every table).
///
/// Resolution waits for that first use because `Class.getMethod` builds every public method of its
/// class: for the Vector API's classes, that loads and links about a hundred classes, which a
/// fresh JVM's first scalar kernel would otherwise pay for (25 ms of its 200, `ColdStart`).
///
/// [#opcode] is `INVOKESTATIC` for static methods (with the interface flag for `VectorSpecies.of`),
/// `INVOKEINTERFACE` on interfaces (`VectorSpecies.loopBound`) and `INVOKEVIRTUAL` otherwise
/// (`FloatVector.add`, virtual on an abstract class).
final class MethodRef {
    private final Class<?> owner;
    private final String name;
    private final List<Class<?>> parameterTypes;
    private volatile Resolved resolved;

    private record Resolved(int opcode, String owner, String descriptor, boolean isInterface) {}

    private MethodRef(Class<?> owner, String name, List<Class<?>> parameterTypes) {
        this.owner = owner;
        this.name = name;
        this.parameterTypes = parameterTypes;
    }

    static MethodRef of(Class<?> owner, String name, Class<?>... parameterTypes) { return new MethodRef(owner, name, List.of(parameterTypes)); }

    int opcode() { return resolved().opcode(); }

    String descriptor() { return resolved().descriptor(); }

    boolean isInterface() { return resolved().isInterface(); }

    void invoke(MethodVisitor mv) {
        var method = resolved();
        mv.visitMethodInsn(method.opcode(), method.owner(), name, method.descriptor(), method.isInterface());
    }

    // Racing threads may both resolve; they compute equal values.
    private Resolved resolved() {
        Resolved known = resolved;
        if (known != null) return known;
        Method method;
        try {
            method = owner.getMethod(name, parameterTypes.toArray(new Class<?>[0]));
        } catch (NoSuchMethodException e) {
            throw new IllegalStateException("generated code calls a missing method " + owner.getName() + "." + name, e);
        }
        int opcode = Modifier.isStatic(method.getModifiers()) ? INVOKESTATIC : owner.isInterface() ? INVOKEINTERFACE : INVOKEVIRTUAL;
        return resolved = new Resolved(opcode, Type.getInternalName(owner), Type.getMethodDescriptor(method), owner.isInterface());
    }

    @Override
    public String toString() { return owner.getName() + "." + name + parameterTypes; }
}
