// SPDX-License-Identifier: Apache-2.0
package dev.smelt.autograd;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;

import dev.smelt.Generator;
import dev.smelt.Jit;
import dev.smelt.Tensor;
import dev.smelt.ir.BinaryOp;
import dev.smelt.ir.DType;
import dev.smelt.ir.Graph;
import dev.smelt.ir.Node;
import dev.smelt.ir.Shape;
import dev.smelt.ir.UnaryOp;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;

/// Every vjp rule checked against central differences and the interpreter, on random shapes.
class VjpRulesTest {
    private static final int[] SIZES = {1, 2, 3, 5};

    static int[] randomShape(Random random, int maxRank) {
        int[] dims = new int[random.nextInt(maxRank + 1)];
        for (int i = 0; i < dims.length; i++) dims[i] = SIZES[random.nextInt(SIZES.length)];
        return dims;
    }

    /// f64 values with |x| in [0.3, 2] (away from kinks at 0), signed unless `positive`.
    static Tensor values(Random random, boolean positive, int... shape) {
        int size = 1;
        for (int d : shape) size *= d;
        double[] data = new double[size];
        for (int i = 0; i < size; i++) data[i] = (0.3 + 1.7 * random.nextDouble()) * (positive || random.nextBoolean() ? 1 : -1);
        return Tensor.of(data, shape);
    }

    /// Σ f(x)·w with a random w: every element of f's output gets its own upstream gradient.
    static Tensor weighted(Tensor y, Tensor w) { return y.mul(w).sum(); }

    @ParameterizedTest
    @EnumSource(value = UnaryOp.class, mode = EnumSource.Mode.EXCLUDE, names = "STOP_GRADIENT") // no gradient by definition: detachPassesNoGradient
    void unaryOps(UnaryOp op) {
        var random = new Random(op.ordinal());
        for (int trial = 0; trial < 3; trial++) {
            int[] shape = randomShape(random, 3);
            boolean positive = switch (op) {
                case LOG, LOG1P, SQRT, RSQRT -> true;
                default -> false;
            };
            Tensor x = values(random, positive, shape), w = values(random, false, shape);
            Jit.FunctionN f = args -> List.of(weighted(apply(op, args.get(0)), args.get(1)));
            GradientCheck.check(op + " on " + x.shape(), f, List.of(x, w), 0);
            GradientCheck.checkF32(op + " on " + x.shape(), f, List.of(x, w), 0);
        }
    }

    static Tensor apply(UnaryOp op, Tensor x) {
        return switch (op) {
            case NEG -> x.neg();
            case ABS -> x.abs();
            case EXP -> x.exp();
            case EXPM1 -> x.expm1();
            case LOG -> x.log();
            case LOG1P -> x.log1p();
            case SQRT -> x.sqrt();
            case RSQRT -> x.rsqrt();
            case RECIPROCAL -> x.reciprocal();
            case SQUARE -> x.square();
            case SIN -> x.sin();
            case COS -> x.cos();
            case TANH -> x.tanh();
            case SIGMOID -> x.sigmoid();
            case RELU -> x.relu();
            case GELU_TANH -> x.geluTanh();
            case GELU_ERF -> x.gelu();
            case SILU -> x.silu();
            case SOFTPLUS -> x.softplus();
            case SIGN -> x.sign();
            case STOP_GRADIENT -> x.detach();
        };
    }

    @ParameterizedTest
    @EnumSource(value = BinaryOp.class, names = {"ADD", "SUB", "MUL", "DIV", "POW", "MAXIMUM", "MINIMUM"})
    void binaryOpsWithBroadcasting(BinaryOp op) {
        var random = new Random(100 + op.ordinal());
        for (int trial = 0; trial < 4; trial++) {
            int[] shape = randomShape(random, 3);
            int[] other = broadcastable(random, shape);
            Tensor a = values(random, op == BinaryOp.POW, shape), b = values(random, false, other);
            Tensor w = values(random, false, shape.length >= other.length ? broadcast(shape, other) : broadcast(other, shape));
            Jit.FunctionN f = args -> List.of(weighted(apply(op, args.get(0), args.get(1)), args.get(2)));
            String name = "%s(%s, %s)".formatted(op, a.shape(), b.shape());
            GradientCheck.check(name, f, List.of(a, b, w), 0, 1);
            GradientCheck.checkF32(name, f, List.of(a, b, w), 0, 1);
        }
    }

    static Tensor apply(BinaryOp op, Tensor a, Tensor b) {
        return switch (op) {
            case ADD -> a.add(b);
            case SUB -> a.sub(b);
            case MUL -> a.mul(b);
            case DIV -> a.div(b);
            case POW -> a.pow(b);
            case MAXIMUM -> a.maximum(b);
            case MINIMUM -> a.minimum(b);
            case EQ, NE, LT, LE, GT, GE -> throw new IllegalArgumentException(op + " has no gradient");
        };
    }

    // A shape that broadcasts with `shape`: some trailing axes kept, some set to 1, leading ones dropped.
    private static int[] broadcastable(Random random, int[] shape) {
        int rank = random.nextInt(shape.length + 1);
        int[] other = new int[rank];
        for (int i = 0; i < rank; i++) {
            int d = shape[shape.length - rank + i];
            other[i] = random.nextInt(3) == 0 ? 1 : d;
        }
        return other;
    }

    private static int[] broadcast(int[] longer, int[] shorter) {
        int[] out = longer.clone();
        for (int i = 0; i < shorter.length; i++) {
            int axis = longer.length - shorter.length + i;
            out[axis] = Math.max(longer[axis], shorter[i]);
        }
        return out;
    }

    @Test
    void comparisonsAndWherePassGradientOnlyToTheChosenBranch() {
        var random = new Random(7);
        Tensor a = values(random, false, 3, 4), b = values(random, false, 4), w = values(random, false, 3, 4);
        Jit.FunctionN f = args -> List.of(weighted(Tensor.where(args.get(0).gt(args.get(1)), args.get(0).exp(), args.get(1).sin()), args.get(2)));
        GradientCheck.check("where(a > b, exp a, sin b)", f, List.of(a, b, w), 0, 1);
        GradientCheck.checkF32("where(a > b, exp a, sin b)", f, List.of(a, b, w), 0, 1);
    }

    @Test
    void castsBetweenFloatTypesCarryTheGradient() {
        var random = new Random(8);
        Tensor x = values(random, false, 2, 3), w = values(random, false, 2, 3);
        Jit.FunctionN f = args -> List.of(weighted(args.get(0).to(DType.F32).tanh().to(DType.F64), args.get(1)));
        var traced = Jit.trace(f, List.of(x, w));
        var compiled = Autograd.grad(f, 2, 0).applyAll(x, w).getFirst();
        GradientCheck.agree("cast f64→f32→f64", Autograd.withGradients(traced, new int[] {0}, false).interpret(x, w).getFirst(), compiled, 1e-9);
    }

    @ParameterizedTest
    @ValueSource(ints = {0, 1, 2, 3, 4, 5})
    void reductionsOverRandomAxes(int seed) {
        var random = new Random(200 + seed);
        int[] shape = {SIZES[random.nextInt(4)] + 1, SIZES[random.nextInt(4)], 3};
        int axis = random.nextInt(3) - 3;
        Tensor x = values(random, false, shape), w = values(random, false, 1);
        List<Jit.FunctionN> reductions = List.of(
                args -> List.of(weighted(args.get(0).sum(axis, true).square(), args.get(1))),
                args -> List.of(weighted(args.get(0).prod(axis, false), args.get(1))),
                args -> List.of(weighted(args.get(0).max(axis, true).exp(), args.get(1))),
                args -> List.of(weighted(args.get(0).min(new int[] {0, 2}, false).sin(), args.get(1))),
                args -> List.of(weighted(args.get(0).mean(axis, false), args.get(1))),
                args -> List.of(weighted(args.get(0).var(axis, false), args.get(1))),
                args -> List.of(weighted(args.get(0).logsumexp(axis, false), args.get(1))),
                args -> List.of(args.get(0).max().mul(args.get(1).sum())));
        for (int r = 0; r < reductions.size(); r++) {
            String name = "reduction " + r + " over axis " + axis + " of " + x.shape();
            GradientCheck.check(name, reductions.get(r), List.of(x, w), 0);
            GradientCheck.checkF32(name, reductions.get(r), List.of(x, w), 0);
        }
    }

    /// `detach` passes no gradient: d/dx Σ detach(x)·x is x, not 2x. Softmax, logSoftmax,
    /// logsumexp and crossEntropy shift by a detached maximum, as PyTorch's backward formulas do,
    /// so their joint graphs send no gradient to the maximum: no comparison of x with it (where a
    /// max reduction's gradient goes).
    @Test
    void detachPassesNoGradient() {
        Tensor x = Tensor.of(new double[] {1, -2, 3.5, 0, 7, 7}, 2, 3);
        assertArrayEquals(x.toDoubleArray(), Autograd.grad((Tensor t) -> t.detach().mul(t).sum()).apply(x).toDoubleArray(), 0);
        Tensor labels = Tensor.of(new int[] {2, 0});
        assertSame(labels, labels.detach());
        var shifts = List.<Jit.Function2>of((t, y) -> t.softmax(-1).mul(t).sum(), (t, y) -> t.logSoftmax(-1).mul(t).sum(),
                (t, y) -> t.logsumexp(new int[] {1}, false).sum(), (t, y) -> t.crossEntropy(y));
        for (var f : shifts) {
            Graph joint = Autograd.withGradients(Jit.trace(f, x, labels), new int[] {0}, false).graph();
            assertFalse(joint.nodes().stream().anyMatch(n -> n instanceof Node.Binary(var op, var a, var _, var _, var _) && op == BinaryOp.EQ && a.dtype().isFloating()
                            && a.shape().equals(Shape.of(2, 3))),
                    "the maximum's gradient is computed:\n" + joint);
        }
    }

    @Test
    void maxSplitsTheGradientEvenlyAmongTies() {
        Tensor x = Tensor.of(new double[] {1, 3, 3, 2, 5, 5, 5, 0}, 2, 4);
        var grad = Autograd.grad((Tensor t) -> t.max(1, false).sum()).apply(x);
        assertArrayEquals(new double[] {0, 0.5, 0.5, 0, 1 / 3.0, 1 / 3.0, 1 / 3.0, 0}, grad.toDoubleArray(), 1e-15);
        var min = Autograd.grad((Tensor t) -> t.min()).apply(Tensor.of(new double[] {2, 1, 1, 4}));
        assertArrayEquals(new double[] {0, 0.5, 0.5, 0}, min.toDoubleArray(), 0);
        var maximum = Autograd.grad((a, b) -> a.maximum(b).sum(), 0, 1).applyAll(Tensor.of(new double[] {1, 2, 3}), Tensor.of(new double[] {1, 5, 0}));
        assertArrayEquals(new double[] {0.5, 0, 1}, maximum.get(0).toDoubleArray(), 0);
        assertArrayEquals(new double[] {0.5, 1, 0}, maximum.get(1).toDoubleArray(), 0);
    }

    @Test
    void aNaNMaximumSendsTheGradientToItsNaNs() { // as torch.max(): the NaNs are what the result is
        double nan = Double.NaN;
        var max = Autograd.grad((Tensor t) -> t.max(1, false).sum());
        Tensor x = Tensor.of(new double[] {1, nan, 3, nan, 2, 5, 5, 0}, 2, 4);
        for (int call = 0; call < 3; call++) assertArrayEquals(new double[] {0, 0.5, 0, 0.5, 0, 0.5, 0.5, 0}, max.apply(x).toDoubleArray(), 0);
        var min = Autograd.grad((Tensor t) -> t.min());
        assertArrayEquals(new float[] {0, 1, 0}, min.apply(Tensor.of(new float[] {-1, Float.NaN, 3})).toFloatArray(), 0);
    }

    @Test
    void prodHandlesZeros() {
        var grad = Autograd.grad((Tensor t) -> t.prod(1, false).sum());
        Tensor x = Tensor.of(new double[] {2, 0, 3, 0, 0, 3, 2, 5, 7}, 3, 3);
        assertArrayEquals(new double[] {0, 6, 0, 0, 0, 0, 35, 14, 10}, grad.apply(x).toDoubleArray(), 0);
    }

    @Test
    void argmaxAndComparisonsGiveNoGradient() {
        Tensor x = Tensor.of(new double[] {1, 4, 2});
        var grad = Autograd.grad((Tensor t) -> t.argmax().to(DType.F64).add(t.gt(1.5).to(DType.F64).sum()));
        assertArrayEquals(new double[] {0, 0, 0}, grad.apply(x).toDoubleArray(), 0);
    }
}
