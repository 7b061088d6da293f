// SPDX-License-Identifier: Apache-2.0
package dev.smelt.codegen;

import static org.objectweb.asm.Opcodes.*;

import java.lang.reflect.Constructor;
import java.lang.reflect.Method;
import java.util.List;
import org.objectweb.asm.ClassWriter;
import org.objectweb.asm.MethodVisitor;
import org.objectweb.asm.Type;

/// Writes the class behind a compiled-methods instance: a subclass of the user's class (or an
/// implementation of the user's interface) whose chosen methods hand their arguments to a
/// [MethodCalls], and which keeps each original body reachable as `original$<i>`. For
/// `class Model { Tensor forward(Tensor x, int k) {…} }` and method 0 it stands for:
/// ```java
/// final class Model$Compiled extends Model {
///     private final MethodCalls calls;
///     Model$Compiled(MethodCalls calls, Weights w) { this.calls = calls; super(w); }
///     @Override Tensor forward(Tensor x, int k) { return (Tensor) calls.call(0, this, new Object[] {x, k}); }
///     public Tensor original$0(Tensor x, int k) { return super.forward(x, k); }
/// }
/// ```
/// The field is set before the super constructor runs (JVMS §4.10.1.9 allows `putfield` on a
/// field of the class itself while `this` is uninitialized), so a method called by that
/// constructor already dispatches. Straight-line code only: no stack map frames are needed.
public final class SubclassEmitter {
    private static final Type CALLS = Type.getType(MethodCalls.class);
    private static final String CALL = Type.getMethodDescriptor(Type.getType(Object.class), Type.INT_TYPE, Type.getType(Object.class), Type.getType(Object[].class));

    private SubclassEmitter() {}

    /// Calls into compiled code; [#call]'s `method` is the index into the emitted method list.
    public interface MethodCalls {
        Object call(int method, Object self, Object[] arguments);
    }

    /// The class file of the subclass of `base` named `name` (in `base`'s package), with one
    /// constructor per entry of `constructors` (none for an interface) and the `methods` overridden.
    public static byte[] emit(Class<?> base, String name, List<Constructor<?>> constructors, List<Method> methods) {
        var writer = new ClassWriter(ClassWriter.COMPUTE_MAXS);
        boolean isInterface = base.isInterface();
        String superName = isInterface ? "java/lang/Object" : Type.getInternalName(base);
        String[] interfaces = isInterface ? new String[] {Type.getInternalName(base)} : null;
        writer.visit(V25, ACC_FINAL | ACC_SUPER | ACC_SYNTHETIC, name, null, superName, interfaces);
        writer.visitField(ACC_PRIVATE | ACC_FINAL, "calls", CALLS.getDescriptor(), null, null).visitEnd();
        if (isInterface) emitConstructor(writer, name, superName, List.of());
        for (Constructor<?> constructor : constructors) emitConstructor(writer, name, superName, List.of(constructor.getParameterTypes()));
        for (int i = 0; i < methods.size(); i++) {
            emitOverride(writer, name, i, methods.get(i));
            emitOriginal(writer, i, methods.get(i), isInterface);
        }
        writer.visitEnd();
        return writer.toByteArray();
    }

    // Model$Compiled(MethodCalls calls, P0 p0, …) { this.calls = calls; super(p0, …); }
    private static void emitConstructor(ClassWriter writer, String name, String superName, List<Class<?>> parameters) {
        Type[] types = parameters.stream().map(Type::getType).toArray(Type[]::new);
        Type[] withCalls = new Type[types.length + 1];
        withCalls[0] = CALLS;
        System.arraycopy(types, 0, withCalls, 1, types.length);
        MethodVisitor mv = writer.visitMethod(0, "<init>", Type.getMethodDescriptor(Type.VOID_TYPE, withCalls), null, null);
        mv.visitCode();
        mv.visitVarInsn(ALOAD, 0);
        mv.visitVarInsn(ALOAD, 1);
        mv.visitFieldInsn(PUTFIELD, name, "calls", CALLS.getDescriptor());
        mv.visitVarInsn(ALOAD, 0);
        loadArguments(mv, types, 2);
        mv.visitMethodInsn(INVOKESPECIAL, superName, "<init>", Type.getMethodDescriptor(Type.VOID_TYPE, types), false);
        mv.visitInsn(RETURN);
        mv.visitMaxs(0, 0);
        mv.visitEnd();
    }

    // @Override R m(P0 p0, …) { return (R) calls.call(index, this, new Object[] {p0, …}); }   (primitives boxed)
    private static void emitOverride(ClassWriter writer, String name, int index, Method method) {
        Type[] types = Type.getArgumentTypes(method);
        MethodVisitor mv = writer.visitMethod(method.getModifiers() & (ACC_PUBLIC | ACC_PROTECTED), method.getName(), Type.getMethodDescriptor(method), null, null);
        mv.visitCode();
        mv.visitVarInsn(ALOAD, 0);
        mv.visitFieldInsn(GETFIELD, name, "calls", CALLS.getDescriptor());
        mv.visitLdcInsn(index);
        mv.visitVarInsn(ALOAD, 0);
        mv.visitLdcInsn(types.length);
        mv.visitTypeInsn(ANEWARRAY, "java/lang/Object");
        int slot = 1;
        for (int i = 0; i < types.length; i++) {
            mv.visitInsn(DUP);
            mv.visitLdcInsn(i);
            mv.visitVarInsn(types[i].getOpcode(ILOAD), slot);
            box(mv, types[i]);
            mv.visitInsn(AASTORE);
            slot += types[i].getSize();
        }
        mv.visitMethodInsn(INVOKEINTERFACE, CALLS.getInternalName(), "call", CALL, true);
        mv.visitTypeInsn(CHECKCAST, Type.getInternalName(method.getReturnType()));
        mv.visitInsn(ARETURN);
        mv.visitMaxs(0, 0);
        mv.visitEnd();
    }

    // public R original$<index>(P0 p0, …) { return super.m(p0, …); }   (Iface.super.m for an interface)
    private static void emitOriginal(ClassWriter writer, int index, Method method, boolean isInterface) {
        Type[] types = Type.getArgumentTypes(method);
        MethodVisitor mv = writer.visitMethod(ACC_PUBLIC, "original$" + index, Type.getMethodDescriptor(method), null, null);
        mv.visitCode();
        mv.visitVarInsn(ALOAD, 0);
        loadArguments(mv, types, 1);
        mv.visitMethodInsn(INVOKESPECIAL, Type.getInternalName(method.getDeclaringClass()), method.getName(), Type.getMethodDescriptor(method), isInterface);
        mv.visitInsn(ARETURN);
        mv.visitMaxs(0, 0);
        mv.visitEnd();
    }

    private static void loadArguments(MethodVisitor mv, Type[] types, int firstSlot) {
        int slot = firstSlot;
        for (Type type : types) {
            mv.visitVarInsn(type.getOpcode(ILOAD), slot);
            slot += type.getSize();
        }
    }

    // Integer.valueOf(p) and the like; references stay as they are.
    private static void box(MethodVisitor mv, Type type) {
        Class<?> boxed = switch (type.getSort()) {
            case Type.BOOLEAN -> Boolean.class;
            case Type.CHAR -> Character.class;
            case Type.BYTE -> Byte.class;
            case Type.SHORT -> Short.class;
            case Type.INT -> Integer.class;
            case Type.FLOAT -> Float.class;
            case Type.LONG -> Long.class;
            case Type.DOUBLE -> Double.class;
            default -> null;
        };
        if (boxed == null) return;
        mv.visitMethodInsn(INVOKESTATIC, Type.getInternalName(boxed), "valueOf", Type.getMethodDescriptor(Type.getType(boxed), type), false);
    }
}
