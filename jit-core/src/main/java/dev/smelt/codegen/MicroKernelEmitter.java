// SPDX-License-Identifier: Apache-2.0
package dev.smelt.codegen;

import static org.objectweb.asm.Opcodes.ACC_FINAL;
import static org.objectweb.asm.Opcodes.ACC_PRIVATE;
import static org.objectweb.asm.Opcodes.ACC_PUBLIC;
import static org.objectweb.asm.Opcodes.ACC_STATIC;
import static org.objectweb.asm.Opcodes.ACC_SUPER;
import static org.objectweb.asm.Opcodes.ALOAD;
import static org.objectweb.asm.Opcodes.ASTORE;
import static org.objectweb.asm.Opcodes.CHECKCAST;
import static org.objectweb.asm.Opcodes.GETSTATIC;
import static org.objectweb.asm.Opcodes.IADD;
import static org.objectweb.asm.Opcodes.IFEQ;
import static org.objectweb.asm.Opcodes.IMUL;
import static org.objectweb.asm.Opcodes.INVOKESPECIAL;
import static org.objectweb.asm.Opcodes.PUTSTATIC;
import static org.objectweb.asm.Opcodes.RETURN;
import static org.objectweb.asm.Opcodes.V21;

import dev.smelt.ir.DType;
import org.objectweb.asm.ClassWriter;
import org.objectweb.asm.Type;

/// Generates the register-blocked FMA micro-kernel of a [MicroKernelShape] as a [MicroKernel]
/// class. For `tile f32 6x4 vectors of 16 lanes` (AVX-512 uses 12×2; the code has the same form), as Java:
/// ```
/// public final class Tile$<hash> implements MicroKernel {          // SourceFile kernel-<hash>.ir
///     private static final VectorSpecies<Float> SPECIES = VectorSpecies.of(float.class, VectorShape.forBitSize(512));
///     public void run(Object pa, int a, Object pb, int b, int depth, Object pc, int c, int ldc, boolean accumulate) {
///         float[] A = (float[]) pa, B = (float[]) pb, C = (float[]) pc;
///         FloatVector c00 = FloatVector.zero(SPECIES), …, c53 = FloatVector.zero(SPECIES);   // 24 accumulators
///         for (int p = 0; p < depth; p++, a += 6, b += 64) {
///             FloatVector b0 = FloatVector.fromArray(SPECIES, B, b), …, b3 = FloatVector.fromArray(SPECIES, B, b + 48);
///             FloatVector a0 = FloatVector.broadcast(SPECIES, A[a]);
///             c00 = a0.lanewise(FMA, b0, c00); … c03 = a0.lanewise(FMA, b3, c03);
///             …                                                         // rows 1 to 5 alike, from A[a + r]
///         }
///         if (accumulate) { c00 = c00.lanewise(ADD, FloatVector.fromArray(SPECIES, C, c + 0 * ldc + 0)); … }
///         c00.intoArray(C, c + 0 * ldc + 0); …; c53.intoArray(C, c + 5 * ldc + 48);
///     }
/// }
/// ```
/// Every vector is a local that never escapes, so C2 keeps the accumulators in registers and
/// allocates nothing. The method is about 45 bytes per FMA, far under the 8000-byte limit.
public final class MicroKernelEmitter {
    private static final String SPECIES = "SPECIES", SPECIES_TYPE = "Ljdk/incubator/vector/VectorSpecies;";

    // Slots of run's parameters, then of its locals.
    private static final int A_PARAM = 1, A_INDEX = 2, B_PARAM = 3, B_INDEX = 4, DEPTH = 5, C_PARAM = 6, C_INDEX = 7, LDC = 8, ACCUMULATE = 9;
    private static final int A = 10, B = 11, C = 12, P = 13, VECTORS = 14;

    private final MicroKernelShape shape;
    private final String className;
    private final VectorApi.Methods api;
    private final ClassWriter writer = new ClassWriter(ClassWriter.COMPUTE_FRAMES) {
        @Override
        protected String getCommonSuperClass(String left, String right) { return "java/lang/Object"; }
    };

    private MicroKernelEmitter(MicroKernelShape shape, String className) {
        this.shape = shape;
        this.className = className;
        this.api = VectorApi.of(shape.dtype());
    }

    /// The class for `shape`, named `Tile$<hash of its text>` in the runtime's package.
    public static GeneratedKernel emit(MicroKernelShape shape) {
        String text = shape + "\n", hash = KernelEmitter.hash(text);
        String className = KernelEmitter.PACKAGE + "/Tile$" + hash;
        var emitter = new MicroKernelEmitter(shape, className);
        int runSize = emitter.write("kernel-" + hash + ".ir"); // the name GeneratedKernel.sourceFile dumps it under
        if (runSize > KernelEmitter.METHOD_LIMIT) throw new KernelTooLargeException("run", runSize, KernelEmitter.METHOD_LIMIT);
        return new GeneratedKernel(className.replace('/', '.'), emitter.writer.toByteArray(), runSize, Variant.VECTOR, java.util.List.of(), text);
    }

    private int write(String sourceFile) {
        writer.visit(V21, ACC_PUBLIC | ACC_FINAL | ACC_SUPER, className, null, "java/lang/Object",
                new String[] {Type.getInternalName(MicroKernel.class)});
        writer.visitSource(sourceFile, null);
        writer.visitField(ACC_PRIVATE | ACC_STATIC | ACC_FINAL, SPECIES, SPECIES_TYPE, null, null).visitEnd();
        Code.defaultConstructor(writer);
        species();
        int size = run();
        writer.visitEnd();
        return size;
    }


    // static { SPECIES = VectorSpecies.of(float.class, VectorShape.forBitSize(lanes * 32)); }
    private void species() {
        var clinit = writer.visitMethod(ACC_STATIC, "<clinit>", "()V", null, null);
        clinit.visitCode();
        VectorApi.speciesOf(clinit, shape.dtype(), shape.lanes() * shape.dtype().bytes() * 8);
        clinit.visitFieldInsn(PUTSTATIC, className, SPECIES, SPECIES_TYPE);
        clinit.visitInsn(RETURN);
        clinit.visitMaxs(0, 0);
        clinit.visitEnd();
    }

    /// `run` as in the class comment; returns its code size.
    private int run() {
        var mv = writer.visitMethod(ACC_PUBLIC, "run", "(Ljava/lang/Object;ILjava/lang/Object;IILjava/lang/Object;IIZ)V", null, null);
        mv.visitCode();
        var code = new Code(mv);
        code.line(1);
        castArray(code, A_PARAM, A);
        castArray(code, B_PARAM, B);
        castArray(code, C_PARAM, C);
        for (int r = 0; r < shape.rows(); r++)
            for (int j = 0; j < shape.vectors(); j++) {
                pushSpecies(code);
                api.zero().invoke(mv);
                mv.visitVarInsn(ASTORE, accumulator(r, j));
            }
        code.pushInt(0);
        code.storeInt(P);
        code.forLoop(P, DEPTH, 1, () -> step(code));
        code.loadInt(ACCUMULATE);
        code.ifThen(IFEQ, () -> addTile(code));
        storeTile(code);
        mv.visitInsn(RETURN);
        int size = code.size();
        mv.visitMaxs(0, 0);
        mv.visitEnd();
        return size;
    }

    // float[] A = (float[]) pa;
    private void castArray(Code code, int parameter, int local) {
        code.mv.visitVarInsn(ALOAD, parameter);
        code.mv.visitTypeInsn(CHECKCAST, Type.getDescriptor(shape.dtype() == DType.F32 ? float[].class : double[].class));
        code.mv.visitVarInsn(ASTORE, local);
    }

    /// One step of K: load B's vectors, then per row broadcast A and fuse-multiply-add into the
    /// row's accumulators; `a += rows; b += columns`.
    private void step(Code code) {
        var mv = code.mv;
        for (int j = 0; j < shape.vectors(); j++) {
            pushSpecies(code);                                   // FloatVector.fromArray(SPECIES, B, b + j * lanes)
            mv.visitVarInsn(ALOAD, B);
            index(code, B_INDEX, j * shape.lanes());
            api.fromArray().invoke(mv);
            mv.visitVarInsn(ASTORE, bVector(j));
        }
        for (int r = 0; r < shape.rows(); r++) {
            pushSpecies(code);                                   // FloatVector.broadcast(SPECIES, A[a + r])
            mv.visitVarInsn(ALOAD, A);
            index(code, A_INDEX, r);
            code.op(Code.scalarType(shape.dtype()).getOpcode(org.objectweb.asm.Opcodes.IALOAD));
            api.broadcast().invoke(mv);
            mv.visitVarInsn(ASTORE, aVector());
            for (int j = 0; j < shape.vectors(); j++) {         // c_rj = a.lanewise(FMA, b_j, c_rj)
                mv.visitVarInsn(ALOAD, aVector());
                mv.visitVarInsn(ALOAD, bVector(j));
                mv.visitVarInsn(ALOAD, accumulator(r, j));
                (shape.dtype() == DType.F32 ? VectorApi.FLOAT_FMA : VectorApi.DOUBLE_FMA).invoke(mv);
                mv.visitVarInsn(ASTORE, accumulator(r, j));
            }
        }
        mv.visitIincInsn(A_INDEX, shape.rows());
        mv.visitIincInsn(B_INDEX, shape.columns());
    }

    // c_rj = c_rj.lanewise(ADD, FloatVector.fromArray(SPECIES, C, c + r * ldc + j * lanes)), for every r, j
    private void addTile(Code code) {
        var mv = code.mv;
        for (int r = 0; r < shape.rows(); r++)
            for (int j = 0; j < shape.vectors(); j++) {
                mv.visitVarInsn(ALOAD, accumulator(r, j));
                pushSpecies(code);
                mv.visitVarInsn(ALOAD, C);
                tileIndex(code, r, j);
                api.fromArray().invoke(mv);
                api.add().invoke(mv);
                mv.visitVarInsn(ASTORE, accumulator(r, j));
            }
    }

    // c_rj.intoArray(C, c + r * ldc + j * lanes), for every r, j
    private void storeTile(Code code) {
        for (int r = 0; r < shape.rows(); r++)
            for (int j = 0; j < shape.vectors(); j++) {
                code.mv.visitVarInsn(ALOAD, accumulator(r, j));
                code.mv.visitVarInsn(ALOAD, C);
                tileIndex(code, r, j);
                api.intoArray().invoke(code.mv);
            }
    }

    // c + r * ldc + j * lanes
    private void tileIndex(Code code, int r, int j) {
        code.loadInt(C_INDEX);
        code.loadInt(LDC);
        code.pushInt(r);
        code.op(IMUL);
        code.op(IADD);
        code.pushInt(j * shape.lanes());
        code.op(IADD);
    }

    // index + offset
    private static void index(Code code, int slot, int offset) {
        code.loadInt(slot);
        if (offset == 0) return;
        code.pushInt(offset);
        code.op(IADD);
    }

    private void pushSpecies(Code code) { code.mv.visitFieldInsn(GETSTATIC, className, SPECIES, SPECIES_TYPE); }

    private int accumulator(int r, int j) { return VECTORS + r * shape.vectors() + j; }

    private int bVector(int j) { return VECTORS + shape.rows() * shape.vectors() + j; }

    private int aVector() { return bVector(shape.vectors()); }
}
