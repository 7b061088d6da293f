// SPDX-License-Identifier: Apache-2.0
package dev.smelt.codegen;

import static org.objectweb.asm.Opcodes.INVOKEINTERFACE;
import static org.objectweb.asm.Opcodes.INVOKESTATIC;
import static org.objectweb.asm.Opcodes.INVOKEVIRTUAL;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import org.objectweb.asm.MethodVisitor;
import org.objectweb.asm.Type;

/// A method that generated code calls, resolved once by reflection, so a typo or a wrong parameter
/// list fails when the symbol table initialises rather than as a `VerifyError` in a kernel.
///
/// [#of] works out the call instruction: `INVOKESTATIC` for static methods (with the interface flag
/// for `VectorSpecies.of`), `INVOKEINTERFACE` on interfaces (`VectorSpecies.loopBound`) and
/// `INVOKEVIRTUAL` otherwise (`FloatVector.add`, virtual on an abstract class).
record MethodRef(int opcode, String owner, String name, String descriptor, boolean isInterface, Class<?> returnType) {
    static MethodRef of(Class<?> owner, String name, Class<?>... parameterTypes) {
        Method method;
        try {
            method = owner.getMethod(name, parameterTypes);
        } catch (NoSuchMethodException e) {
            throw new IllegalStateException("generated code calls a missing method " + owner.getName() + "." + name, e);
        }
        boolean isStatic = Modifier.isStatic(method.getModifiers());
        int opcode = isStatic ? INVOKESTATIC : owner.isInterface() ? INVOKEINTERFACE : INVOKEVIRTUAL;
        return new MethodRef(opcode, Type.getInternalName(owner), name, Type.getMethodDescriptor(method), owner.isInterface(), method.getReturnType());
    }

    void invoke(MethodVisitor mv) { mv.visitMethodInsn(opcode, owner, name, descriptor, isInterface); }
}
