// SPDX-License-Identifier: Apache-2.0
package dev.smelt.codegen;

import static org.objectweb.asm.Opcodes.GETSTATIC;

import org.objectweb.asm.MethodVisitor;
import org.objectweb.asm.Type;

/// A public static field that generated code reads (`VectorOperators.EXP`), resolved by reflection
/// on first use like [MethodRef], and for the same reason.
final class FieldRef {
    private final Class<?> owner;
    private final String name;
    private volatile String descriptor;

    private FieldRef(Class<?> owner, String name) {
        this.owner = owner;
        this.name = name;
    }

    static FieldRef of(Class<?> owner, String name) { return new FieldRef(owner, name); }

    String owner() { return Type.getInternalName(owner); }

    String descriptor() {
        String known = descriptor;
        if (known != null) return known;
        try {
            return descriptor = Type.getDescriptor(owner.getField(name).getType());
        } catch (NoSuchFieldException e) {
            throw new IllegalStateException("generated code reads a missing field " + owner.getName() + "." + name, e);
        }
    }

    void get(MethodVisitor mv) { mv.visitFieldInsn(GETSTATIC, owner(), name, descriptor()); }

    @Override
    public String toString() { return owner.getName() + "." + name; }
}
