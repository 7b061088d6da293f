// SPDX-License-Identifier: Apache-2.0
package dev.smelt;

import dev.smelt.ir.BinaryOp;
import dev.smelt.ir.DType;
import dev.smelt.ir.Distribution;
import dev.smelt.ir.ReduceOp;
import dev.smelt.ir.Shape;
import dev.smelt.ir.SmeltException;
import dev.smelt.ir.Storage;
import dev.smelt.ir.UnaryOp;
import dev.smelt.ops.Attention;
import dev.smelt.ops.Builder;
import dev.smelt.ops.Composites;
import dev.smelt.ops.Creation;
import dev.smelt.ops.Einsum;
import dev.smelt.ops.Format;
import dev.smelt.ops.Masks;
import dev.smelt.ops.Ops;
import dev.smelt.ops.Reductions;
import dev.smelt.ops.Transformers;
import dev.smelt.ops.Value;
import dev.smelt.ops.Views;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/// An n-dimensional array of `f32`, `f64`, `i32` or `bool`, and the one type Smelt programs are
/// written against. Outside a trace a tensor is concrete: storage viewed through shape, strides and
/// offset, and every operation computes at once (views share storage). Inside [Jit#trace] the same
/// methods record graph nodes instead; reading values of a traced tensor is an error.
///
/// Broadcasting follows NumPy; dtype promotion follows PyTorch (see [DType]); axes may be negative,
/// counting from the end. Bad input throws [SmeltException] naming the op, the shapes and the caller.
/// Families of methods that would crowd this file live in sealed interfaces it implements: element
/// access in [TensorValues], gathers, scatters, updates and sorting in [TensorIndexing], bf16 and
/// int8 weight matrices in [TensorFormats].
public final class Tensor implements TensorValues, TensorIndexing, TensorFormats {
    /// The most elements a tensor holds: the JDK's `ArraysSupport.SOFT_MAX_ARRAY_LENGTH`, the largest array
    /// every JVM allocates. A larger result throws [SmeltException]; one the heap cannot hold, `OutOfMemoryError`.
    public static final int MAX_SIZE = Value.MAX_SIZE;

    private final Value value;

    /// The tensor of a value no tensor stands for yet (see [#wrap]).
    Tensor(Value value) {
        this.value = value;
        value.wrapper(this);
    }

    // ---- creation (see Creation); a negative size or more than MAX_SIZE elements throws ----
    /// An `f32` tensor of zeros, as `torch.zeros(*shape)`; no sizes make a 0-d tensor.
    public static Tensor zeros(int... shape) { return wrap(Creation.full(DType.F32, 0, shape)); }
    /// Zeros of `dtype` (`false` for `BOOL`).
    public static Tensor zeros(DType dtype, int... shape) { return wrap(Creation.full(dtype, 0, shape)); }
    /// An `f32` tensor of ones, as `torch.ones(*shape)`.
    public static Tensor ones(int... shape) { return wrap(Creation.full(DType.F32, 1, shape)); }
    /// Ones of `dtype` (`true` for `BOOL`).
    public static Tensor ones(DType dtype, int... shape) { return wrap(Creation.full(dtype, 1, shape)); }
    /// An `f32` tensor with every element `value`, as `torch.full(shape, value)`.
    public static Tensor full(double value, int... shape) { return wrap(Creation.full(DType.F32, value, shape)); }
    /// Every element `value`, rounded to `dtype` (`i32` truncates toward zero).
    public static Tensor full(DType dtype, double value, int... shape) { return wrap(Creation.full(dtype, value, shape)); }
    /// A 0-d `f32` tensor (use [#scalar(DType, double)] for other dtypes).
    public static Tensor scalar(double value) { return wrap(Creation.full(DType.F32, value)); }
    /// A 0-d tensor of `dtype`, as `torch.tensor(value, dtype=…)`.
    public static Tensor scalar(DType dtype, double value) { return wrap(Creation.full(dtype, value)); }
    /// `0, 1, …, end-1` as `i32`, like `torch.arange(end)`.
    public static Tensor arange(int end) { return wrap(Creation.arange(0, end, 1)); }
    /// `start, start+step, …` short of `end`, as `i32`; `step` may be negative, never 0.
    public static Tensor arange(int start, int end, int step) { return wrap(Creation.arange(start, end, step)); }
    /// `start, start+step, …` below `end`, as `f32` (computed in double, rounded once).
    public static Tensor arange(double start, double end, double step) { return wrap(Creation.arange(start, end, step)); }
    /// `steps` evenly spaced `f32` values from `start` to `end` inclusive.
    public static Tensor linspace(double start, double end, int steps) { return wrap(Creation.linspace(start, end, steps)); }
    /// A tensor over a copy of `data` in row-major order; `shape` defaults to `[data.length]` and
    /// must hold exactly `data.length` elements. `f32` here, `f64`, `i32` or `bool` below.
    public static Tensor of(float[] data, int... shape) { return wrap(Creation.of(Storage.wrap(Creation.data(data).clone()), shape)); }
    /// An `f64` tensor over a copy of `data`; see [#of(float\[\], int...)].
    public static Tensor of(double[] data, int... shape) { return wrap(Creation.of(Storage.wrap(Creation.data(data).clone()), shape)); }
    /// An `i32` tensor over a copy of `data`; see [#of(float\[\], int...)].
    public static Tensor of(int[] data, int... shape) { return wrap(Creation.of(Storage.wrap(Creation.data(data).clone()), shape)); }
    /// A `bool` tensor over a copy of `data`; see [#of(float\[\], int...)].
    public static Tensor of(boolean[] data, int... shape) { return wrap(Creation.of(Creation.bools(Creation.data(data)), shape)); }
    /// Uniform `f32` values in `[0, 1)` from `generator`, as `torch.rand(*shape, generator=…)`. Inside a
    /// compiled function, a graph node drawn afresh on each call (see [Generator]).
    public static Tensor rand(Generator generator, int... shape) { return wrap(Creation.random(Generator.stream(generator), Distribution.UNIFORM, DType.F32, shape)); }
    /// Uniform values in `[0, 1)` of a float `dtype` (53 random bits for `f64`, 24 for `f32`).
    public static Tensor rand(Generator generator, DType dtype, int... shape) { return wrap(Creation.random(Generator.stream(generator), Distribution.UNIFORM, dtype, shape)); }
    /// Standard normal `f32` values from `generator`, as `torch.randn`.
    public static Tensor randn(Generator generator, int... shape) { return wrap(Creation.random(Generator.stream(generator), Distribution.NORMAL, DType.F32, shape)); }
    /// Standard normal values of a float `dtype`.
    public static Tensor randn(Generator generator, DType dtype, int... shape) { return wrap(Creation.random(Generator.stream(generator), Distribution.NORMAL, dtype, shape)); }

    // ---- metadata ----
    /// The sizes of the axes; `[]` for a 0-d tensor.
    public Shape shape() { return value.shape(); }
    /// The element type.
    public DType dtype() { return value.dtype(); }
    /// The number of axes (`ndim`).
    public int rank() { return value.rank(); }
    /// The size of `axis` (negative counts from the end).
    public int dim(int axis) { return value.shape().dim(Builder.axis("dim", axis, rank())); }
    /// The number of elements.
    public int size() { return value.size(); }
    /// Whether this tensor is a symbolic value inside a trace rather than concrete data.
    public boolean isTraced() { return value.isTraced(); }

    // ---- views (see Views): share storage, never copy, except reshape of a non-contiguous tensor ----
    /// Same elements in row-major order, new shape; one dimension may be -1 (inferred). A view when
    /// the elements are contiguous, else a copy, as `torch.reshape`.
    public Tensor reshape(int... shape) { return wrap(Views.reshape(value, shape)); }
    /// The axes reordered: axis `i` of the result is axis `order[i]` of this one (a view).
    public Tensor permute(int... order) { return wrap(Views.permute(value, order)); }
    /// Axes `axis0` and `axis1` swapped (a view).
    public Tensor transpose(int axis0, int axis1) { return wrap(Views.transpose(value, axis0, axis1)); }
    /// The transpose of a matrix (`transpose(-2, -1)`); needs at least two axes.
    public Tensor t() { return wrap(Views.transpose(value, -2, -1)); }
    /// Size-1 axes repeated (stride 0), leading axes added: NumPy's `broadcast_to`; -1 keeps an axis's size, as in PyTorch.
    public Tensor expand(int... shape) { return wrap(Views.expand(value, shape)); }
    /// The same as [#expand].
    public Tensor broadcastTo(int... shape) { return wrap(Views.expand(value, shape)); }
    /// Elements `start, start+step, …` below `stop` of `axis`, as `x[start:stop:step]`; negative
    /// indices count from the end, `step ≥ 1`, out-of-range indices throw (a view).
    public Tensor slice(int axis, int start, int stop, int step) { return wrap(Views.slice(value, axis, start, stop, step)); }
    /// [#slice(int, int, int, int)] with step 1.
    public Tensor slice(int axis, int start, int stop) { return wrap(Views.slice(value, axis, start, stop, 1)); }
    /// All size-1 axes removed.
    public Tensor squeeze() { return wrap(Views.squeeze(value, new int[0])); }
    /// The given axes removed; each must have size 1.
    public Tensor squeeze(int... axes) { return wrap(Views.squeeze(value, axes)); }
    /// A size-1 axis inserted at `axis` (`-1` appends one).
    public Tensor unsqueeze(int axis) { return wrap(Views.unsqueeze(value, axis)); }
    /// All axes as one (`[size()]`).
    public Tensor flatten() { return wrap(Views.flatten(value, 0, -1)); }
    /// Axes `startAxis…endAxis` (inclusive) joined into one, as `torch.flatten(x, start, end)`.
    public Tensor flatten(int startAxis, int endAxis) { return wrap(Views.flatten(value, startAxis, endAxis)); }
    /// This tensor if its elements are dense in row-major order, else a dense copy.
    public Tensor contiguous() { return wrap(Views.contiguous(value)); }
    /// Views of consecutive pieces of `size` along `axis` (the last may be shorter), as `torch.split`.
    public List<Tensor> split(int size, int axis) { return wrap(Views.split(value, size, axis)); }
    /// At most `chunks` views of ⌈n / chunks⌉ along `axis` (the last may be shorter), as `torch.chunk`.
    public List<Tensor> chunk(int chunks, int axis) { return wrap(Views.chunk(value, chunks, axis)); }
    /// The lower triangle of the last two axes, from diagonal `k` down (column − row ≤ k); 0 elsewhere.
    public Tensor tril(int k) { return wrap(Masks.keep("tril", value, k, true)); }
    /// The upper triangle of the last two axes, from diagonal `k` up (column − row ≥ k); 0 elsewhere.
    public Tensor triu(int k) { return wrap(Masks.keep("triu", value, k, false)); }
    /// This tensor converted to `dtype` (itself if it already has it). Floats to `i32` truncate
    /// toward zero and saturate (NaN gives 0); to `bool`, non-zero is `true`.
    public Tensor to(DType dtype) { return wrap(Ops.cast(value, dtype)); }

    // ---- elementwise unary (see UnaryOp for each definition); integer and bool inputs become f32,
    //      except for neg, abs, square, relu and sign, which keep i32 ----
    /// `-x`.
    public Tensor neg() { return wrap(Ops.unary(UnaryOp.NEG, value)); }
    /// `|x|`.
    public Tensor abs() { return wrap(Ops.unary(UnaryOp.ABS, value)); }
    /// `eˣ`.
    public Tensor exp() { return wrap(Ops.unary(UnaryOp.EXP, value)); }
    /// `eˣ - 1`, accurate near 0.
    public Tensor expm1() { return wrap(Ops.unary(UnaryOp.EXPM1, value)); }
    /// `ln x`: NaN below 0, `-inf` at ±0.
    public Tensor log() { return wrap(Ops.unary(UnaryOp.LOG, value)); }
    /// `ln(1 + x)`, accurate near 0.
    public Tensor log1p() { return wrap(Ops.unary(UnaryOp.LOG1P, value)); }
    /// `√x` (NaN below 0).
    public Tensor sqrt() { return wrap(Ops.unary(UnaryOp.SQRT, value)); }
    /// `1 / √x`.
    public Tensor rsqrt() { return wrap(Ops.unary(UnaryOp.RSQRT, value)); }
    /// `1 / x`.
    public Tensor reciprocal() { return wrap(Ops.unary(UnaryOp.RECIPROCAL, value)); }
    /// `x·x`.
    public Tensor square() { return wrap(Ops.unary(UnaryOp.SQUARE, value)); }
    /// `sin x`.
    public Tensor sin() { return wrap(Ops.unary(UnaryOp.SIN, value)); }
    /// `cos x`.
    public Tensor cos() { return wrap(Ops.unary(UnaryOp.COS, value)); }
    /// `tanh x`.
    public Tensor tanh() { return wrap(Ops.unary(UnaryOp.TANH, value)); }
    /// `1 / (1 + e⁻ˣ)`.
    public Tensor sigmoid() { return wrap(Ops.unary(UnaryOp.SIGMOID, value)); }
    /// `max(x, 0)`; NaN stays NaN.
    public Tensor relu() { return wrap(Ops.unary(UnaryOp.RELU, value)); }
    /// GELU, exact form `x·Φ(x)` with the error function (PyTorch's default).
    public Tensor gelu() { return wrap(Ops.unary(UnaryOp.GELU_ERF, value)); }
    /// GELU, tanh approximation (PyTorch's `approximate='tanh'`).
    public Tensor geluTanh() { return wrap(Ops.unary(UnaryOp.GELU_TANH, value)); }
    /// `x·sigmoid(x)` (SiLU, swish).
    public Tensor silu() { return wrap(Ops.unary(UnaryOp.SILU, value)); }
    /// `ln(1 + eˣ)`, and `x` above 20 as PyTorch's threshold.
    public Tensor softplus() { return wrap(Ops.unary(UnaryOp.SOFTPLUS, value)); }
    /// -1, 0 or 1; NaN stays NaN (as NumPy).
    public Tensor sign() { return wrap(Ops.unary(UnaryOp.SIGN, value)); }
    /// The same values, through which gradients do not flow (PyTorch's `detach`, JAX's
    /// `stop_gradient`). Outside a trace no gradient flows anyway, so this tensor is returned as it
    /// is, its storage shared as PyTorch's `detach` shares it; so is an integer or bool tensor.
    public Tensor detach() { return dtype().isFloating() && (isTraced() || Jit.isTracing()) ? wrap(Ops.unary(UnaryOp.STOP_GRADIENT, value)) : this; }

    // ---- elementwise binary: shapes broadcast as NumPy's (else SmeltException naming both), dtypes
    //      promote as PyTorch's; a Java scalar is weakly typed (see DType) and must fit the dtype ----
    /// `this + other`.
    public Tensor add(Tensor other) { return wrap(Ops.binary(BinaryOp.ADD, value, value(other))); }
    /// `this + other` for a Java scalar.
    public Tensor add(Number other) { return wrap(Ops.binary(BinaryOp.ADD, value, other)); }
    /// `this - other`.
    public Tensor sub(Tensor other) { return wrap(Ops.binary(BinaryOp.SUB, value, value(other))); }
    /// `this - other` for a Java scalar.
    public Tensor sub(Number other) { return wrap(Ops.binary(BinaryOp.SUB, value, other)); }
    /// `this · other`, elementwise (see [#matmul] for the matrix product).
    public Tensor mul(Tensor other) { return wrap(Ops.binary(BinaryOp.MUL, value, value(other))); }
    /// `this · other` for a Java scalar.
    public Tensor mul(Number other) { return wrap(Ops.binary(BinaryOp.MUL, value, other)); }
    /// True division: integer operands give `f32`.
    public Tensor div(Tensor other) { return wrap(Ops.binary(BinaryOp.DIV, value, value(other))); }
    /// True division by a Java scalar.
    public Tensor div(Number other) { return wrap(Ops.binary(BinaryOp.DIV, value, other)); }
    /// `thisᵒᵗʰᵉʳ`, C's `pow` as PyTorch (`pow(x, 0) = 1`, `pow(1, y) = 1`, even for NaN).
    public Tensor pow(Tensor other) { return wrap(Ops.binary(BinaryOp.POW, value, value(other))); }
    /// `thisᵒᵗʰᵉʳ` for a Java scalar exponent; an integer tensor refuses a negative one, as PyTorch does.
    public Tensor pow(Number other) { return wrap(Ops.binary(BinaryOp.POW, value, other)); }
    /// The larger of each pair (`torch.maximum`): NaN wins, `-0 < +0`.
    public Tensor maximum(Tensor other) { return wrap(Ops.binary(BinaryOp.MAXIMUM, value, value(other))); }
    /// The larger of each element and a Java scalar (`torch.clamp(min=…)` for non-NaN input).
    public Tensor maximum(Number other) { return wrap(Ops.binary(BinaryOp.MAXIMUM, value, other)); }
    /// The smaller of each pair (`torch.minimum`): NaN wins, `-0 < +0`.
    public Tensor minimum(Tensor other) { return wrap(Ops.binary(BinaryOp.MINIMUM, value, value(other))); }
    /// The smaller of each element and a Java scalar.
    public Tensor minimum(Number other) { return wrap(Ops.binary(BinaryOp.MINIMUM, value, other)); }
    /// `this == other` as `bool` (NaN equals nothing).
    public Tensor eq(Tensor other) { return wrap(Ops.binary(BinaryOp.EQ, value, value(other))); }
    /// `this == other` for a Java scalar, as `bool`.
    public Tensor eq(Number other) { return wrap(Ops.binary(BinaryOp.EQ, value, other)); }
    /// `this != other` as `bool`.
    public Tensor ne(Tensor other) { return wrap(Ops.binary(BinaryOp.NE, value, value(other))); }
    /// `this != other` for a Java scalar, as `bool`.
    public Tensor ne(Number other) { return wrap(Ops.binary(BinaryOp.NE, value, other)); }
    /// `this < other` as `bool`.
    public Tensor lt(Tensor other) { return wrap(Ops.binary(BinaryOp.LT, value, value(other))); }
    /// `this < other` for a Java scalar, as `bool`.
    public Tensor lt(Number other) { return wrap(Ops.binary(BinaryOp.LT, value, other)); }
    /// `this <= other` as `bool`.
    public Tensor le(Tensor other) { return wrap(Ops.binary(BinaryOp.LE, value, value(other))); }
    /// `this <= other` for a Java scalar, as `bool`.
    public Tensor le(Number other) { return wrap(Ops.binary(BinaryOp.LE, value, other)); }
    /// `this > other` as `bool`.
    public Tensor gt(Tensor other) { return wrap(Ops.binary(BinaryOp.GT, value, value(other))); }
    /// `this > other` for a Java scalar, as `bool`.
    public Tensor gt(Number other) { return wrap(Ops.binary(BinaryOp.GT, value, other)); }
    /// `this >= other` as `bool`.
    public Tensor ge(Tensor other) { return wrap(Ops.binary(BinaryOp.GE, value, value(other))); }
    /// `this >= other` for a Java scalar, as `bool`.
    public Tensor ge(Number other) { return wrap(Ops.binary(BinaryOp.GE, value, other)); }
    /// `condition ? a : b` elementwise (`torch.where`); `condition` is `bool`, all three broadcast,
    /// `a` and `b` promote.
    public static Tensor where(Tensor condition, Tensor a, Tensor b) { return wrap(Ops.where(value(condition), value(a), value(b))); }
    /// [#where(Tensor, Tensor, Tensor)] with a Java scalar for `b`.
    public static Tensor where(Tensor condition, Tensor a, Number b) { return wrap(Ops.where(value(condition), value(a), b)); }
    /// [#where(Tensor, Tensor, Tensor)] with a Java scalar for `a`.
    public static Tensor where(Tensor condition, Number a, Tensor b) { return wrap(Ops.where(value(condition), a, value(b))); }
    /// `tensors` joined along `axis` (`torch.cat`): equal shapes elsewhere, dtypes promote, at
    /// least one tensor, none 0-d.
    public static Tensor concat(int axis, Tensor... tensors) { return wrap(Ops.concat(value(tensors), axis)); }
    /// [#concat(int, Tensor...)] of a list.
    public static Tensor concat(List<Tensor> tensors, int axis) { return wrap(Ops.concat(value(tensors), axis)); }
    /// NumPy `matmul` of float tensors: `[…, n, k] @ […, k, m] -> […, n, m]`; 1-D operands are
    /// vectors, leading axes are broadcast batch axes, dtypes promote.
    public Tensor matmul(Tensor other) { return wrap(Ops.matmul(value, value(other))); }
    /// Einstein summation as `torch.einsum`, e.g. `einsum("bhqd,bhkd->bhqk", q, k)` (`...`, broadcast
    /// sizes of 1, diagonals, implicit output), lowered to views, sums and batched matmuls.
    public static Tensor einsum(String spec, Tensor... operands) { return wrap(Einsum.apply(spec, operands == null ? null : value(operands).toArray(new Value[0]))); }

    // ---- reductions: no axes means all; keepDims keeps each reduced axis with size 1; negative axes
    //      count from the end; sums of bool count in i32 ----
    /// The sum over `axes` (all without any), as `torch.sum`.
    public Tensor sum(int... axes) { return wrap(Reductions.reduce(ReduceOp.SUM, value, axes, false)); }
    /// The sum over `axis`, which stays as size 1 with `keepDims`.
    public Tensor sum(int axis, boolean keepDims) { return wrap(Reductions.reduce(ReduceOp.SUM, value, new int[] {axis}, keepDims)); }
    /// The sum over `axes`, which stay as size 1 with `keepDims`.
    public Tensor sum(int[] axes, boolean keepDims) { return wrap(Reductions.reduce(ReduceOp.SUM, value, axes, keepDims)); }
    /// The product over `axes` (all without any).
    public Tensor prod(int... axes) { return wrap(Reductions.reduce(ReduceOp.PROD, value, axes, false)); }
    /// The product over `axis`, kept as size 1 with `keepDims`.
    public Tensor prod(int axis, boolean keepDims) { return wrap(Reductions.reduce(ReduceOp.PROD, value, new int[] {axis}, keepDims)); }
    /// The product over `axes`, kept as size 1 with `keepDims`.
    public Tensor prod(int[] axes, boolean keepDims) { return wrap(Reductions.reduce(ReduceOp.PROD, value, axes, keepDims)); }
    /// The maximum over `axes` (`torch.amax`; all without any); NaN wins; an empty axis throws.
    public Tensor max(int... axes) { return wrap(Reductions.reduce(ReduceOp.MAX, value, axes, false)); }
    /// The maximum over `axis`, kept as size 1 with `keepDims`.
    public Tensor max(int axis, boolean keepDims) { return wrap(Reductions.reduce(ReduceOp.MAX, value, new int[] {axis}, keepDims)); }
    /// The maximum over `axes`, kept as size 1 with `keepDims`.
    public Tensor max(int[] axes, boolean keepDims) { return wrap(Reductions.reduce(ReduceOp.MAX, value, axes, keepDims)); }
    /// The minimum over `axes` (`torch.amin`; all without any); NaN wins; an empty axis throws.
    public Tensor min(int... axes) { return wrap(Reductions.reduce(ReduceOp.MIN, value, axes, false)); }
    /// The minimum over `axis`, kept as size 1 with `keepDims`.
    public Tensor min(int axis, boolean keepDims) { return wrap(Reductions.reduce(ReduceOp.MIN, value, new int[] {axis}, keepDims)); }
    /// The minimum over `axes`, kept as size 1 with `keepDims`.
    public Tensor min(int[] axes, boolean keepDims) { return wrap(Reductions.reduce(ReduceOp.MIN, value, axes, keepDims)); }
    /// The mean over `axes` (all without any) in a float dtype; NaN over no elements.
    public Tensor mean(int... axes) { return wrap(Reductions.mean(value, axes, false)); }
    /// The mean over `axis`, kept as size 1 with `keepDims`.
    public Tensor mean(int axis, boolean keepDims) { return wrap(Reductions.mean(value, new int[] {axis}, keepDims)); }
    /// The mean over `axes`, kept as size 1 with `keepDims`.
    public Tensor mean(int[] axes, boolean keepDims) { return wrap(Reductions.mean(value, axes, keepDims)); }
    /// Unbiased variance (Bessel's correction, PyTorch's default `correction=1`).
    public Tensor var(int... axes) { return wrap(Reductions.var(value, axes, 1, false)); }
    /// Unbiased variance over `axis`, kept as size 1 with `keepDims`.
    public Tensor var(int axis, boolean keepDims) { return wrap(Reductions.var(value, new int[] {axis}, 1, keepDims)); }
    /// Variance dividing by `n - correction` (0 for the population variance).
    public Tensor var(int[] axes, int correction, boolean keepDims) { return wrap(Reductions.var(value, axes, correction, keepDims)); }
    /// `log Σ exp x`, computed stably by subtracting the maximum.
    public Tensor logsumexp(int... axes) { return wrap(Reductions.logsumexp(value, axes, false)); }
    /// `log Σ exp x` over `axis`, kept as size 1 with `keepDims`.
    public Tensor logsumexp(int axis, boolean keepDims) { return wrap(Reductions.logsumexp(value, new int[] {axis}, keepDims)); }
    /// `log Σ exp x` over `axes`, kept as size 1 with `keepDims`.
    public Tensor logsumexp(int[] axes, boolean keepDims) { return wrap(Reductions.logsumexp(value, axes, keepDims)); }
    /// Index of the first maximum of the flattened tensor, as a 0-d `i32`.
    public Tensor argmax() { return wrap(Reductions.argFlat(ReduceOp.ARGMAX, value)); }
    /// Index of the first maximum along `axis`, as `i32` with that axis removed.
    public Tensor argmax(int axis) { return wrap(Reductions.arg(ReduceOp.ARGMAX, value, axis, false)); }
    /// Index of the first maximum along `axis`, kept as size 1 with `keepDims`.
    public Tensor argmax(int axis, boolean keepDims) { return wrap(Reductions.arg(ReduceOp.ARGMAX, value, axis, keepDims)); }
    /// Index of the first minimum of the flattened tensor, as a 0-d `i32`.
    public Tensor argmin() { return wrap(Reductions.argFlat(ReduceOp.ARGMIN, value)); }
    /// Index of the first minimum along `axis`, as `i32` with that axis removed.
    public Tensor argmin(int axis) { return wrap(Reductions.arg(ReduceOp.ARGMIN, value, axis, false)); }
    /// Index of the first minimum along `axis`, kept as size 1 with `keepDims`.
    public Tensor argmin(int axis, boolean keepDims) { return wrap(Reductions.arg(ReduceOp.ARGMIN, value, axis, keepDims)); }

    // ---- composites, written in the primitives above (see Composites) ----
    /// `exp(x) / Σ exp(x)` along `axis`, computed stably; integer input becomes `f32`.
    public Tensor softmax(int axis) { return wrap(Composites.softmax(value, axis)); }
    /// `x - log Σ exp(x)` along `axis`, computed stably.
    public Tensor logSoftmax(int axis) { return wrap(Composites.logSoftmax(value, axis)); }
    /// Normalises over the trailing axes `normalizedShape`, then scales by `weight` and shifts by
    /// `bias` (either may be null), as `torch.nn.functional.layer_norm`.
    public Tensor layerNorm(int[] normalizedShape, Tensor weight, Tensor bias, double eps) { return wrap(Composites.layerNorm(value, normalizedShape, value(weight), value(bias), eps)); }
    /// [#layerNorm(int\[\], Tensor, Tensor, double)] without weight and bias, `eps = 1e-5`.
    public Tensor layerNorm(int... normalizedShape) { return wrap(Composites.layerNorm(value, normalizedShape, null, null, 1e-5)); }
    /// x / √(mean(x²) + eps) · weight (null: none) over the trailing axes, as `torch.nn.functional.rms_norm`.
    public Tensor rmsNorm(int[] normalizedShape, Tensor weight, double eps) { return wrap(Transformers.rmsNorm(value, normalizedShape, value(weight), eps)); }
    /// Rotary embedding: pairs of the last axis turn by angles (`cos`, `sin`: [..., d/2], broadcast); pairs
    /// are (2i, 2i+1) when `interleaved`, as llama2.c, else (i, i + d/2), as Hugging Face's `rotate_half`.
    public Tensor rope(Tensor cos, Tensor sin, boolean interleaved) { return wrap(Transformers.rope(value, value(cos), value(sin), interleaved)); }
    /// PyTorch's `scaled_dot_product_attention`, `softmax(q·kᵀ·scale + mask)·v`: q `[…, heads, T, d]`, k, v `[…, kvHeads,
    /// S, d | dv]` (fewer kv heads: grouped-query); `mask` boolean (true: take part) or added; `causal` top-left.
    public static Tensor scaledDotProductAttention(Tensor q, Tensor k, Tensor v, Tensor mask, boolean causal, double scale) { return wrap(Attention.apply(value(q), value(k), value(v), value(mask), causal, scale)); }
    /// Attention with the default scale 1/√d, causal or not, without a mask.
    public static Tensor scaledDotProductAttention(Tensor q, Tensor k, Tensor v, boolean causal) { return wrap(Attention.apply(value(q), value(k), value(v), null, causal)); }
    /// Attention with the default scale 1/√d and `mask` (boolean, or added to the scores).
    public static Tensor scaledDotProductAttention(Tensor q, Tensor k, Tensor v, Tensor mask) { return wrap(Attention.apply(value(q), value(k), value(v), value(mask), false)); }
    /// Mean cross-entropy of logits `[N, C]` (or `[C]`) against `i32` class indices `[N]` (or 0-d),
    /// or against class probabilities of the logits' shape. An index outside `[0, C)` throws.
    public Tensor crossEntropy(Tensor targets) { return wrap(Composites.crossEntropy(value, value(targets))); }
    /// `i32` one-hot rows, as `torch.nn.functional.one_hot`: `[..., classes]` from `i32` indices `[...]`; an
    /// index outside `[0, classes)` throws, eagerly and compiled.
    public Tensor oneHot(int classes) { return wrap(Masks.oneHot(value, classes)); }
    /// Mean squared error against `target` of the same shape.
    public Tensor mseLoss(Tensor target) { return wrap(Composites.mseLoss(value, value(target))); }
    /// Inverted dropout: each element zeroed with probability `p`, the others scaled by `1 / (1 - p)`, the mask
    /// drawn from `generator` (afresh on each compiled call). `p = 0` returns this tensor, `p = 1` it times 0.
    public Tensor dropout(double p, Generator generator) { return wrap(Composites.dropout(value, p, Generator.stream(generator))); }

    /// Values in PyTorch's layout, summarised beyond 1000 elements, then shape and dtype.
    @Override
    public String toString() { return Format.format(value); }

    // ---- the bridge to the ops, which compute on values (see Value) ----
    /// The one tensor standing for `value`: the one made before, or a new one.
    static Tensor wrap(Value value) { return value.wrapper() instanceof Tensor tensor ? tensor : new Tensor(value); }

    static List<Tensor> wrap(List<Value> values) {
        var tensors = new Tensor[values.size()];
        for (int i = 0; i < tensors.length; i++) tensors[i] = wrap(values.get(i));
        return List.of(tensors);
    }

    /// The value of `tensor`; null for null, which the op then reports as its argument.
    static Value value(Tensor tensor) { return tensor == null ? null : tensor.value; }

    static List<Value> value(List<Tensor> tensors) {
        if (tensors == null) return null;
        var values = new ArrayList<Value>(tensors.size());
        for (Tensor tensor : tensors) values.add(value(tensor));
        return values;
    }

    static List<Value> value(Tensor[] tensors) { return tensors == null ? null : value(Arrays.asList(tensors)); }

    Value value() { return value; }
}
