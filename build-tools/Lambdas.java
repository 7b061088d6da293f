// SPDX-License-Identifier: Apache-2.0
import java.util.Map;
import org.objectweb.asm.ClassWriter;
import org.objectweb.asm.Handle;
import org.objectweb.asm.MethodVisitor;
import org.objectweb.asm.Opcodes;
import org.objectweb.asm.Type;

/// The class [Desugar] writes for a lambda or method reference: what
/// `LambdaMetafactory.metafactory` would spin at run time, as a class file of the host's nest.
///
/// ```java
/// final class Host$Lambda$0 implements Function {
///     static final Host$Lambda$0 INSTANCE = new Host$Lambda$0(); // only when nothing is captured
///     private final Tensor c0;                                     // the captured values
///     Host$Lambda$0(Tensor c0) { this.c0 = c0; }
///     static Function create(Tensor c0) { return new Host$Lambda$0(c0); }
///     public Object apply(Object a) { return Host.lambda$run$0(c0, (Node) a); }
/// }
/// ```
final class Lambdas {
    private Lambdas() {}

    /// Each primitive type's wrapper class.
    static final Map<Type, String> WRAPPERS = Map.of(Type.BOOLEAN_TYPE, "java/lang/Boolean", Type.CHAR_TYPE, "java/lang/Character", Type.BYTE_TYPE, "java/lang/Byte",
            Type.SHORT_TYPE, "java/lang/Short", Type.INT_TYPE, "java/lang/Integer", Type.FLOAT_TYPE, "java/lang/Float", Type.LONG_TYPE, "java/lang/Long", Type.DOUBLE_TYPE,
            "java/lang/Double");

    /// The generated class's name, or null (the call site stays) when a conversion is one this does not write.
    static String write(Desugar.Host host, String method, String indyDescriptor, Object[] arguments) {
        if (arguments.length != 3 || !(arguments[0] instanceof Type sam) || !(arguments[1] instanceof Handle impl) || !(arguments[2] instanceof Type instantiated)) return null;
        Type[] captured = Type.getArgumentTypes(indyDescriptor);
        Type iface = Type.getReturnType(indyDescriptor);
        Type[] implParams = parameters(impl);
        if (implParams == null || captured.length + sam.getArgumentTypes().length != implParams.length) return null;
        String name = host.newClassName();
        var w = new ClassWriter(ClassWriter.COMPUTE_MAXS);
        w.visit(host.version(), Opcodes.ACC_FINAL | Opcodes.ACC_SUPER | Opcodes.ACC_SYNTHETIC, name, null, "java/lang/Object", new String[] {iface.getInternalName()});
        w.visitNestHost(host.nestHost());
        if (!functional(w, name, method, sam, impl, instantiated, captured, implParams)) return null;
        fieldsAndConstructor(w, name, captured);
        create(w, name, indyDescriptor, captured);
        w.visitEnd();
        host.generated(name, w.toByteArray());
        return name;
    }

    // The implementation's parameters, its receiver first; null for a kind of handle not written here.
    private static Type[] parameters(Handle impl) {
        Type[] params = Type.getArgumentTypes(impl.getDesc());
        return switch (impl.getTag()) {
            case Opcodes.H_INVOKESTATIC, Opcodes.H_NEWINVOKESPECIAL -> params;
            case Opcodes.H_INVOKEVIRTUAL, Opcodes.H_INVOKEINTERFACE, Opcodes.H_INVOKESPECIAL -> {
                var withReceiver = new Type[params.length + 1];
                withReceiver[0] = Type.getObjectType(impl.getOwner());
                System.arraycopy(params, 0, withReceiver, 1, params.length);
                yield withReceiver;
            }
            default -> null;
        };
    }

    /// `public R method(A0 a0, …) { return impl(c0, …, (T) a0, …); }`, with each value adapted.
    private static boolean functional(ClassWriter w, String name, String method, Type sam, Handle impl, Type instantiated, Type[] captured, Type[] implParams) {
        MethodVisitor m = w.visitMethod(Opcodes.ACC_PUBLIC, method, sam.getDescriptor(), null, null);
        m.visitCode();
        if (impl.getTag() == Opcodes.H_NEWINVOKESPECIAL) {
            m.visitTypeInsn(Opcodes.NEW, impl.getOwner());
            m.visitInsn(Opcodes.DUP);
        }
        int p = 0;
        for (int i = 0; i < captured.length; i++, p++) {
            m.visitVarInsn(Opcodes.ALOAD, 0);
            m.visitFieldInsn(Opcodes.GETFIELD, name, "c" + i, captured[i].getDescriptor());
            if (!convert(m, captured[i], captured[i], implParams[p])) return false;
        }
        Type[] samParams = sam.getArgumentTypes(), instParams = instantiated.getArgumentTypes();
        int slot = 1;
        for (int i = 0; i < samParams.length; i++, p++) {
            m.visitVarInsn(samParams[i].getOpcode(Opcodes.ILOAD), slot);
            slot += samParams[i].getSize();
            if (!convert(m, samParams[i], instParams[i], implParams[p])) return false;
        }
        invoke(m, impl);
        Type implReturn = impl.getTag() == Opcodes.H_NEWINVOKESPECIAL ? Type.getObjectType(impl.getOwner()) : Type.getReturnType(impl.getDesc());
        Type samReturn = sam.getReturnType();
        if (samReturn.getSort() == Type.VOID) {
            if (implReturn.getSize() > 0) m.visitInsn(implReturn.getSize() == 2 ? Opcodes.POP2 : Opcodes.POP);
        } else if (implReturn.getSort() == Type.VOID || !convert(m, implReturn, instantiated.getReturnType(), samReturn)) {
            return false;
        }
        m.visitInsn(samReturn.getOpcode(Opcodes.IRETURN));
        m.visitMaxs(0, 0);
        m.visitEnd();
        return true;
    }

    // A private method of the host (invokespecial in the handle) is called as a nestmate: invokevirtual, or invokeinterface.
    private static void invoke(MethodVisitor m, Handle impl) {
        int opcode = switch (impl.getTag()) {
            case Opcodes.H_INVOKESTATIC -> Opcodes.INVOKESTATIC;
            case Opcodes.H_NEWINVOKESPECIAL -> Opcodes.INVOKESPECIAL;
            case Opcodes.H_INVOKEINTERFACE -> Opcodes.INVOKEINTERFACE;
            case Opcodes.H_INVOKESPECIAL -> impl.isInterface() ? Opcodes.INVOKEINTERFACE : Opcodes.INVOKEVIRTUAL;
            default -> Opcodes.INVOKEVIRTUAL;
        };
        m.visitMethodInsn(opcode, impl.getOwner(), impl.getName(), impl.getDesc(), impl.isInterface());
    }

    /// Adapts a value of type `from` on the stack, whose instantiated type is `via`, to `to`, as the
    /// metafactory does: a cast to the instantiated type; unboxing, then widening; widening;
    /// boxing. False for anything else.
    private static boolean convert(MethodVisitor m, Type from, Type via, Type to) {
        boolean fromRef = isReference(from), toRef = isReference(to);
        if (fromRef && toRef) {
            Type target = isReference(via) && !via.equals(from) ? via : to;
            if (!target.equals(from) && !target.getInternalName().equals("java/lang/Object")) m.visitTypeInsn(Opcodes.CHECKCAST, target.getInternalName());
            return true;
        }
        if (fromRef) {
            Type boxed = isReference(via) && primitiveOf(via) != null ? via : primitiveOf(from) != null ? from : null;
            if (boxed == null) return false;
            Type primitive = primitiveOf(boxed);
            if (!boxed.equals(from)) m.visitTypeInsn(Opcodes.CHECKCAST, boxed.getInternalName());
            m.visitMethodInsn(Opcodes.INVOKEVIRTUAL, boxed.getInternalName(), primitive.getClassName() + "Value", "()" + primitive.getDescriptor(), false);
            return widen(m, primitive, to);
        }
        if (!toRef) return widen(m, from, to);
        String wrapper = WRAPPERS.get(from);
        m.visitMethodInsn(Opcodes.INVOKESTATIC, wrapper, "valueOf", "(" + from.getDescriptor() + ")L" + wrapper + ";", false);
        if (!to.getInternalName().equals(wrapper) && !to.getInternalName().equals("java/lang/Object")) m.visitTypeInsn(Opcodes.CHECKCAST, to.getInternalName());
        return true;
    }

    // JLS §5.1.2 widening primitive conversions; false when `from` does not widen to `to`.
    private static boolean widen(MethodVisitor m, Type from, Type to) {
        int f = from.getSort(), t = to.getSort();
        if (f == t) return true;
        boolean intLike = f == Type.BYTE || f == Type.SHORT || f == Type.CHAR || f == Type.INT;
        if (intLike && t == Type.INT || f == Type.BYTE && t == Type.SHORT) return true; // the same int on the operand stack
        int opcode = intLike ? switch (t) {
            case Type.LONG -> Opcodes.I2L;
            case Type.FLOAT -> Opcodes.I2F;
            case Type.DOUBLE -> Opcodes.I2D;
            default -> -1;
        } : f == Type.LONG ? switch (t) {
            case Type.FLOAT -> Opcodes.L2F;
            case Type.DOUBLE -> Opcodes.L2D;
            default -> -1;
        } : f == Type.FLOAT && t == Type.DOUBLE ? Opcodes.F2D : -1;
        if (opcode < 0) return false;
        m.visitInsn(opcode);
        return true;
    }

    static boolean isReference(Type type) { return type.getSort() == Type.OBJECT || type.getSort() == Type.ARRAY; }

    // The primitive a wrapper class boxes, or null.
    private static Type primitiveOf(Type type) {
        if (type.getSort() != Type.OBJECT) return null;
        for (var entry : WRAPPERS.entrySet())
            if (entry.getValue().equals(type.getInternalName())) return entry.getKey();
        return null;
    }

    /// `private final T0 c0; …` and `Host$Lambda$n(T0 c0, …) { this.c0 = c0; … }`; with nothing
    /// captured, `static final Host$Lambda$n INSTANCE = new Host$Lambda$n();`.
    private static void fieldsAndConstructor(ClassWriter w, String name, Type[] captured) {
        for (int i = 0; i < captured.length; i++) w.visitField(Opcodes.ACC_PRIVATE | Opcodes.ACC_FINAL, "c" + i, captured[i].getDescriptor(), null, null).visitEnd();
        String descriptor = Type.getMethodDescriptor(Type.VOID_TYPE, captured);
        MethodVisitor m = w.visitMethod(Opcodes.ACC_PRIVATE, "<init>", descriptor, null, null);
        m.visitCode();
        m.visitVarInsn(Opcodes.ALOAD, 0);
        m.visitMethodInsn(Opcodes.INVOKESPECIAL, "java/lang/Object", "<init>", "()V", false);
        int slot = 1;
        for (int i = 0; i < captured.length; i++) {
            m.visitVarInsn(Opcodes.ALOAD, 0);
            m.visitVarInsn(captured[i].getOpcode(Opcodes.ILOAD), slot);
            slot += captured[i].getSize();
            m.visitFieldInsn(Opcodes.PUTFIELD, name, "c" + i, captured[i].getDescriptor());
        }
        m.visitInsn(Opcodes.RETURN);
        m.visitMaxs(0, 0);
        m.visitEnd();
        if (captured.length > 0) return;
        w.visitField(Opcodes.ACC_STATIC | Opcodes.ACC_FINAL, "INSTANCE", "L" + name + ";", null, null).visitEnd();
        MethodVisitor init = w.visitMethod(Opcodes.ACC_STATIC, "<clinit>", "()V", null, null);
        init.visitCode();
        init.visitTypeInsn(Opcodes.NEW, name);
        init.visitInsn(Opcodes.DUP);
        init.visitMethodInsn(Opcodes.INVOKESPECIAL, name, "<init>", "()V", false);
        init.visitFieldInsn(Opcodes.PUTSTATIC, name, "INSTANCE", "L" + name + ";");
        init.visitInsn(Opcodes.RETURN);
        init.visitMaxs(0, 0);
        init.visitEnd();
    }

    /// `static I create(T0 c0, …) { return new Host$Lambda$n(c0, …); }`, or `return INSTANCE;`:
    /// the call site's replacement, with the call site's own descriptor.
    private static void create(ClassWriter w, String name, String indyDescriptor, Type[] captured) {
        MethodVisitor m = w.visitMethod(Opcodes.ACC_STATIC, "create", indyDescriptor, null, null);
        m.visitCode();
        if (captured.length == 0) {
            m.visitFieldInsn(Opcodes.GETSTATIC, name, "INSTANCE", "L" + name + ";");
        } else {
            m.visitTypeInsn(Opcodes.NEW, name);
            m.visitInsn(Opcodes.DUP);
            int slot = 0;
            for (Type type : captured) {
                m.visitVarInsn(type.getOpcode(Opcodes.ILOAD), slot);
                slot += type.getSize();
            }
            m.visitMethodInsn(Opcodes.INVOKESPECIAL, name, "<init>", Type.getMethodDescriptor(Type.VOID_TYPE, captured), false);
        }
        m.visitInsn(Opcodes.ARETURN);
        m.visitMaxs(0, 0);
        m.visitEnd();
    }
}
