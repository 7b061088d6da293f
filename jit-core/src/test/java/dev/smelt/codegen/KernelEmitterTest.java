// SPDX-License-Identifier: Apache-2.0
package dev.smelt.codegen;

import static dev.smelt.codegen.Kernels.X;
import static dev.smelt.codegen.Kernels.binary;
import static dev.smelt.codegen.Kernels.tree;
import static dev.smelt.codegen.Kernels.unary;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.smelt.ir.BinaryOp;
import dev.smelt.ir.DType;
import dev.smelt.ir.ReduceOp;
import dev.smelt.ir.Shape;
import dev.smelt.ir.UnaryOp;
import dev.smelt.kernel.Expr;
import dev.smelt.kernel.IndexMap;
import dev.smelt.kernel.Kernel;
import dev.smelt.kernel.KernelFunction;
import dev.smelt.kernel.KernelPrinter;
import dev.smelt.testing.RandomData;
import java.lang.classfile.ClassFile;
import java.lang.classfile.attribute.CodeAttribute;
import java.util.Arrays;
import java.util.List;
import java.util.stream.IntStream;
import jdk.incubator.vector.FloatVector;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/// Hand-written kernels through both variants, checked against the interpreter like the random
/// ones ([Differential]), and the shape of the generated classes.
class KernelEmitterTest {
    static final int LANES = FloatVector.SPECIES_PREFERRED.length();

    @ParameterizedTest
    @EnumSource(Variant.class)
    void softmaxOverRowsOfAPrimeLengthMatchesInterpreter(Variant variant) {
        check(Kernels.softmax(5, 1027), variant);
    }

    @ParameterizedTest
    @EnumSource(Variant.class)
    void softmaxReadingBackTheExponentialsMatchesInterpreter(Variant variant) {
        var kernel = Kernels.softmaxReusingElements(5, 1027);
        assertTrue(kernel.toString().contains("= div(e1, r1)"), kernel.toString());
        check(kernel, variant);
        check(Kernels.softmaxReusingElements(3, LANES - 1), variant);
        String text = Compiled.text(Compiled.emit(kernel, variant));
        assertEquals(0, count(text, "NEWARRAY T_FLOAT"), "no element array: out0 keeps the exponentials (ElementHome)\n" + text);
        // Scalar: r1's loop. Vector: r1's loop unrolled by two (two bodies), its last single vector, its scalar tail.
        // (exp's 2^-64, the second power of two it scales by, marks each exp: the scalar one is a method)
        assertEquals(variant == Variant.SCALAR ? 1 : 4, count(text, "LDC 5.421011E-20F"), "exp in r1's loops only\n" + text);
    }

    /// Where out0 cannot keep e1 (a second output reads it too, or out0 has another dtype), one
    /// row array, allocated once per run, keeps it instead.
    @ParameterizedTest
    @EnumSource(Variant.class)
    void exponentialsNoOutputCanKeepGoToARowArray(Variant variant) {
        var softmax = Kernels.softmaxReusingElements(5, 1027);
        var space = softmax.space();
        var twoReaders = new Kernel(space, 1, softmax.inputs(), softmax.reductions(), List.of(softmax.outputs().getFirst(),
                Kernels.output(binary(BinaryOp.MUL, Kernels.element(1), Kernels.element(1)), space)));
        var widened = new Kernel(space, 1, softmax.inputs(), softmax.reductions(), List.of(new Kernel.Output(
                new Expr.Cast(softmax.outputs().getFirst().value(), DType.F64), space.size(), IndexMap.contiguous(space), false)));
        for (var kernel : List.of(twoReaders, widened)) {
            check(kernel, variant);
            String text = Compiled.text(Compiled.emit(kernel, variant));
            assertEquals(1, count(text, "NEWARRAY T_FLOAT"), "one element array for r1\n" + text);
        }
    }

    /// out0 keeps e0, which the later reduction r1 reads back from it before the output pass
    /// overwrites it; rows of a prime length and of fewer points than lanes.
    @ParameterizedTest
    @EnumSource(Variant.class)
    void aLaterReductionReadsBackElementsTheOutputKeeps(Variant variant) {
        for (int columns : new int[] {1, LANES - 1, 1027}) {
            var space = Shape.of(3, columns);
            var exp = unary(UnaryOp.EXP, Kernels.X);
            var reductions = List.of(new Kernel.Reduction(ReduceOp.SUM, exp),
                    new Kernel.Reduction(ReduceOp.MAX, binary(BinaryOp.MUL, Kernels.element(0), Kernels.X)));
            var value = binary(BinaryOp.SUB, binary(BinaryOp.DIV, Kernels.element(0), Kernels.result(0)), Kernels.result(1));
            var kernel = new Kernel(space, 1, List.of(Kernels.input(space)), reductions, List.of(Kernels.output(value, space)));
            check(kernel, variant);
            assertEquals(0, count(Compiled.text(Compiled.emit(kernel, variant)), "NEWARRAY T_FLOAT"));
        }
    }

    /// logSoftmax's `log(r1)` is the same at every point of a row: computed once per row, before
    /// the output's loops, not once per vector and per tail element.
    @ParameterizedTest
    @EnumSource(Variant.class)
    void aValueTheSameAcrossTheRowIsComputedOncePerRow(Variant variant) {
        var softmax = Kernels.softmax(5, 1027);
        var shifted = binary(BinaryOp.SUB, X, Kernels.result(0));
        var logSoftmax = new Kernel(softmax.space(), 1, softmax.inputs(), softmax.reductions(),
                List.of(Kernels.output(binary(BinaryOp.SUB, shifted, unary(UnaryOp.LOG, Kernels.result(1))), softmax.space())));
        check(logSoftmax, variant);
        String text = Compiled.text(Compiled.emit(logSoftmax, variant));
        assertEquals(1, count(text, "LDC 8388608.0F"), "log(r1) once (its 2^23, which scales a subnormal argument, marks each copy of its steps), before the output's loops\n" + text);
    }

    /// Reductions that read none of one another's results fold in one loop over the row, their
    /// shared value computed once per point there: `log(x)` twice for the two passes, not once per
    /// reduction. Both variants against the interpreter, and the same bits from each.
    @ParameterizedTest
    @EnumSource(Variant.class)
    void independentReductionsFoldInOneLoopOverTheRow(Variant variant) {
        var space = Shape.of(5, 1027);
        var y = new Expr.Load(1, DType.F32);
        var log = new Expr.Shared(0, unary(UnaryOp.LOG, X));
        var reductions = List.of(new Kernel.Reduction(ReduceOp.SUM, binary(BinaryOp.MUL, log, X)), new Kernel.Reduction(ReduceOp.MAX, log),
                new Kernel.Reduction(ReduceOp.SUM, y), new Kernel.Reduction(ReduceOp.SUM, binary(BinaryOp.SUB, log, Kernels.result(0))));
        var rows = new IndexMap(0, List.of(1, 0));
        var outputs = IntStream.range(0, 4).mapToObj(k -> new Kernel.Output(Kernels.result(k), 5, rows, true)).toList();
        var kernel = new Kernel(space, 1, List.of(Kernels.input(space), Kernels.input(space)), reductions, outputs);
        assertEquals(List.of(List.of(0, 1, 2), List.of(3)), kernel.reductionPasses());
        check(kernel, variant);
        long seed = Arrays.hashCode(KernelPrinter.print(kernel).getBytes());
        Differential.agree(seed, kernel, RandomData.buffers(seed, kernel), 0);
        if (variant == Variant.SCALAR)
            assertEquals(2, count(Compiled.text(Compiled.emit(kernel, variant)), "log0 (FII)F"), "log(x) called once in each pass's loop");
    }

    /// Elements of a row of two loop axes (a transposed read keeps them from merging), in an `f64`
    /// reduction and an `i32` one, read by a later reduction and by the output.
    @ParameterizedTest
    @EnumSource(Variant.class)
    void elementsOfRowsOfSeveralLinesMatchInterpreter(Variant variant) {
        var space = Shape.of(3, 7, 37);
        var transposed = new Kernel.Input(DType.F64, 3 * 7 * 37, new IndexMap(0, List.of(7 * 37, 1, 7)));
        var x = new Expr.Load(0, DType.F64);
        var square = binary(BinaryOp.MUL, x, x);
        var rounded = new Expr.Cast(binary(BinaryOp.ADD, x, x), DType.I32);
        var reductions = List.of(new Kernel.Reduction(ReduceOp.SUM, square), new Kernel.Reduction(ReduceOp.MAX, rounded),
                new Kernel.Reduction(ReduceOp.SUM, binary(BinaryOp.SUB, new Expr.Element(0, DType.F64), new Expr.Accumulated(0, DType.F64))));
        var value = binary(BinaryOp.ADD, binary(BinaryOp.DIV, new Expr.Element(0, DType.F64), new Expr.Accumulated(2, DType.F64)),
                new Expr.Cast(new Expr.Element(1, DType.I32), DType.F64));
        var output = new Kernel.Output(value, space.size(), IndexMap.contiguous(space), false);
        check(new Kernel(space, 2, List.of(transposed), reductions, List.of(output)), variant);
    }

    @ParameterizedTest
    @EnumSource(Variant.class)
    void layerNormOverTwoAxesWithRowOutputsMatchesInterpreter(Variant variant) {
        check(Kernels.layerNorm(3, 7, 37), variant);
    }

    @ParameterizedTest
    @EnumSource(Variant.class)
    void argmaxPicksTheFirstExtremeAndNaN(Variant variant) {
        var kernel = Kernels.argmax(4, 5);
        float nan = Float.NaN;
        float[] input = {1, 3, 3, 2, 0, -0f, 0f, -1, -2, 0, 1, nan, 5, nan, 7, Float.NEGATIVE_INFINITY, Float.NEGATIVE_INFINITY, -9, -9, -9};
        var buffers = new Object[] {input, new int[4], new float[4]};
        Compiled.of(kernel, variant).function().run(buffers, 0, 4);
        assertArrayEquals(new int[] {1, 0, 1, 2}, (int[]) buffers[1]);
        assertArrayEquals(new float[] {3, 0, nan, -9}, (float[]) buffers[2]);
    }

    /// Vector `max` and `min` fold integer keys (OrderKeys), not the floats: every special value,
    /// planted in the first vector, the second accumulator's and the scalar tail of a row, must give
    /// `Math.max` and `Math.min` bit for bit: NaN of either sign wins, -0 < +0, ±∞, subnormals.
    @ParameterizedTest
    @EnumSource(Variant.class)
    void maxAndMinOfRowsWithSpecialValuesAreMathMaxAndMin(Variant variant) {
        int columns = 4 * LANES + 3;
        double negativeNaN = Double.longBitsToDouble(0xfff8_0000_0000_0000L);
        double[] specials = {Double.NaN, negativeNaN, 0.0, -0.0, Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY, Double.MIN_VALUE,
                -Double.MIN_VALUE, Float.MIN_VALUE, -Float.MIN_VALUE, Float.MAX_VALUE, -Float.MAX_VALUE};
        int[] places = {0, LANES + 1, 3 * LANES + 2, columns - 1};
        for (var dtype : List.of(DType.F32, DType.F64)) {
            // a row of a constant background with one special planted, for every background and place
            double[] backgrounds = {0.0, -0.0, -1.5, Double.NEGATIVE_INFINITY, Double.POSITIVE_INFINITY, Float.MIN_VALUE};
            int rows = backgrounds.length * specials.length * places.length;
            double[] values = new double[rows * columns];
            int row = 0;
            for (double background : backgrounds)
                for (double special : specials)
                    for (int place : places) {
                        Arrays.fill(values, row * columns, (row + 1) * columns, background);
                        values[row * columns + place] = special;
                        row++;
                    }
            Object input = dtype == DType.F32 ? floats(values) : values;
            Object max = dtype == DType.F32 ? new float[rows] : new double[rows], min = dtype == DType.F32 ? new float[rows] : new double[rows];
            var buffers = new Object[] {input, max, min};
            Compiled.of(Kernels.maxAndMin(rows, columns, dtype), variant).function().run(buffers, 0, rows);
            for (int r = 0; r < rows; r++) {
                double wantMax = Double.NEGATIVE_INFINITY, wantMin = Double.POSITIVE_INFINITY;
                for (int c = 0; c < columns; c++) {
                    double v = dtype == DType.F32 ? ((float[]) input)[r * columns + c] : values[r * columns + c];
                    wantMax = Math.max(wantMax, v);
                    wantMin = Math.min(wantMin, v);
                }
                int at = r;
                assertEquals(sameBits(wantMax), sameBits(element(max, r)), () -> dtype + " max of row " + at);
                assertEquals(sameBits(wantMin), sameBits(element(min, r)), () -> dtype + " min of row " + at);
            }
            long seed = 17 + dtype.ordinal();
            var kernel = Kernels.maxAndMin(9, columns, dtype);
            Differential.check(seed, kernel, RandomData.buffers(seed, kernel), variant);
        }
    }

    /// Vector `relu` is a compare and a blend, not `FloatVector.max`: it must still be `Math.max(x, 0)`
    /// bit for bit, -0 becoming +0 and NaN of either sign staying NaN, in the vector loop and the tail.
    @ParameterizedTest
    @EnumSource(Variant.class)
    void reluOfSpecialValuesIsMathMaxWithZero(Variant variant) {
        float[] specials = {-0f, 0f, Float.NaN, Float.intBitsToFloat(0xffc0_0000), Float.POSITIVE_INFINITY, Float.NEGATIVE_INFINITY,
                Float.MIN_VALUE, -Float.MIN_VALUE, -1.5f, 2.5f, Float.MAX_VALUE, -Float.MAX_VALUE};
        int size = 5 * LANES + 3;
        float[] input = new float[size], output = new float[size];
        for (int i = 0; i < size; i++) input[i] = specials[i % specials.length];
        Compiled.of(Kernels.pointwise(Shape.of(size), unary(UnaryOp.RELU, X)), variant).function().run(new Object[] {input, output}, 0, size);
        for (int i = 0; i < size; i++) {
            float want = Math.max(input[i], 0f);
            int at = i;
            assertEquals(sameBits(want), sameBits(output[i]), () -> "relu(" + input[at] + ") at " + at);
        }
    }

    private static float[] floats(double[] values) {
        float[] floats = new float[values.length];
        for (int i = 0; i < values.length; i++) floats[i] = (float) values[i];
        return floats;
    }

    private static double element(Object array, int i) { return array instanceof float[] f ? f[i] : ((double[]) array)[i]; }

    /// NaN as one value whatever its sign and payload, -0 apart from +0.
    private static long sameBits(double value) { return Double.isNaN(value) ? 1 : Double.doubleToRawLongBits(value); }

    /// Sizes 0, 1, lanes ± 1, a prime, and one no lane count divides.
    @ParameterizedTest
    @EnumSource(Variant.class)
    void pointwiseKernelsOfEdgeSizesMatchInterpreter(Variant variant) {
        var value = unary(UnaryOp.RELU, binary(BinaryOp.ADD, binary(BinaryOp.MUL, X, X), Kernels.f32(-0.5)));
        for (int size : new int[] {0, 1, 2, LANES - 1, LANES, LANES + 1, 17, 1027}) check(Kernels.pointwise(Shape.of(size), value), variant);
        check(Kernels.pointwise(Shape.of(), value), variant);
        check(Kernels.pointwise(Shape.of(3, 0, 5), value), variant);
    }

    /// A transpose read through a gather and a broadcast row, written contiguously and (scalar) strided.
    @ParameterizedTest
    @EnumSource(Variant.class)
    void transposedBroadcastAndStridedBuffersMatchInterpreter(Variant variant) {
        var space = Shape.of(19, 40);
        var transposed = new Kernel.Input(DType.F32, 40 * 19, new IndexMap(0, List.of(1, 19)));
        var row = new Kernel.Input(DType.F64, 40, new IndexMap(0, List.of(0, 1)));
        var value = binary(BinaryOp.ADD, X, new Expr.Cast(new Expr.Load(1, DType.F64), DType.F32));
        var contiguous = new Kernel(space, 0, List.of(transposed, row), List.of(), List.of(Kernels.output(value, space)));
        var strided = new Kernel(space, 0, List.of(transposed, row), List.of(),
                List.of(new Kernel.Output(value, 3 + 2 * 19 * 40, new IndexMap(3, List.of(2 * 40, 2)), false)));
        check(contiguous, variant);
        check(strided, variant);
        if (variant == Variant.SCALAR) return;
        var gathers = Compiled.emit(contiguous, variant);
        assertTrue(Compiled.text(gathers).contains("STRIDE_19"), "a gather with stride 19");
        assertEquals(List.of(), gathers.scalarFallbacks());
        assertEquals(List.of("out0: strided stores (stride 2) run scalar, as C2 drops some scatters"), Compiled.emit(strided, variant).scalarFallbacks());
    }

    @Test
    void vectorKernelsSayWhichLoopsRunScalar() {
        assertEquals(List.of("r0 = argmax(in0): arg-reductions run scalar"), Compiled.emit(Kernels.argmax(4, 100), Variant.VECTOR).scalarFallbacks());
        assertEquals(List.of(), Compiled.emit(Kernels.softmax(4, 100), Variant.VECTOR).scalarFallbacks());
        assertEquals(List.of(), Compiled.emit(Kernels.argmax(4, 100), Variant.SCALAR).scalarFallbacks());
    }

    @Test
    void classIsNamedByTheHashOfThePrintedKernel() {
        var kernel = Kernels.softmax(2, 3);
        var generated = Compiled.emit(kernel, Variant.VECTOR);
        String hash = KernelEmitter.hash(KernelPrinter.print(kernel));
        assertEquals("dev.smelt.runtime.VectorKernel$" + hash, generated.className());
        assertEquals("kernel-" + hash + ".ir", generated.sourceFile());
        assertEquals(KernelPrinter.print(kernel), generated.kernelText());
        assertEquals(generated, Compiled.emit(Kernels.softmax(2, 3), Variant.VECTOR), "emission is deterministic");
        assertEquals(16, hash.length());
    }

    /// A stack trace from generated code names the `.ir` file and the line of the output that failed.
    /// (Hidden classes' frames only show with `-XX:+ShowHiddenFrames`, so this test defines the class
    /// in an ordinary class loader.)
    @ParameterizedTest
    @EnumSource(Variant.class)
    void stackTracesPointAtTheKernelLine(Variant variant) throws ReflectiveOperationException {
        var kernel = Kernels.softmax(2, 3);
        var generated = Compiled.emit(kernel, variant);
        var loader = new ClassLoader(KernelEmitterTest.class.getClassLoader()) {
            Class<?> define() { return defineClass(generated.className(), generated.bytes(), 0, generated.bytes().length); }
        };
        var function = (KernelFunction) loader.define().getConstructor().newInstance();
        var error = assertThrows(ArrayIndexOutOfBoundsException.class, () -> function.run(new Object[] {new float[6], new float[2]}, 0, 2));
        var frame = error.getStackTrace()[0];
        assertEquals("kernel-" + KernelEmitter.hash(KernelPrinter.print(kernel)) + ".ir", frame.getFileName());
        assertEquals(5, frame.getLineNumber(), "line 5 of the printed kernel is out0\n" + kernel);
    }

    @Test
    void runCodeSizeIsTheLengthOfRunsBytecode() {
        for (var variant : Variant.values()) {
            var generated = Compiled.emit(Kernels.layerNorm(2, 3, 40), variant);
            var run = ClassFile.of().parse(generated.bytes()).methods().stream().filter(m -> m.methodName().equalsString("run")).findFirst().orElseThrow();
            assertEquals(run.findAttribute(java.lang.classfile.Attributes.code()).map(CodeAttribute::codeLength).orElseThrow(), generated.runCodeSize());
        }
    }

    /// Four outputs of about 2500 bytes each: too big for one method, so `run` calls a helper per output.
    @ParameterizedTest
    @EnumSource(Variant.class)
    void aKernelTooLargeForOneMethodIsSplitIntoHelpers(Variant variant) {
        var space = Shape.of(3, 50);
        int leaves = variant == Variant.SCALAR ? 400 : 120;
        var outputs = IntStream.range(0, 4).mapToObj(i -> Kernels.output(tree(X, leaves + i), space)).toList();
        var kernel = new Kernel(space, 0, List.of(Kernels.input(space)), List.of(), outputs);
        var generated = Compiled.emit(kernel, variant);
        assertTrue(generated.runCodeSize() < 100, "run only calls the helpers: " + generated);
        check(kernel, variant);
        var reduction = new Kernel(space, 1, List.of(Kernels.input(space)),
                List.of(new Kernel.Reduction(ReduceOp.SUM, tree(X, leaves)), new Kernel.Reduction(ReduceOp.MAX, tree(X, leaves + 1))),
                List.of(Kernels.output(tree(binary(BinaryOp.SUB, X, Kernels.result(0)), leaves), space), Kernels.output(Kernels.result(1), space)));
        assertTrue(Compiled.emit(reduction, variant).runCodeSize() < 200);
        check(reduction, variant);
        var elements = new Kernel(space, 1, List.of(Kernels.input(space)),
                List.of(new Kernel.Reduction(ReduceOp.SUM, tree(X, leaves)), new Kernel.Reduction(ReduceOp.MAX, binary(BinaryOp.MUL, Kernels.element(0), X))),
                List.of(Kernels.output(binary(BinaryOp.SUB, tree(binary(BinaryOp.SUB, X, Kernels.result(0)), leaves), Kernels.element(0)), space),
                        Kernels.output(binary(BinaryOp.ADD, tree(binary(BinaryOp.MUL, X, Kernels.result(1)), leaves), Kernels.element(1)), space)));
        var split = Compiled.emit(elements, variant);
        assertTrue(split.runCodeSize() < 200, "the element arrays are passed to the helpers: " + split.runCodeSize() + "\n" + Compiled.text(split));
        check(elements, variant);
    }

    @ParameterizedTest
    @EnumSource(Variant.class)
    void aKernelTooLargeEvenWhenSplitIsRejected(Variant variant) {
        var kernel = Kernels.pointwise(Shape.of(64), tree(X, 3000));
        var error = assertThrows(KernelTooLargeException.class, () -> KernelEmitter.emit(kernel, variant));
        assertTrue(error.bytes() > KernelEmitter.METHOD_LIMIT, error.getMessage());
        assertTrue(error.getMessage().contains("output0"), error.getMessage());
    }

    @Test
    void vectorSpeciesAreStaticFinalConstantsAndLoopBoundIsAnInterfaceCall() {
        var generated = Compiled.emit(Kernels.softmax(2, 100), Variant.VECTOR);
        var model = ClassFile.of().parse(generated.bytes());
        var species = model.fields().stream().filter(f -> f.fieldName().stringValue().startsWith("SPECIES_")).toList();
        assertTrue(!species.isEmpty() && species.stream().allMatch(f -> f.flags().has(java.lang.reflect.AccessFlag.STATIC) && f.flags().has(java.lang.reflect.AccessFlag.FINAL)));
        String text = Compiled.text(generated);
        assertTrue(text.contains("INVOKEINTERFACE jdk/incubator/vector/VectorSpecies.loopBound (I)I (itf)"), text);
        assertTrue(text.contains("INVOKESTATIC dev/smelt/codegen/OrderKeys.maxKeys"), text);
        assertTrue(text.contains("GETSTATIC jdk/incubator/vector/VectorOperators.MAX") && text.contains("INVOKEVIRTUAL jdk/incubator/vector/IntVector.lanewise"), text);
        assertTrue(text.contains("GETSTATIC " + generated.className().replace('.', '/') + ".SPECIES_F32"), text);
    }

    /// The scalar class calls its transcendentals, one method per function however many values it
    /// is applied to, and gives the interpreter's answers; the vector class keeps them inline.
    @Test
    void scalarTranscendentalsAreStaticMethodsSharedByTheirUses() {
        var space = Shape.of(3, 37);
        var y = binary(BinaryOp.MUL, X, new Expr.Constant(3, DType.F32));
        var value = binary(BinaryOp.ADD, binary(BinaryOp.ADD, unary(UnaryOp.SIN, X), unary(UnaryOp.SIN, y)), unary(UnaryOp.LOG, unary(UnaryOp.ABS, X)));
        var kernel = Kernels.pointwise(space, binary(BinaryOp.MUL, value, unary(UnaryOp.SIGMOID, X)));
        var scalar = ClassFile.of().parse(Compiled.emit(kernel, Variant.SCALAR).bytes());
        var names = scalar.methods().stream().map(m -> m.methodName().stringValue()).sorted().toList();
        assertEquals(List.of("<init>", "exp2", "log1", "run", "sin0"), names);
        String text = Compiled.text(Compiled.emit(kernel, Variant.SCALAR));
        assertEquals(2, count(text, "sin0 (F)F"), "two calls of one method:\n" + text);
        assertEquals(1, count(text, "log1 (FII)F"), "log takes whether its argument is below the normals, and its bits, too:\n" + text);
        var vector = ClassFile.of().parse(Compiled.emit(kernel, Variant.VECTOR).bytes());
        assertTrue(vector.methods().stream().noneMatch(m -> m.methodName().stringValue().startsWith("sin")));
        check(kernel, Variant.SCALAR);
    }

    private static int count(String text, String part) { return text.split(java.util.regex.Pattern.quote(part), -1).length - 1; }

    static void check(Kernel kernel, Variant variant) {
        long seed = Arrays.hashCode(KernelPrinter.print(kernel).getBytes());
        Differential.check(seed, kernel, RandomData.buffers(seed, kernel), variant);
    }
}
