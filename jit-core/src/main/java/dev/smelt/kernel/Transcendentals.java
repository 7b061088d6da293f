// SPDX-License-Identifier: Apache-2.0
package dev.smelt.kernel;

import dev.smelt.ir.BinaryOp;
import dev.smelt.ir.DType;
import dev.smelt.ir.UnaryOp;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BiFunction;

/// How generated code computes `exp`, `log`, `tanh`, `sin`, `cos` and the composites built on `exp`: a rewrite of
/// a [Kernel] that replaces each such [Expr.Unary] by the expression of its implementation, as
/// tinygrad decomposes transcendentals. Code generation applies it before emission, so the scalar
/// and the vector variant emit one tree and give the same bits by construction (a tiered kernel
/// may switch between them), the [KernelInterpreter] run on the rewritten kernel computes those
/// bits too, the cost model prices a transcendental by the operations of its tree, and `explain()`
/// reads its numerics from it. The kernel lowering builds and prints keeps the operators.
///
/// `f32` `exp`, `log`, `tanh`, `sin` and `cos` become polynomials in [Expr.Fma]s on a reduced
/// argument. `exp` and `tanh` clamp their arguments and `log` blends in its special values, so
/// they cover every float without a branch; `sin` and `cos` past their polynomial's range (and
/// NaN) take the operator's definition, `Math`'s, lane by lane ([Expr.Fallback]). SVML's `exp` is a call, around which C2 spills every
/// live vector register: softmax's loop over 4M floats in L1 took 2.1 ms with it and 0.88 ms inline
/// (a harness); `sin` and `cos` inline are 2.4–2.5× as fast as SVML's (0.91 against 2.24 ms), `log`
/// and `tanh` 0.42 and 0.50 against SVML's 0.29 and 0.54 ns per element, but without its spills. `sigmoid`, `silu`,
/// `gelu_tanh` and `softplus` (of either float dtype) become their formulas over `exp`, in forms
/// without cancellation (`gelu_tanh` as `x·sigmoid(2y)`). `f64` transcendentals stay operators, which
/// code computes with `Math`.
public final class Transcendentals {
    private Transcendentals() {}

    public static final float LOG2E = 1.44269504f, SHIFT = 0x1.8p23f, LN2_HI = 0.693145751953125f, LN2_LO = 1.428606765330187e-06f;
    /// `1 + r + r²·p(r)` in Horner form, highest power first: p of degree 4 fitted (minimax, by linear
    /// programming) to the relative error of e^r on |r| ≤ 0.3467, which it keeps below 0.06 · 2^-24
    /// before rounding. Cephes' `expf` has p of degree 5, one FMA more: on every float of the range
    /// both are within 1 ulp of `StrictMath.exp` (99.55% and 99.53% correctly rounded), and the FMA
    /// fewer took softmax over [4096, 1024] from 1.73 to 1.65 ms into a tensor (a harness, one thread).
    public static final float E6 = 0.0013814484f, E5 = 0.008368736f, E4 = 0.041668393f, E3 = 0.16666521f, E2 = 0.49999994f;
    private static final float[] EXP_POLYNOMIAL = {E6, E5, E4, E3, E2, 1, 1};
    /// `exp` clamps its argument to [EXP_LOW, EXP_HIGH]: below, every `f32` result rounds to 0, above,
    /// to +∞, and between, n = round(x / ln 2) is in [-150, 128].
    public static final float EXP_LOW = -104, EXP_HIGH = 89;
    /// `exp` multiplies e^r by 2^n as two powers of two, 2^(n + EXP_SCALE), made from its exponent
    /// bits, and 2^-EXP_SCALE, for x < 0 (the signs flipped otherwise): the first is a normal float
    /// for every n of the clamped range and its product exact, and the second product rounds once,
    /// to a subnormal or to +∞ where the result is one. Products, unlike an add to e^r's exponent
    /// bits, keep a NaN.
    public static final int EXP_SCALE = 64;

    private static final float INV_PI = 0.318309886183790671538f;
    /// π as three floats (sleef's `PI_A2f`, `PI_B2f`, `PI_C2f`): the first has 15 significant bits,
    /// so n·PI_A is exact for |n| < 2^9 and the first reduction step loses nothing below |x| = 125.
    private static final float[] PI_PARTS = {3.1414794921875f, 0.00011315941810607910156f, 1.9841872589410058936e-09f};
    /// `sin r = r + r³·s(r²)`, s of degree 3 fitted (minimax, by linear programming) to the relative
    /// error on |r| ≤ π/2, which it keeps below 0.11 · 2^-24 before rounding; highest power first.
    private static final float[] SINE = {2.6053612600662746e-06f, -0.0001980941742658615f, 0.008333063684403896f, -0.16666659712791443f};
    /// Past it the reduction by three parts of π loses bits; `Math.sin` and `Math.cos` take over.
    public static final float TRIG_LIMIT = 125;

    private static final float SQRT_HALF = 0.70710678118654752440f, LN2_HI_LOG = 0.693359375f, LN2_LO_LOG = -2.12194440e-4f;
    /// `log(1 + x) = x - x²/2 + x³·p(x)` on `1 + x` in [√½, √2), p of degree 8, highest power first:
    /// Cephes' `logf` coefficients.
    private static final float[] LOG_POLYNOMIAL = {7.0376836292e-2f, -1.1514610310e-1f, 1.1676998740e-1f, -1.2420140846e-1f, 1.4249322787e-1f,
            -1.6668057665e-1f, 2.0000714765e-1f, -2.4999993993e-1f, 3.3333331174e-1f};

    private static final float TANH_SMALL = 0x1p-12f, TANH_POLYNOMIAL_END = 0.625f;
    /// Where `tanh`'s argument is clamped: from about 9.01 on every `f32` result is ±1, and 2|x|
    /// stays in the range of `exp`'s steps without their clamp.
    public static final float TANH_LIMIT = 9.1f;
    /// `tanh x = x + x³·p(x²)` for |x| < 0.625, p of degree 4, highest power first: Cephes' `tanhf`.
    private static final float[] TANH_POLYNOMIAL = {-5.70498872745e-3f, 2.06390887954e-2f, -5.37397155531e-2f, 1.33314422036e-1f, -3.33332819422e-1f};

    /// Whether the rewrite replaces `op` on `dtype`.
    public static boolean rewrites(UnaryOp op, DType dtype) {
        return switch (op) {
            case EXP, SIN, COS, LOG, TANH -> dtype == DType.F32;
            case SIGMOID, SILU, GELU_TANH, SOFTPLUS -> dtype.isFloating();
            default -> false;
        };
    }

    /// `kernel` with every operator [#rewrites] covers replaced by its implementation.
    public static Kernel expand(Kernel kernel) { return kernel.withValues(Rewrite.bottomUp(new Expansion(kernel))); }

    /// The implementation of `op` applied to `x`, for pricing one operation: variables from 0.
    public static Expr expand(UnaryOp op, Expr x) {
        if (!rewrites(op, x.dtype())) throw new IllegalArgumentException(op + " of " + x.dtype() + " is no rewrite");
        return new Expansion(null).of(new Expr.Unary(op, x));
    }

    /// Builds the trees of one kernel, numbering [Expr.Let] variables past those it has. Its steps
    /// bind values in [Scope]s rather than in nested lambdas: each lambda costs a fresh JVM's first
    /// compile a bootstrap, and `sin` and `cos` alone took eight (7 ms of CPU).
    private static final class Expansion implements BiFunction<Expr, Expr, Expr> {
        private int variables;

        Expansion(Kernel kernel) {
            if (kernel != null)
                for (Expr node : Expr.nodes(kernel.expressions())) if (node instanceof Expr.Var v) variables = Math.max(variables, v.id() + 1);
        }

        /// The rewrite's rule: a node rebuilt over its expanded operands, expanded itself if it is an operator [#rewrites] covers.
        @Override
        public Expr apply(Expr original, Expr rebuilt) {
            return rebuilt instanceof Expr.Unary unary && rewrites(unary.op(), unary.dtype()) ? of(unary) : rebuilt;
        }

        /// `unary`, whose operand is already expanded.
        Expr of(Expr.Unary unary) {
            Expr x = unary.x();
            DType dtype = x.dtype();
            var scope = new Scope();
            return switch (unary.op()) {
                case EXP -> exp(x);
                case SIN -> sinOrCos(x, false);
                case COS -> sinOrCos(x, true);
                case LOG -> log(x);
                case TANH -> tanh(x);
                // 1 / (exp(-x) + 1)
                case SIGMOID -> div(constant(1, dtype), add(exp(dtype, neg(x)), constant(1, dtype)));
                // x / (exp(-x) + 1)
                case SILU -> {
                    Expr v = scope.let(x);
                    yield scope.in(div(v, add(exp(dtype, neg(v)), constant(1, dtype))));
                }
                // x / (exp(-2y) + 1), y = √(2/π)·(x + 0.044715·x³): x/2·(1 + tanh y) without the cancellation of 1 + tanh y for negative x
                case GELU_TANH -> {
                    Expr v = scope.let(x);
                    Expr cubic = mul(mul(mul(constant(0.044715, dtype), v), v), v);
                    Expr minusTwoY = mul(mul(constant(Math.sqrt(2 / Math.PI), dtype), add(v, cubic)), constant(-2, dtype));
                    yield scope.in(div(v, add(exp(dtype, minusTwoY), constant(1, dtype))));
                }
                // x > 20 ? x : log1p(exp(x)), PyTorch's threshold
                case SOFTPLUS -> {
                    Expr v = scope.let(x);
                    yield scope.in(new Expr.Where(new Expr.Binary(BinaryOp.GT, v, constant(20, dtype)), v, new Expr.Unary(UnaryOp.LOG1P, exp(dtype, v))));
                }
                default -> throw new IllegalArgumentException(unary.op() + " is no rewrite");
            };
        }

        private Expr exp(DType dtype, Expr x) { return dtype == DType.F32 ? exp(x) : new Expr.Unary(UnaryOp.EXP, x); }

        /// In the way of Cephes' `expf` with a polynomial of one degree less ([#E6]): x clamped to
        /// [[#EXP_LOW], [#EXP_HIGH]] (NaN passes both compares); t = x·log2(e) + 1.5·2^23 holds
        /// n = round(x / ln 2) in its low bits; r = x - n·ln 2 in two steps (Cody and Waite); e^r by
        /// the polynomial; 2^n applied in two factors ([#EXP_SCALE]). A total [Expr.Fallback], which
        /// the scalar variant makes a method of. No branch and no lane by lane call: C2 turns a
        /// branch no input takes into an uncommon trap, and a vector live across that trap was boxed
        /// in some JVMs (the `exp`-sum kernel's accumulator). Against `StrictMath.exp`: at most 1 ulp
        /// for a normal result (in [-86.9, 86.9], 99.5% correctly rounded; SVML's `exp` is also
        /// within 1 ulp), a subnormal one within one subnormal step.
        private Expr exp(Expr x) {
            var scope = new Scope();
            Expr v = scope.let(x);
            var steps = new Scope();
            Expr low = steps.let(new Expr.Where(new Expr.Binary(BinaryOp.LT, v, constant(EXP_LOW)), constant(EXP_LOW), v));
            Expr c = steps.let(new Expr.Where(new Expr.Binary(BinaryOp.GT, low, constant(EXP_HIGH)), constant(EXP_HIGH), low));
            var reduced = reduce(steps, c);
            Expr biased = new Expr.Where(negative(c), integer(127 + EXP_SCALE), integer(127 - EXP_SCALE));
            Expr power = bits(new Expr.Bitwise(Expr.Bitwise.BitOp.SHL, add(bits(reduced.t()), biased), integer(23)));
            Expr value = mul(mul(reduced.e(), power), new Expr.Where(negative(c), constant(Math.scalb(1f, -EXP_SCALE)), constant(Math.scalb(1f, EXP_SCALE))));
            return scope.in(Expr.Fallback.total(UnaryOp.EXP, v, steps.in(value)));
        }

        // x < 0: the clamped argument's sign, which picks both powers of two
        private static Expr negative(Expr x) { return new Expr.Binary(BinaryOp.LT, x, constant(0)); }

        // e^x for |x| ≤ 18.2 (tanh's), where e^r · 2^n is a normal float: 2^n added to the exponent
        private Expr expSteps(Expr x) {
            var scope = new Scope();
            var reduced = reduce(scope, x);
            return scope.in(bits(new Expr.Binary(BinaryOp.ADD, bits(reduced.e()), shift(reduced.t(), 23))));
        }

        /// t, whose low bits hold n = round(x / ln 2), and e = e^r, r = x - n·ln 2; bound in `scope`.
        private record Reduced(Expr t, Expr e) {}

        private Reduced reduce(Scope scope, Expr x) {
            Expr t = scope.let(fma(x, constant(LOG2E), constant(SHIFT)));
            Expr n = scope.let(sub(t, constant(SHIFT)));
            Expr r = scope.let(fma(n, constant(-LN2_LO), fma(n, constant(-LN2_HI), x)));
            return new Reduced(t, horner(r, EXP_POLYNOMIAL));
        }

        /// Cephes' `logf`: x = m·2^e with m in [√½, √2), then a polynomial in m - 1, and e·ln 2 in
        /// two parts; a subnormal x is scaled by 2^23 first (exactly) and e lowered by 23. Then
        /// blends, not a branch: ±0 gives -∞, a negative x or NaN gives NaN, +∞ gives +∞. A total
        /// [Expr.Fallback]: with a range test, a vector with one zero lane (a masked
        /// probability) took the lane-by-lane fallback whole.
        private Expr log(Expr x) {
            var scope = new Scope();
            Expr v = scope.let(x);
            Expr tiny = scope.let(new Expr.Binary(BinaryOp.LT, v, constant(Float.MIN_NORMAL)));   // subnormal, zero or negative
            Expr b = scope.let(bits(new Expr.Where(tiny, mul(v, constant(0x1p23f)), v)));
            var steps = new Scope();
            Expr m0 = steps.let(bits(bitwise(Expr.Bitwise.BitOp.OR, bitwise(Expr.Bitwise.BitOp.AND, b, integer(0x007fffff)), integer(0x3f000000))));
            Expr below = steps.let(new Expr.Binary(BinaryOp.LT, m0, constant(SQRT_HALF)));   // then e - 1 and 2m
            Expr e0 = steps.let(sub(bitwise(Expr.Bitwise.BitOp.SHR, b, integer(23)), new Expr.Where(tiny, integer(126 + 23), integer(126))));
            Expr e = steps.let(new Expr.Cast(new Expr.Where(below, sub(e0, integer(1)), e0), DType.F32));
            Expr m = steps.let(sub(new Expr.Where(below, add(m0, m0), m0), constant(1)));
            Expr z = steps.let(mul(m, m));
            Expr y = mul(mul(horner(m, LOG_POLYNOMIAL), m), z);
            y = fma(e, constant(LN2_LO_LOG), y);
            y = fma(z, constant(-0.5f), y);
            Expr value = steps.in(fma(e, constant(LN2_HI_LOG), add(m, y)));
            Expr finite = new Expr.Where(new Expr.Binary(BinaryOp.LE, v, constant(Float.MAX_VALUE)), value, v);
            Expr notPositive = new Expr.Where(new Expr.Binary(BinaryOp.EQ, v, constant(0)), bits(integer(0xff800000)), bits(integer(0x7fc00000)));
            return scope.in(Expr.Fallback.total(UnaryOp.LOG, v, new Expr.Where(new Expr.Binary(BinaryOp.GT, v, constant(0)), finite, notPositive)));
        }

        /// Cephes' `tanhf`: x itself below 2^-12 (so ±0 keep their sign), the polynomial below 0.625,
        /// `1 - 2 / (exp(2|x|) + 1)` with x's sign above, |x| clamped to [#TANH_LIMIT], past which
        /// every result rounds to ±1 (NaN passes the compare and stays NaN). A total
        /// [Expr.Fallback], with no branch: a vector with one lane past the range no longer
        /// takes the lane-by-lane fallback whole.
        private Expr tanh(Expr x) {
            var scope = new Scope();
            Expr v = scope.let(x), z = scope.let(new Expr.Unary(UnaryOp.ABS, v));
            Expr large = tanhOfLarge(v, new Expr.Where(new Expr.Binary(BinaryOp.GT, z, constant(TANH_LIMIT)), constant(TANH_LIMIT), z));
            var small = new Scope();
            Expr s = small.let(mul(v, v));
            Expr polynomial = small.in(fma(mul(horner(s, TANH_POLYNOMIAL), s), v, v));
            return scope.in(Expr.Fallback.total(UnaryOp.TANH, v,
                    new Expr.Where(new Expr.Binary(BinaryOp.LT, z, constant(TANH_SMALL)), v,
                    new Expr.Where(new Expr.Binary(BinaryOp.GE, z, constant(TANH_POLYNOMIAL_END)), large, polynomial))));
        }

        // 1 - 2 / (exp(z + z) + 1), with x's sign bit (exp's steps: z + z ≤ 18.2 is in their range)
        private Expr tanhOfLarge(Expr x, Expr z) {
            var scope = new Scope();
            Expr twice = scope.let(add(z, z));
            Expr t = sub(constant(1), div(constant(2), add(scope.in(expSteps(twice)), constant(1))));
            return bits(bitwise(Expr.Bitwise.BitOp.OR, bits(t), bitwise(Expr.Bitwise.BitOp.AND, bits(x), integer(Integer.MIN_VALUE))));
        }

        /// x reduced by the nearest multiple of π (of π/2, odd, for `cos`) in three FMAs (Cody and
        /// Waite, sleef's constants), so r is in [-π/2, π/2]; `sin r` is an odd polynomial of degree 9
        /// fitted for that range; the multiple's parity gives the sign. Past ±[#TRIG_LIMIT], and for
        /// NaN, `Math`'s. Over every float of the range: `sin` 98.4% and `cos` 94.4% correctly
        /// rounded, none past 2 ulps (0.005% and 0.012% at 2), where SVML is within 1.
        private Expr sinOrCos(Expr x, boolean cos) {
            var scope = new Scope();
            Expr v = scope.let(x);
            var steps = new Scope();
            Expr value;
            if (cos) { // cos x = (-1)^(n+1) sin(x - qπ/2), q = 2n + 1, n = round(x/π - 1/2)
                Expr t = steps.let(add(fma(v, constant(INV_PI), constant(-0.5f)), constant(SHIFT)));
                Expr q = steps.let(fma(sub(t, constant(SHIFT)), constant(2), constant(1)));
                value = sinOfReduced(v, q, new Expr.Bitwise(Expr.Bitwise.BitOp.XOR, shift(t, 31), integer(Integer.MIN_VALUE)), 0.5f);
            } else {   // sin x = (-1)^n sin(x - nπ), n = round(x/π)
                Expr t = steps.let(fma(v, constant(INV_PI), constant(SHIFT)));
                Expr q = steps.let(sub(t, constant(SHIFT)));
                value = sinOfReduced(v, q, shift(t, 31), 1);
            }
            return scope.in(new Expr.Fallback(cos ? UnaryOp.COS : UnaryOp.SIN, v, inRange(v, TRIG_LIMIT), steps.in(value)));
        }

        // sin(x - q·π·part), its sign flipped by the multiple's parity bit (products with part exact: it is 1 or 1/2)
        private Expr sinOfReduced(Expr x, Expr q, Expr parity, float part) {
            Expr reduced = x;
            for (float piPart : PI_PARTS) reduced = fma(q, constant(-piPart * part), reduced);
            var scope = new Scope();
            Expr r = scope.let(reduced), r2 = scope.let(mul(r, r));
            Expr s = fma(horner(r2, SINE), mul(r2, r), r);
            Expr sign = new Expr.Bitwise(Expr.Bitwise.BitOp.AND, new Expr.Bitwise(Expr.Bitwise.BitOp.XOR, bits(r), parity), integer(Integer.MIN_VALUE));
            return scope.in(bits(new Expr.Bitwise(Expr.Bitwise.BitOp.XOR, bits(new Expr.Unary(UnaryOp.ABS, s)), sign)));
        }

        /// [Expr.Let]s in the making, each computing a value once for the steps that follow it:
        /// [#let] binds a value to a fresh variable, and [#in] wraps a body in the bindings, the first
        /// outermost, so each value may read the variables bound before it.
        private final class Scope {
            private final List<Expr.Var> bound = new ArrayList<>();
            private final List<Expr> values = new ArrayList<>();

            /// A variable for `value`; a constant or a variable needs none and is returned as it is.
            /// (A load gets one: a gather's would read memory again, and a vector load is a register kept.)
            Expr let(Expr value) {
                if (value instanceof Expr.Constant || value instanceof Expr.Var) return value;
                var variable = new Expr.Var(variables++, value.dtype());
                bound.add(variable);
                values.add(value);
                return variable;
            }

            /// `body` inside every binding made so far.
            Expr in(Expr body) {
                for (int i = bound.size() - 1; i >= 0; i--) body = new Expr.Let(bound.get(i), values.get(i), body);
                return body;
            }
        }
    }

    // |x| <= limit: false for NaN
    private static Expr inRange(Expr x, float limit) { return new Expr.Binary(BinaryOp.LE, new Expr.Unary(UnaryOp.ABS, x), constant(limit)); }

    private static Expr bitwise(Expr.Bitwise.BitOp op, Expr a, Expr b) { return new Expr.Bitwise(op, a, b); }

    // coefficients[0]·r + coefficients[1], times r plus the next, …
    private static Expr horner(Expr r, float[] coefficients) {
        Expr p = constant(coefficients[0]);
        for (int k = 1; k < coefficients.length; k++) p = fma(p, r, constant(coefficients[k]));
        return p;
    }

    // bits<i32>(t) << bits: the low bits of a shifted float moved up
    private static Expr shift(Expr t, int bits) { return new Expr.Bitwise(Expr.Bitwise.BitOp.SHL, bits(t), integer(bits)); }

    private static Expr bits(Expr x) { return new Expr.Bits(x, x.dtype() == DType.F32 ? DType.I32 : DType.F32); }

    private static Expr fma(Expr a, Expr b, Expr c) { return new Expr.Fma(a, b, c); }

    private static Expr add(Expr a, Expr b) { return new Expr.Binary(BinaryOp.ADD, a, b); }

    private static Expr sub(Expr a, Expr b) { return new Expr.Binary(BinaryOp.SUB, a, b); }

    private static Expr mul(Expr a, Expr b) { return new Expr.Binary(BinaryOp.MUL, a, b); }

    private static Expr div(Expr a, Expr b) { return new Expr.Binary(BinaryOp.DIV, a, b); }

    private static Expr neg(Expr x) { return new Expr.Unary(UnaryOp.NEG, x); }

    private static Expr constant(double value) { return constant(value, DType.F32); }

    private static Expr constant(double value, DType dtype) { return new Expr.Constant(value, dtype); }

    private static Expr integer(int value) { return new Expr.Constant(value, DType.I32); }
}
