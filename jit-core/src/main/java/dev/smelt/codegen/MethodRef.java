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
/// A [#lanewise] reference calls `v.lanewise(ADD, w)` where Java code would call `v.add(w)`.
/// `add`, `neg`, `fma` and the like are final methods of `FloatVector` that call the abstract
/// `lanewise` inside, so the receiver types that one call saw are profiled once for the whole JVM.
/// Where a kernel's vector comes from a loop's phi (an accumulator), C2 knows only `FloatVector`
/// and inlines by that shared profile: once any code has used another shape, the call is
/// bimorphic, and every vector the kernel passes through it is boxed, allocated on the heap, on
/// every iteration. Called from the kernel itself, `lanewise` is profiled per call site, where
/// only the kernel's own species is ever seen.
final class MethodRef {
    private final Class<?> owner;
    private final String name;
    private final List<Class<?>> parameterTypes;
    private final FieldRef operator;
    private volatile Resolved resolved;

    private record Resolved(int opcode, String owner, String descriptor, boolean isInterface) {}

    private MethodRef(Class<?> owner, String name, List<Class<?>> parameterTypes, FieldRef operator) {
        this.owner = owner;
        this.name = name;
        this.parameterTypes = parameterTypes;
        this.operator = operator;
    }

    static MethodRef of(Class<?> owner, String name, Class<?>... parameterTypes) { return new MethodRef(owner, name, List.of(parameterTypes), null); }

    /// `vector.lanewise(VectorOperators.<operator>, …)` on `operands` vectors beside the receiver
    /// (0, 1 or 2), which the caller has pushed as for the named method (`add`, `neg`, `fma`).
    static MethodRef lanewise(Class<?> vector, String operator, int operands) {
        Class<?> kind = switch (operands) {
            case 0 -> VectorOperators.Unary.class;
            case 1 -> VectorOperators.Binary.class;
            case 2 -> VectorOperators.Ternary.class;
            default -> throw new IllegalArgumentException(operands + " operands");
        };
        var parameters = new java.util.ArrayList<Class<?>>(List.of(kind));
        for (int i = 0; i < operands; i++) parameters.add(Vector.class);
        return new MethodRef(vector, "lanewise", List.copyOf(parameters), FieldRef.of(VectorOperators.class, operator));
    }

    int opcode() { return resolved().opcode(); }

    String descriptor() { return resolved().descriptor(); }

    boolean isInterface() { return resolved().isInterface(); }

    void invoke(MethodVisitor mv) {
        var method = resolved();
        if (operator != null) {
            operator.get(mv);
            switch (parameterTypes.size()) {
                case 1 -> {}                                          // v, OP
                case 2 -> mv.visitInsn(SWAP);                         // v, w, OP → v, OP, w
                default -> { mv.visitInsn(DUP_X2); mv.visitInsn(POP); } // v, w, u, OP → v, OP, w, u
            }
        }
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
    public String toString() { return owner.getName() + "." + name + (operator == null ? "" : "(" + operator + ")") + parameterTypes; }
}
