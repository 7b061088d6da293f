// SPDX-License-Identifier: Apache-2.0
package dev.smelt.codegen;

import static org.objectweb.asm.Opcodes.DUP_X2;
import static org.objectweb.asm.Opcodes.INVOKEINTERFACE;
import static org.objectweb.asm.Opcodes.INVOKESTATIC;
import static org.objectweb.asm.Opcodes.INVOKEVIRTUAL;
import static org.objectweb.asm.Opcodes.POP;
import static org.objectweb.asm.Opcodes.SWAP;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.List;
import jdk.incubator.vector.Vector;
import jdk.incubator.vector.VectorOperators;
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
/// (`FloatVector.lanewise`, virtual on an abstract class).
///
/// A [#lanewise] reference calls the Vector API's `lanewise` with an operator instead of its
/// shorthand: `a.lanewise(ADD, b)` for `a.add(b)`. The shorthand is a final method of `FloatVector`
/// whose own call to the abstract `lanewise` C2 inlines by that call's type profile, one profile
/// shared by every caller in the JVM; when the JIT compiled the shorthand without profiling (its
/// queue was long) the profile stayed empty, the call was left virtual, and every vector through it
/// was boxed, in some fresh JVMs and not others. Called directly, the dispatch is the kernel's own,
/// profiled by its own runs.
final class MethodRef {
    private final Class<?> owner;
    private final String name;
    private final List<Class<?>> parameterTypes;
    private final FieldRef operator; // null, or the VectorOperators constant a lanewise call takes first
    private volatile Resolved resolved;

    private record Resolved(int opcode, String owner, String descriptor, boolean isInterface) {}

    private MethodRef(Class<?> owner, String name, List<Class<?>> parameterTypes, FieldRef operator) {
        this.owner = owner;
        this.name = name;
        this.parameterTypes = parameterTypes;
        this.operator = operator;
    }

    static MethodRef of(Class<?> owner, String name, Class<?>... parameterTypes) { return new MethodRef(owner, name, List.of(parameterTypes), null); }

    /// `vector.lanewise(VectorOperators.<operator>, operands…)` for a vector and its `operands`
    /// (none, one or two other vectors: a unary, binary or ternary operator) already on the stack.
    static MethodRef lanewise(Class<?> vector, String operator, int operands) {
        List<Class<?>> parameters = switch (operands) {
            case 0 -> List.of(VectorOperators.Unary.class);
            case 1 -> List.of(VectorOperators.Binary.class, Vector.class);
            case 2 -> List.of(VectorOperators.Ternary.class, Vector.class, Vector.class);
            default -> throw new IllegalArgumentException("lanewise takes 0 to 2 operands, not " + operands);
        };
        return new MethodRef(vector, "lanewise", parameters, FieldRef.of(VectorOperators.class, operator));
    }

    int opcode() { return resolved().opcode(); }

    String descriptor() { return resolved().descriptor(); }

    boolean isInterface() { return resolved().isInterface(); }

    void invoke(MethodVisitor mv) {
        var method = resolved();
        if (operator != null) insertOperator(mv);
        mv.visitMethodInsn(method.opcode(), method.owner(), name, method.descriptor(), method.isInterface());
    }

    // The operator slotted in under the operands: [v] → [v, op]; [v, b] → [v, op, b]; [v, b, c] → [v, op, b, c].
    private void insertOperator(MethodVisitor mv) {
        operator.get(mv);
        switch (parameterTypes.size()) {
            case 1 -> { }
            case 2 -> mv.visitInsn(SWAP);
            default -> {
                mv.visitInsn(DUP_X2);
                mv.visitInsn(POP);
            }
        }
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
    public String toString() { return owner.getName() + "." + name + (operator == null ? "" : "(" + operator + ")") + parameterTypes; }
}
