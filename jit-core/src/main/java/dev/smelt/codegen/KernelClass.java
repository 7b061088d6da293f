// SPDX-License-Identifier: Apache-2.0
package dev.smelt.codegen;

import static org.objectweb.asm.Opcodes.*;

import dev.smelt.ir.DType;
import dev.smelt.kernel.Kernel;
import dev.smelt.kernel.KernelFunction;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Consumer;
import java.util.stream.IntStream;
import org.objectweb.asm.ClassWriter;
import org.objectweb.asm.Type;

/// Writes the class file for one kernel: the constructor, `run`, the helpers of a split kernel,
/// and for vector kernels the species and stride-map constants with their `<clinit>`.
///
/// Inline, `run` holds every loop. Split, `run` only calls one static helper per section (each
/// reduction, each full output, the row outputs), each of which computes one row and finds its own
/// arrays and indices; `run` allocates the element arrays and passes them to every helper.
/// Splitting is how a kernel stays under HotSpot's huge-method limit.
final class KernelClass {
    /// The written class and its largest method; no bytes when a method is over the limit (ASM
    /// would refuse one over 64 KiB).
    record Written(byte[] bytes, int runSize, String largest, int largestSize, List<String> fallbacks) {}

    private static final String BUFFERS_INT_INT = "([Ljava/lang/Object;II";
    private static final Type OBJECT = Type.getType(Object.class);

    private final Kernel kernel;
    private final LoopSpace space;
    private final VectorPlan plan;
    private final SumOrder order;
    private final ColumnPlan columns;
    private final String className;
    private final boolean split;
    /// The scalar variant's transcendental methods; null in a vector class, which keeps them inline.
    private final ScalarFunctions functions;
    private final ClassWriter writer = new ClassWriter(ClassWriter.COMPUTE_FRAMES) {
        // Only vector temporaries merge two reference types, and they are stored before each use.
        @Override
        protected String getCommonSuperClass(String left, String right) { return "java/lang/Object"; }
    };
    private final Set<Integer> strideMaps = new TreeSet<>();
    private final List<String> fallbacks = new ArrayList<>();
    private String largest = "run";
    private int largestSize, runSize;

    /// With `columns`, an inline `run` is a column reduction's ([ColumnEmitter]). `plan` is null
    /// for a scalar class (and for a vector one without vector loops); `order` is the vector variant's either way.
    KernelClass(Kernel kernel, LoopSpace space, Variant variant, VectorPlan plan, SumOrder order, ColumnPlan columns, String className, boolean split) {
        this.order = order;
        this.columns = columns;
        this.kernel = kernel;
        this.space = space;
        this.plan = plan;
        this.className = className;
        this.split = split;
        this.functions = variant == Variant.SCALAR ? new ScalarFunctions(className) : null;
    }

    Written write(String sourceFile) {
        writer.visit(V21, ACC_PUBLIC | ACC_FINAL | ACC_SUPER, className, null, "java/lang/Object",
                new String[] {Type.getInternalName(KernelFunction.class)});
        writer.visitSource(sourceFile, null);
        Code.defaultConstructor(writer);
        runSize = method(ACC_PUBLIC, "run", BUFFERS_INT_INT + ")V", true, 0, split ? this::splitRun : columns != null ? this::columnRun : this::inlineRun);
        if (split) helpers();
        if (functions != null) functions.write(writer);
        if (plan != null) constants();
        writer.visitEnd();
        byte[] bytes = largestSize <= KernelEmitter.METHOD_LIMIT ? writer.toByteArray() : null;
        return new Written(bytes, runSize, largest, largestSize, fallbacks);
    }


    /// The tools for emitting one method body.
    private record Method(Code code, KernelLayout layout, LoopEmitter loops) {}

    private int method(int access, String name, String descriptor, boolean instance, int resultParameters, Consumer<Method> body) {
        var mv = writer.visitMethod(access, name, descriptor, null, null);
        mv.visitCode();
        var code = new Code(mv);
        var layout = KernelLayout.of(kernel, space, instance, resultParameters);
        var scalar = new ScalarEmitter(code, kernel, space, layout, functions);
        var vector = plan == null ? null : new VectorEmitter(code, kernel, space, layout, plan, scalar, className, strideMaps);
        code.line(1);
        body.accept(new Method(code, layout, new LoopEmitter(code, kernel, space, layout, scalar, vector, plan, order, fallbacks)));
        int size = code.size();
        mv.visitMaxs(0, 0);
        mv.visitEnd();
        if (size > largestSize) {
            largest = name;
            largestSize = size;
        }
        return size;
    }

    // float[] in0 = …; float[] element1 = new float[rowLength]; <points or rows, with every section inline>
    private void inlineRun(Method m) {
        m.loops().loadArrays(usedBuffers());
        m.loops().allocateElements();
        m.loops().allocateLanes(IntStream.range(0, kernel.reductions().size()).boxed().toList());
        if (kernel.reducedRank() == 0) m.loops().points(fullOutputs());
        else m.loops().rows(() -> {
            m.loops().rowIndices(m.layout().row());
            kernel.reductionPasses().forEach(m.loops()::reductions);
            if (!fullOutputs().isEmpty()) m.loops().fullOutputs(fullOutputs());
            if (!rowOutputs().isEmpty()) m.loops().rowOutputs(rowOutputs());
        });
        m.code().op(RETURN);
    }

    // float[] in0 = …; <rows, LANES at a time>   (see ColumnEmitter)
    private void columnRun(Method m) {
        new ColumnEmitter(m.code(), kernel, space, columns, m.layout(), plan, className, strideMaps).run(usedBuffers(), fullOutputs(), rowOutputs());
    }

    // output0(buffers, start, end); …   /   float[] element1 = new float[rowLength];
    // for (row…) { r0 = reduce0(buffers, row, row + 1, element1); …; output0(buffers, row, row + 1, element1, r0, …); }
    private void splitRun(Method m) {
        m.loops().allocateElements();
        if (kernel.reducedRank() == 0) {
            for (int i : fullOutputs()) call(m, "output" + i, 0, m.layout().start(), Type.VOID_TYPE);
        } else m.loops().rows(() -> {
            int results = kernel.reductions().size();
            for (int k = 0; k < results; k++) {
                var type = Code.scalarType(kernel.reductions().get(k).dtype());
                call(m, "reduce" + k, k, m.layout().row(), type);
                m.code().store(type, m.layout().results().get(k));
            }
            for (int i : fullOutputs()) call(m, "output" + i, results, m.layout().row(), Type.VOID_TYPE);
            if (!rowOutputs().isEmpty()) call(m, "rowOutputs", results, m.layout().row(), Type.VOID_TYPE);
        });
        m.code().op(RETURN);
    }

    // <name>(buffers, from, end or from + 1, element1, …, r0, …)
    private void call(Method m, String name, int results, int from, Type returns) {
        var code = m.code();
        code.load(OBJECT, m.layout().buffers());
        code.loadInt(from);
        if (kernel.reducedRank() == 0) code.loadInt(m.layout().end());
        else {
            code.loadInt(from);
            code.pushInt(1);
            code.op(IADD);
        }
        for (int slot : m.layout().elements()) if (slot >= 0) code.load(OBJECT, slot);
        for (int k = 0; k < results; k++) code.load(Code.scalarType(kernel.reductions().get(k).dtype()), m.layout().results().get(k));
        code.mv.visitMethodInsn(INVOKESTATIC, className, name, descriptor(results, returns), false);
    }

    private void helpers() {
        int results = kernel.reductions().size();
        for (int k = 0; k < results; k++) {
            int reduction = k;
            var type = Code.scalarType(kernel.reductions().get(k).dtype());
            helper("reduce" + k, k, type, m -> {
                m.loops().loadArrays(LoopSpace.reductionBuffers(kernel, reduction));
                m.loops().rowIndices(m.layout().start());
                m.loops().allocateLanes(List.of(reduction));
                m.loops().reductions(List.of(reduction));
                m.code().load(type, m.layout().results().get(reduction));
                m.code().op(type.getOpcode(IRETURN));
            });
        }
        for (int i : fullOutputs())
            helper("output" + i, results, Type.VOID_TYPE, m -> {
                m.loops().loadArrays(m.loops().buffersOf(List.of(i)));
                if (kernel.reducedRank() == 0) m.loops().points(List.of(i));
                else {
                    m.loops().rowIndices(m.layout().start());
                    m.loops().fullOutputs(List.of(i));
                }
                m.code().op(RETURN);
            });
        if (!rowOutputs().isEmpty())
            helper("rowOutputs", results, Type.VOID_TYPE, m -> {
                m.loops().loadArrays(m.loops().buffersOf(rowOutputs()));
                m.loops().rowIndices(m.layout().start());
                m.loops().rowOutputs(rowOutputs());
                m.code().op(RETURN);
            });
    }

    private void helper(String name, int results, Type returns, Consumer<Method> body) {
        method(ACC_PRIVATE | ACC_STATIC, name, descriptor(results, returns), false, results, body);
    }

    private String descriptor(int results, Type returns) {
        var parameters = new StringBuilder(BUFFERS_INT_INT);
        var elements = LoopSpace.elements(kernel);
        for (int k = elements.nextSetBit(0); k >= 0; k = elements.nextSetBit(k + 1))
            parameters.append('[').append(Code.elementType(kernel.reductions().get(k).value().dtype()).getDescriptor());
        for (int k = 0; k < results; k++) parameters.append(Code.scalarType(kernel.reductions().get(k).dtype()).getDescriptor());
        return parameters.append(')').append(returns.getDescriptor()).toString();
    }

    /// `static final VectorSpecies SPECIES_F32 = VectorSpecies.of(float.class, VectorShape.forBitSize(512))`
    /// for each dtype, and `static final int[] STRIDE_3 = {0, 3, 6, …}` for each gathered stride.
    private void constants() {
        var clinit = writer.visitMethod(ACC_STATIC, "<clinit>", "()V", null, null);
        clinit.visitCode();
        var code = new Code(clinit);
        for (var dtype : DType.values()) {
            if (!plan.hasSpecies(dtype)) continue;
            writer.visitField(ACC_PRIVATE | ACC_STATIC | ACC_FINAL, VectorPlan.speciesField(dtype), "Ljdk/incubator/vector/VectorSpecies;", null, null).visitEnd();
            VectorApi.speciesOf(clinit, dtype, plan.bits(dtype));
            clinit.visitFieldInsn(PUTSTATIC, className, VectorPlan.speciesField(dtype), "Ljdk/incubator/vector/VectorSpecies;");
        }
        for (int stride : strideMaps) {
            String field = VectorEmitter.strideMapField(stride);
            writer.visitField(ACC_PRIVATE | ACC_STATIC | ACC_FINAL, field, "[I", null, null).visitEnd();
            code.pushInt(plan.lanes());
            clinit.visitIntInsn(NEWARRAY, T_INT);
            for (int lane = 0; lane < plan.lanes(); lane++) {
                code.op(DUP);
                code.pushInt(lane);
                code.pushInt((int) ((long) lane * stride));
                code.op(IASTORE);
            }
            clinit.visitFieldInsn(PUTSTATIC, className, field, "[I");
        }
        code.op(RETURN);
        clinit.visitMaxs(0, 0);
        clinit.visitEnd();
    }

    private BitSet usedBuffers() {
        var buffers = new BitSet();
        for (var reduction : kernel.reductions()) buffers.or(LoopSpace.loads(reduction.value()));
        for (int i = 0; i < kernel.outputs().size(); i++) {
            buffers.set(kernel.inputs().size() + i);
            buffers.or(LoopSpace.loads(kernel.outputs().get(i).value()));
        }
        return buffers;
    }

    private List<Integer> fullOutputs() { return outputs(false); }

    private List<Integer> rowOutputs() { return outputs(true); }

    private List<Integer> outputs(boolean perRow) {
        var outputs = new ArrayList<Integer>();
        for (int i = 0; i < kernel.outputs().size(); i++) if (kernel.outputs().get(i).perRow() == perRow) outputs.add(i);
        return outputs;
    }
}
