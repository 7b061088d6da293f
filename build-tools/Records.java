// SPDX-License-Identifier: Apache-2.0
import org.objectweb.asm.ClassVisitor;
import org.objectweb.asm.Handle;
import org.objectweb.asm.Label;
import org.objectweb.asm.MethodVisitor;
import org.objectweb.asm.Opcodes;
import org.objectweb.asm.Type;

/// A record's `equals`, `hashCode` and `toString` as [Desugar] writes them: static methods of the
/// record that do what `ObjectMethods.bootstrap` builds from method handles, in the same order.
final class Records {
    private Records() {}

    /// Whether the call site is one this writes: the three methods, with a getter (a field read of
    /// the record) per component.
    static boolean supported(String method, Object[] arguments) {
        if (!method.equals("equals") && !method.equals("hashCode") && !method.equals("toString")) return false;
        if (arguments.length < 2 || !(arguments[0] instanceof Type) || !(arguments[1] instanceof String)) return false;
        for (int i = 2; i < arguments.length; i++)
            if (!(arguments[i] instanceof Handle getter) || getter.getTag() != Opcodes.H_GETFIELD) return false;
        return true;
    }

    /// The static method `helper`, with the call site's descriptor, that replaces it.
    static void write(ClassVisitor host, String helper, String method, String descriptor, String simpleName, Object[] arguments) {
        MethodVisitor m = host.visitMethod(Opcodes.ACC_PRIVATE | Opcodes.ACC_STATIC | Opcodes.ACC_SYNTHETIC, helper, descriptor, null, null);
        m.visitCode();
        switch (method) {
            case "hashCode" -> hashCode(m, arguments);
            case "equals" -> equals(m, (Type) arguments[0], arguments);
            default -> toString(m, simpleName, ((String) arguments[1]), arguments);
        }
        m.visitMaxs(0, 0);
        m.visitEnd();
    }

    /// `int h = 0; h = h * 31 + hash(r.c0); …; return h;` (the wrapper's `hashCode`, or `Objects.hashCode`).
    private static void hashCode(MethodVisitor m, Object[] arguments) {
        m.visitInsn(Opcodes.ICONST_0);
        for (int i = 2; i < arguments.length; i++) {
            var getter = (Handle) arguments[i];
            Type type = Type.getType(getter.getDesc());
            m.visitIntInsn(Opcodes.BIPUSH, 31);
            m.visitInsn(Opcodes.IMUL);
            get(m, 0, getter);
            if (Lambdas.isReference(type)) m.visitMethodInsn(Opcodes.INVOKESTATIC, "java/util/Objects", "hashCode", "(Ljava/lang/Object;)I", false);
            else m.visitMethodInsn(Opcodes.INVOKESTATIC, Lambdas.WRAPPERS.get(type), "hashCode", "(" + type.getDescriptor() + ")I", false);
            m.visitInsn(Opcodes.IADD);
        }
        m.visitInsn(Opcodes.IRETURN);
    }

    /// `if (r == o) return true; if (!(o instanceof R s)) return false;` then each component,
    /// the last first: `==`, `Float.compare`/`Double.compare` or `Objects.equals`.
    private static void equals(MethodVisitor m, Type record, Object[] arguments) {
        Label differ = new Label();
        m.visitVarInsn(Opcodes.ALOAD, 0);
        m.visitVarInsn(Opcodes.ALOAD, 1);
        returnUnless(m, Opcodes.IF_ACMPNE, Opcodes.ICONST_1);
        m.visitVarInsn(Opcodes.ALOAD, 1);
        m.visitTypeInsn(Opcodes.INSTANCEOF, record.getInternalName());
        returnUnless(m, Opcodes.IFNE, Opcodes.ICONST_0);
        m.visitVarInsn(Opcodes.ALOAD, 1);
        m.visitTypeInsn(Opcodes.CHECKCAST, record.getInternalName());
        m.visitVarInsn(Opcodes.ASTORE, 2);
        for (int i = arguments.length - 1; i >= 2; i--) {
            var getter = (Handle) arguments[i];
            get(m, 0, getter);
            get(m, 2, getter);
            compare(m, Type.getType(getter.getDesc()), differ);
        }
        m.visitInsn(Opcodes.ICONST_1);
        m.visitInsn(Opcodes.IRETURN);
        m.visitLabel(differ);
        m.visitFrame(Opcodes.F_APPEND, 1, new Object[] {record.getInternalName()}, 0, null);
        m.visitInsn(Opcodes.ICONST_0);
        m.visitInsn(Opcodes.IRETURN);
    }

    // Jumps to `differ` unless the two values on the stack are equal as ObjectMethods compares them.
    private static void compare(MethodVisitor m, Type type, Label differ) {
        switch (type.getSort()) {
            case Type.LONG -> {
                m.visitInsn(Opcodes.LCMP);
                m.visitJumpInsn(Opcodes.IFNE, differ);
            }
            case Type.FLOAT -> {
                m.visitMethodInsn(Opcodes.INVOKESTATIC, "java/lang/Float", "compare", "(FF)I", false);
                m.visitJumpInsn(Opcodes.IFNE, differ);
            }
            case Type.DOUBLE -> {
                m.visitMethodInsn(Opcodes.INVOKESTATIC, "java/lang/Double", "compare", "(DD)I", false);
                m.visitJumpInsn(Opcodes.IFNE, differ);
            }
            case Type.OBJECT, Type.ARRAY -> {
                m.visitMethodInsn(Opcodes.INVOKESTATIC, "java/util/Objects", "equals", "(Ljava/lang/Object;Ljava/lang/Object;)Z", false);
                m.visitJumpInsn(Opcodes.IFEQ, differ);
            }
            default -> m.visitJumpInsn(Opcodes.IF_ICMPNE, differ);
        }
    }

    /// `return "Name[" + "c0=" + r.c0 + ", " + … + "]";` with a `StringBuilder`.
    private static void toString(MethodVisitor m, String simpleName, String names, Object[] arguments) {
        String[] components = names.isEmpty() ? new String[0] : names.split(";");
        m.visitTypeInsn(Opcodes.NEW, "java/lang/StringBuilder");
        m.visitInsn(Opcodes.DUP);
        m.visitLdcInsn(simpleName + "[");
        m.visitMethodInsn(Opcodes.INVOKESPECIAL, "java/lang/StringBuilder", "<init>", "(Ljava/lang/String;)V", false);
        for (int i = 2; i < arguments.length; i++) {
            var getter = (Handle) arguments[i];
            appendText(m, (i > 2 ? ", " : "") + components[i - 2] + "=");
            Type type = Type.getType(getter.getDesc());
            get(m, 0, getter);
            String parameter = switch (type.getSort()) {
                case Type.OBJECT, Type.ARRAY -> "Ljava/lang/Object;";
                case Type.BYTE, Type.SHORT -> "I";
                default -> type.getDescriptor();
            };
            m.visitMethodInsn(Opcodes.INVOKEVIRTUAL, "java/lang/StringBuilder", "append", "(" + parameter + ")Ljava/lang/StringBuilder;", false);
        }
        appendText(m, "]");
        m.visitMethodInsn(Opcodes.INVOKEVIRTUAL, "java/lang/StringBuilder", "toString", "()Ljava/lang/String;", false);
        m.visitInsn(Opcodes.ARETURN);
    }

    private static void appendText(MethodVisitor m, String text) {
        m.visitLdcInsn(text);
        m.visitMethodInsn(Opcodes.INVOKEVIRTUAL, "java/lang/StringBuilder", "append", "(Ljava/lang/String;)Ljava/lang/StringBuilder;", false);
    }

    /// `return constant;` unless the jump `continueOpcode`, on the values on the stack, goes on past
    /// it (locals as at the method's start).
    static void returnUnless(MethodVisitor m, int continueOpcode, int constantOpcode) {
        Label next = new Label();
        m.visitJumpInsn(continueOpcode, next);
        m.visitInsn(constantOpcode);
        m.visitInsn(Opcodes.IRETURN);
        m.visitLabel(next);
        m.visitFrame(Opcodes.F_SAME, 0, null, 0, null);
    }

    private static void get(MethodVisitor m, int slot, Handle getter) {
        m.visitVarInsn(Opcodes.ALOAD, slot);
        m.visitFieldInsn(Opcodes.GETFIELD, getter.getOwner(), getter.getName(), getter.getDesc());
    }
}
