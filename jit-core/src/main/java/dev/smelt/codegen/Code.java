// SPDX-License-Identifier: Apache-2.0
package dev.smelt.codegen;

import static org.objectweb.asm.Opcodes.BIPUSH;
import static org.objectweb.asm.Opcodes.GOTO;
import static org.objectweb.asm.Opcodes.ICONST_0;
import static org.objectweb.asm.Opcodes.ICONST_1;
import static org.objectweb.asm.Opcodes.IF_ICMPGE;
import static org.objectweb.asm.Opcodes.ILOAD;
import static org.objectweb.asm.Opcodes.ISTORE;
import static org.objectweb.asm.Opcodes.NEWARRAY;
import static org.objectweb.asm.Opcodes.SIPUSH;
import static org.objectweb.asm.Opcodes.T_BYTE;
import static org.objectweb.asm.Opcodes.T_DOUBLE;
import static org.objectweb.asm.Opcodes.T_FLOAT;
import static org.objectweb.asm.Opcodes.T_INT;

import dev.smelt.ir.DType;
import org.objectweb.asm.Label;
import org.objectweb.asm.MethodVisitor;
import org.objectweb.asm.Type;

/// A method body under construction: typed loads and stores, constants, and the few structured
/// control-flow shapes kernels need (counted loops, if/else), modelled on `java.lang.classfile`'s
/// `CodeBuilder`, so no emitter ever handles a [Label].
final class Code {
    // public <Generated>() { super(); }
    static void defaultConstructor(org.objectweb.asm.ClassVisitor writer) {
        var mv = writer.visitMethod(org.objectweb.asm.Opcodes.ACC_PUBLIC, "<init>", "()V", null, null);
        mv.visitCode();
        mv.visitVarInsn(org.objectweb.asm.Opcodes.ALOAD, 0);
        mv.visitMethodInsn(org.objectweb.asm.Opcodes.INVOKESPECIAL, "java/lang/Object", "<init>", "()V", false);
        mv.visitInsn(org.objectweb.asm.Opcodes.RETURN);
        mv.visitMaxs(0, 0);
        mv.visitEnd();
    }

    final MethodVisitor mv;

    Code(MethodVisitor mv) { this.mv = mv; }

    /// The JVM type a value of `dtype` has on the operand stack and in locals; `bool` is an `int` 0 or 1.
    static Type scalarType(DType dtype) {
        return switch (dtype) {
            case BOOL, I32 -> Type.INT_TYPE;
            case F32 -> Type.FLOAT_TYPE;
            case F64 -> Type.DOUBLE_TYPE;
        };
    }

    /// The element type of `dtype`'s buffers; `bool` is one byte per element.
    static Type elementType(DType dtype) { return dtype == DType.BOOL ? Type.BYTE_TYPE : scalarType(dtype); }

    void op(int opcode) { mv.visitInsn(opcode); }

    void load(Type type, int slot) { mv.visitVarInsn(type.getOpcode(ILOAD), slot); }

    void store(Type type, int slot) { mv.visitVarInsn(type.getOpcode(ISTORE), slot); }

    void loadInt(int slot) { load(Type.INT_TYPE, slot); }

    void storeInt(int slot) { store(Type.INT_TYPE, slot); }

    void pushInt(int value) {
        if (value >= -1 && value <= 5) mv.visitInsn(ICONST_0 + value);
        else if (value >= Byte.MIN_VALUE && value <= Byte.MAX_VALUE) mv.visitIntInsn(BIPUSH, value);
        else if (value >= Short.MIN_VALUE && value <= Short.MAX_VALUE) mv.visitIntInsn(SIPUSH, value);
        else mv.visitLdcInsn(value);
    }

    /// Pushes `value`, already rounded to `dtype`, as `dtype`'s JVM type.
    void pushConstant(DType dtype, double value) {
        switch (dtype) {
            case BOOL, I32 -> pushInt((int) value);
            case F32 -> mv.visitLdcInsn((float) value);
            case F64 -> mv.visitLdcInsn(value);
        }
    }

    /// `new float[<length on the stack>]`: an array of `dtype`'s [#elementType].
    void newArray(DType dtype) {
        mv.visitIntInsn(NEWARRAY, switch (dtype) {
            case BOOL -> T_BYTE;
            case I32 -> T_INT;
            case F32 -> T_FLOAT;
            case F64 -> T_DOUBLE;
        });
    }

    /// Maps the code that follows to `line` of the printed kernel (the class's `SourceFile`).
    void line(int line) {
        var here = new Label();
        mv.visitLabel(here);
        mv.visitLineNumber(line, here);
    }

    /// `while (counter < limit) body`, for a `limit` in local slot `limitSlot`.
    void whileLess(int counter, int limitSlot, Runnable body) { loop(counter, null, limitSlot, 0, body); }

    /// `for (; counter < <limit>; counter += step) body`.
    void forLoop(int counter, Runnable limit, int step, Runnable body) { loop(counter, limit, -1, step, body); }

    /// `for (; counter < limit; counter += step) body`, for a `limit` in local slot `limitSlot`.
    void forLoop(int counter, int limitSlot, int step, Runnable body) { loop(counter, null, limitSlot, step, body); }

    /// `for (counter = 0; counter < limit; counter++) body`, for a constant `limit`.
    void forRange(int counter, int limit, Runnable body) {
        pushInt(0);
        storeInt(counter);
        forLoop(counter, () -> pushInt(limit), 1, body);
    }

    // top: if (counter >= <limit, or the local limitSlot>) goto done; body; counter += step; goto top; done:
    // (a slot rather than a lambda that loads it: each lambda costs a fresh JVM's first compile a bootstrap)
    private void loop(int counter, Runnable limit, int limitSlot, int step, Runnable body) {
        Label top = new Label(), done = new Label();
        mv.visitLabel(top);
        loadInt(counter);
        if (limit != null) limit.run();
        else loadInt(limitSlot);
        mv.visitJumpInsn(IF_ICMPGE, done);
        body.run();
        if (step != 0) mv.visitIincInsn(counter, step);
        mv.visitJumpInsn(GOTO, top);
        mv.visitLabel(done);
    }

    /// `if (<condition>) then else otherwise`, where the operands of `jumpIfFalse` (a conditional
    /// jump opcode taken when the condition does not hold) are already on the stack.
    void ifElse(int jumpIfFalse, Runnable then, Runnable otherwise) {
        Label elseBranch = new Label(), done = new Label();
        mv.visitJumpInsn(jumpIfFalse, elseBranch);
        then.run();
        mv.visitJumpInsn(GOTO, done);
        mv.visitLabel(elseBranch);
        otherwise.run();
        mv.visitLabel(done);
    }

    /// `if (<condition>) then`, as [#ifElse] with nothing in the else branch.
    void ifThen(int jumpIfFalse, Runnable then) {
        Label done = new Label();
        mv.visitJumpInsn(jumpIfFalse, done);
        then.run();
        mv.visitLabel(done);
    }

    /// `<condition> ? 1 : 0`: a `bool` from a comparison whose operands are on the stack.
    void bool(int jumpIfFalse) {
        Label elseBranch = new Label(), done = new Label();
        mv.visitJumpInsn(jumpIfFalse, elseBranch);
        pushInt(1);
        mv.visitJumpInsn(GOTO, done);
        mv.visitLabel(elseBranch);
        pushInt(0);
        mv.visitLabel(done);
    }

    /// The bytecode length so far; call at the end of a method for its code size.
    int size() {
        var end = new Label();
        mv.visitLabel(end);
        return end.getOffset();
    }
}
