// SPDX-License-Identifier: Apache-2.0
package dev.smelt.codegen;

import static org.objectweb.asm.Opcodes.GETSTATIC;

import java.lang.reflect.Field;
import org.objectweb.asm.MethodVisitor;
import org.objectweb.asm.Type;

/// A public static field that generated code reads (`VectorOperators.EXP`), resolved by reflection
/// like [MethodRef].
record FieldRef(String owner, String name, String descriptor) {
    static FieldRef of(Class<?> owner, String name) {
        Field field;
        try {
            field = owner.getField(name);
        } catch (NoSuchFieldException e) {
            throw new IllegalStateException("generated code reads a missing field " + owner.getName() + "." + name, e);
        }
        return new FieldRef(Type.getInternalName(owner), name, Type.getDescriptor(field.getType()));
    }

    void get(MethodVisitor mv) { mv.visitFieldInsn(GETSTATIC, owner, name, descriptor); }
}
