// SPDX-License-Identifier: Apache-2.0
package dev.smelt;

import dev.smelt.ir.BinaryOp;
import dev.smelt.ir.DType;
import dev.smelt.ir.Node;
import dev.smelt.ir.ReduceOp;
import dev.smelt.ir.Shape;
import dev.smelt.ir.Storage;
import dev.smelt.ir.UnaryOp;
import dev.smelt.trace.Tracer;
import java.util.List;

/// An n-dimensional array of `f32`, `f64`, `i32` or `bool`, and the one type Smelt programs are
/// written against. Outside a trace a tensor is concrete: storage viewed through shape, strides and
/// offset, and every operation computes at once (views share storage). Inside [Jit#trace] the same
/// methods record graph nodes instead; reading values of a traced tensor is an error.
///
/// Broadcasting follows NumPy; dtype promotion follows PyTorch (see [DType]); axes may be negative,
/// counting from the end. Bad input throws [SmeltException] naming the op, the shapes and the caller.
public final class Tensor {
    /// The most elements a tensor holds: the largest array length every JVM allocates (the JDK's
    /// own `ArraysSupport.SOFT_MAX_ARRAY_LENGTH`; HotSpot refuses `Integer.MAX_VALUE - 1` whatever the
    /// heap). Every op that would make a larger tensor, eagerly or inside a trace, throws
    /// [SmeltException] instead; a smaller one that the heap cannot hold is an `OutOfMemoryError`.
    public static final int MAX_SIZE = Integer.MAX_VALUE - 8;

    private final Storage storage;
    private final Shape shape;
    private final int[] strides;
    private final int offset;
    private final Node node;
    private final Tracer tracer;

    Tensor(Storage storage, Shape shape, int[] strides, int offset) {
        this.storage = storage;
        this.shape = shape;
        this.strides = strides;
        this.offset = offset;
        this.node = null;
        this.tracer = null;
    }

    Tensor(Node node, Tracer tracer) {
        this.storage = null;
        this.shape = node.shape();
        this.strides = null;
        this.offset = 0;
        this.node = node;
        this.tracer = tracer;
    }

    // ---- creation (see Creation) ----
    public static Tensor zeros(int... shape) { return Creation.full(DType.F32, 0, shape); }
    public static Tensor zeros(DType dtype, int... shape) { return Creation.full(dtype, 0, shape); }
    public static Tensor ones(int... shape) { return Creation.full(DType.F32, 1, shape); }
    public static Tensor ones(DType dtype, int... shape) { return Creation.full(dtype, 1, shape); }
    public static Tensor full(double value, int... shape) { return Creation.full(DType.F32, value, shape); }
    public static Tensor full(DType dtype, double value, int... shape) { return Creation.full(dtype, value, shape); }
    /// A 0-d `f32` tensor (use [#scalar(DType, double)] for other dtypes).
    public static Tensor scalar(double value) { return Creation.full(DType.F32, value); }
    public static Tensor scalar(DType dtype, double value) { return Creation.full(dtype, value); }
    /// `0, 1, …, end-1` as `i32`, like `torch.arange(end)`.
    public static Tensor arange(int end) { return Creation.arange(0, end, 1); }
    public static Tensor arange(int start, int end, int step) { return Creation.arange(start, end, step); }
    /// `start, start+step, …` below `end`, as `f32`.
    public static Tensor arange(double start, double end, double step) { return Creation.arange(start, end, step); }
    /// `steps` evenly spaced `f32` values from `start` to `end` inclusive.
    public static Tensor linspace(double start, double end, int steps) { return Creation.linspace(start, end, steps); }
    /// A tensor over a copy of `data` in row-major order; `shape` defaults to `[data.length]`.
    public static Tensor of(float[] data, int... shape) { return Creation.of(Storage.wrap(Creation.data(data).clone()), shape); }
    public static Tensor of(double[] data, int... shape) { return Creation.of(Storage.wrap(Creation.data(data).clone()), shape); }
    public static Tensor of(int[] data, int... shape) { return Creation.of(Storage.wrap(Creation.data(data).clone()), shape); }
    public static Tensor of(boolean[] data, int... shape) { return Creation.of(Creation.bools(Creation.data(data)), shape); }
    /// Uniform `f32` values in `[0, 1)` from `generator`.
    public static Tensor rand(Generator generator, int... shape) { return Creation.random(generator, false, DType.F32, shape); }
    public static Tensor rand(Generator generator, DType dtype, int... shape) { return Creation.random(generator, false, dtype, shape); }
    /// Standard normal `f32` values from `generator`.
    public static Tensor randn(Generator generator, int... shape) { return Creation.random(generator, true, DType.F32, shape); }
    public static Tensor randn(Generator generator, DType dtype, int... shape) { return Creation.random(generator, true, dtype, shape); }

    // ---- metadata ----
    public Shape shape() { return shape; }
    public DType dtype() { return node != null ? node.dtype() : storage.dtype(); }
    public int rank() { return shape.rank(); }
    /// The size of `axis` (negative counts from the end).
    public int dim(int axis) { return shape.dim(Builder.axis("dim", axis, rank())); }
    /// The number of elements.
    public int size() { return shape.size(); }
    /// Whether this tensor is a symbolic value inside a trace rather than concrete data.
    public boolean isTraced() { return node != null; }

    // ---- views (see Views): share storage, never copy, except reshape of a non-contiguous tensor ----
    /// Same elements in row-major order, new shape; one dimension may be -1 (inferred).
    public Tensor reshape(int... shape) { return Views.reshape(this, shape); }
    public Tensor permute(int... order) { return Views.permute(this, order); }
    public Tensor transpose(int axis0, int axis1) { return Views.transpose(this, axis0, axis1); }
    /// The transpose of a matrix (`transpose(-2, -1)`).
    public Tensor t() { return Views.transpose(this, -2, -1); }
    /// Size-1 axes repeated (stride 0), leading axes added: NumPy's `broadcast_to`.
    public Tensor expand(int... shape) { return Views.expand(this, shape); }
    public Tensor broadcastTo(int... shape) { return Views.expand(this, shape); }
    /// Elements `start, start+step, …` below `stop` of `axis`; negative indices count from the end.
    public Tensor slice(int axis, int start, int stop, int step) { return Views.slice(this, axis, start, stop, step); }
    public Tensor slice(int axis, int start, int stop) { return Views.slice(this, axis, start, stop, 1); }
    /// All size-1 axes removed.
    public Tensor squeeze() { return Views.squeeze(this, new int[0]); }
    public Tensor squeeze(int... axes) { return Views.squeeze(this, axes); }
    public Tensor unsqueeze(int axis) { return Views.unsqueeze(this, axis); }
    public Tensor flatten() { return Views.flatten(this, 0, -1); }
    public Tensor flatten(int startAxis, int endAxis) { return Views.flatten(this, startAxis, endAxis); }
    /// This tensor if its elements are dense in row-major order, else a dense copy.
    public Tensor contiguous() { return Views.contiguous(this); }
    /// This tensor converted to `dtype` (itself if it already has it).
    public Tensor to(DType dtype) { return Ops.cast(this, dtype); }

    // ---- elementwise unary (see UnaryOp for each definition) ----
    public Tensor neg() { return Ops.unary(UnaryOp.NEG, this); }
    public Tensor abs() { return Ops.unary(UnaryOp.ABS, this); }
    public Tensor exp() { return Ops.unary(UnaryOp.EXP, this); }
    public Tensor expm1() { return Ops.unary(UnaryOp.EXPM1, this); }
    public Tensor log() { return Ops.unary(UnaryOp.LOG, this); }
    public Tensor log1p() { return Ops.unary(UnaryOp.LOG1P, this); }
    public Tensor sqrt() { return Ops.unary(UnaryOp.SQRT, this); }
    public Tensor rsqrt() { return Ops.unary(UnaryOp.RSQRT, this); }
    public Tensor reciprocal() { return Ops.unary(UnaryOp.RECIPROCAL, this); }
    public Tensor square() { return Ops.unary(UnaryOp.SQUARE, this); }
    public Tensor sin() { return Ops.unary(UnaryOp.SIN, this); }
    public Tensor cos() { return Ops.unary(UnaryOp.COS, this); }
    public Tensor tanh() { return Ops.unary(UnaryOp.TANH, this); }
    public Tensor sigmoid() { return Ops.unary(UnaryOp.SIGMOID, this); }
    public Tensor relu() { return Ops.unary(UnaryOp.RELU, this); }
    /// GELU, exact form `x·Φ(x)` with the error function (PyTorch's default).
    public Tensor gelu() { return Ops.unary(UnaryOp.GELU_ERF, this); }
    /// GELU, tanh approximation (PyTorch's `approximate='tanh'`).
    public Tensor geluTanh() { return Ops.unary(UnaryOp.GELU_TANH, this); }
    public Tensor silu() { return Ops.unary(UnaryOp.SILU, this); }
    public Tensor softplus() { return Ops.unary(UnaryOp.SOFTPLUS, this); }
    public Tensor sign() { return Ops.unary(UnaryOp.SIGN, this); }

    // ---- elementwise binary, broadcasting; a Java scalar is weakly typed (see DType) ----
    public Tensor add(Tensor other) { return Ops.binary(BinaryOp.ADD, this, other); }
    public Tensor add(Number other) { return Ops.binary(BinaryOp.ADD, this, other); }
    public Tensor sub(Tensor other) { return Ops.binary(BinaryOp.SUB, this, other); }
    public Tensor sub(Number other) { return Ops.binary(BinaryOp.SUB, this, other); }
    public Tensor mul(Tensor other) { return Ops.binary(BinaryOp.MUL, this, other); }
    public Tensor mul(Number other) { return Ops.binary(BinaryOp.MUL, this, other); }
    /// True division: integer operands give `f32`.
    public Tensor div(Tensor other) { return Ops.binary(BinaryOp.DIV, this, other); }
    public Tensor div(Number other) { return Ops.binary(BinaryOp.DIV, this, other); }
    public Tensor pow(Tensor other) { return Ops.binary(BinaryOp.POW, this, other); }
    public Tensor pow(Number other) { return Ops.binary(BinaryOp.POW, this, other); }
    public Tensor maximum(Tensor other) { return Ops.binary(BinaryOp.MAXIMUM, this, other); }
    public Tensor maximum(Number other) { return Ops.binary(BinaryOp.MAXIMUM, this, other); }
    public Tensor minimum(Tensor other) { return Ops.binary(BinaryOp.MINIMUM, this, other); }
    public Tensor minimum(Number other) { return Ops.binary(BinaryOp.MINIMUM, this, other); }
    public Tensor eq(Tensor other) { return Ops.binary(BinaryOp.EQ, this, other); }
    public Tensor eq(Number other) { return Ops.binary(BinaryOp.EQ, this, other); }
    public Tensor ne(Tensor other) { return Ops.binary(BinaryOp.NE, this, other); }
    public Tensor ne(Number other) { return Ops.binary(BinaryOp.NE, this, other); }
    public Tensor lt(Tensor other) { return Ops.binary(BinaryOp.LT, this, other); }
    public Tensor lt(Number other) { return Ops.binary(BinaryOp.LT, this, other); }
    public Tensor le(Tensor other) { return Ops.binary(BinaryOp.LE, this, other); }
    public Tensor le(Number other) { return Ops.binary(BinaryOp.LE, this, other); }
    public Tensor gt(Tensor other) { return Ops.binary(BinaryOp.GT, this, other); }
    public Tensor gt(Number other) { return Ops.binary(BinaryOp.GT, this, other); }
    public Tensor ge(Tensor other) { return Ops.binary(BinaryOp.GE, this, other); }
    public Tensor ge(Number other) { return Ops.binary(BinaryOp.GE, this, other); }
    /// `condition ? a : b` elementwise; `condition` is `bool`, all three broadcast.
    public static Tensor where(Tensor condition, Tensor a, Tensor b) { return Ops.where(condition, a, b); }
    public static Tensor where(Tensor condition, Tensor a, Number b) { return Ops.where(condition, a, b); }
    public static Tensor where(Tensor condition, Number a, Tensor b) { return Ops.where(condition, a, b); }
    /// `tensors` joined along `axis`.
    public static Tensor concat(int axis, Tensor... tensors) { return Ops.concat(tensors, axis); }
    public static Tensor concat(List<Tensor> tensors, int axis) { return Ops.concat(tensors, axis); }
    /// NumPy `matmul`: 1-D operands are vectors, leading axes are broadcast batch axes.
    public Tensor matmul(Tensor other) { return Ops.matmul(this, other); }

    // ---- reductions: no axes means all; keepDims keeps each reduced axis with size 1 ----
    public Tensor sum(int... axes) { return Reductions.reduce(ReduceOp.SUM, this, axes, false); }
    public Tensor sum(int axis, boolean keepDims) { return Reductions.reduce(ReduceOp.SUM, this, new int[] {axis}, keepDims); }
    public Tensor sum(int[] axes, boolean keepDims) { return Reductions.reduce(ReduceOp.SUM, this, axes, keepDims); }
    public Tensor prod(int... axes) { return Reductions.reduce(ReduceOp.PROD, this, axes, false); }
    public Tensor prod(int axis, boolean keepDims) { return Reductions.reduce(ReduceOp.PROD, this, new int[] {axis}, keepDims); }
    public Tensor prod(int[] axes, boolean keepDims) { return Reductions.reduce(ReduceOp.PROD, this, axes, keepDims); }
    public Tensor max(int... axes) { return Reductions.reduce(ReduceOp.MAX, this, axes, false); }
    public Tensor max(int axis, boolean keepDims) { return Reductions.reduce(ReduceOp.MAX, this, new int[] {axis}, keepDims); }
    public Tensor max(int[] axes, boolean keepDims) { return Reductions.reduce(ReduceOp.MAX, this, axes, keepDims); }
    public Tensor min(int... axes) { return Reductions.reduce(ReduceOp.MIN, this, axes, false); }
    public Tensor min(int axis, boolean keepDims) { return Reductions.reduce(ReduceOp.MIN, this, new int[] {axis}, keepDims); }
    public Tensor min(int[] axes, boolean keepDims) { return Reductions.reduce(ReduceOp.MIN, this, axes, keepDims); }
    public Tensor mean(int... axes) { return Reductions.mean(this, axes, false); }
    public Tensor mean(int axis, boolean keepDims) { return Reductions.mean(this, new int[] {axis}, keepDims); }
    public Tensor mean(int[] axes, boolean keepDims) { return Reductions.mean(this, axes, keepDims); }
    /// Unbiased variance (Bessel's correction, PyTorch's default `correction=1`).
    public Tensor var(int... axes) { return Reductions.var(this, axes, 1, false); }
    public Tensor var(int axis, boolean keepDims) { return Reductions.var(this, new int[] {axis}, 1, keepDims); }
    /// Variance dividing by `n - correction` (0 for the population variance).
    public Tensor var(int[] axes, int correction, boolean keepDims) { return Reductions.var(this, axes, correction, keepDims); }
    /// `log Σ exp x`, computed stably by subtracting the maximum.
    public Tensor logsumexp(int... axes) { return Reductions.logsumexp(this, axes, false); }
    public Tensor logsumexp(int axis, boolean keepDims) { return Reductions.logsumexp(this, new int[] {axis}, keepDims); }
    public Tensor logsumexp(int[] axes, boolean keepDims) { return Reductions.logsumexp(this, axes, keepDims); }
    /// Index of the first maximum of the flattened tensor, as a 0-d `i32`.
    public Tensor argmax() { return Reductions.argFlat(ReduceOp.ARGMAX, this); }
    public Tensor argmax(int axis) { return Reductions.arg(ReduceOp.ARGMAX, this, axis, false); }
    public Tensor argmax(int axis, boolean keepDims) { return Reductions.arg(ReduceOp.ARGMAX, this, axis, keepDims); }
    public Tensor argmin() { return Reductions.argFlat(ReduceOp.ARGMIN, this); }
    public Tensor argmin(int axis) { return Reductions.arg(ReduceOp.ARGMIN, this, axis, false); }
    public Tensor argmin(int axis, boolean keepDims) { return Reductions.arg(ReduceOp.ARGMIN, this, axis, keepDims); }

    // ---- composites, written in the primitives above (see Composites) ----
    public Tensor softmax(int axis) { return Composites.softmax(this, axis); }
    public Tensor logSoftmax(int axis) { return Composites.logSoftmax(this, axis); }
    /// Normalises over the trailing axes `normalizedShape`, then scales by `weight` and shifts by
    /// `bias` (either may be null), as `torch.nn.functional.layer_norm`.
    public Tensor layerNorm(int[] normalizedShape, Tensor weight, Tensor bias, double eps) { return Composites.layerNorm(this, normalizedShape, weight, bias, eps); }
    public Tensor layerNorm(int... normalizedShape) { return Composites.layerNorm(this, normalizedShape, null, null, 1e-5); }
    /// Mean cross-entropy of logits `[N, C]` (or `[C]`) against `i32` class indices `[N]` (or 0-d),
    /// or against class probabilities of the logits' shape. An index outside `[0, C)` throws when
    /// eager and gives NaN when traced.
    public Tensor crossEntropy(Tensor targets) { return Composites.crossEntropy(this, targets); }
    /// Mean squared error against `target` of the same shape.
    public Tensor mseLoss(Tensor target) { return Composites.mseLoss(this, target); }

    // ---- values (concrete tensors only) ----
    /// Element at `index` (negative indices count from the end), as a double.
    public double get(int... index) { return Values.get(this, index); }
    /// Stores `value` (rounded to the dtype) at `index`, in place, in the storage this tensor shares
    /// with its views; a compiled function that reads this tensor sees the new value at its next
    /// call. `t.set(0.01)` sets a 0-d tensor, such as a hyper-parameter a training step passes.
    public void set(double value, int... index) { Values.set(this, value, index); }
    /// Overwrites every element with `source`'s, in place, as [#set] does one: views of this tensor
    /// and compiled functions or training steps that read it see the new values at their next
    /// call. `source` must have this tensor's shape and dtype; bits are copied unchanged. Returns
    /// this tensor. A broadcast view (`expand`) cannot be written: its elements share storage.
    public Tensor copyFrom(Tensor source) { return Copies.copyFrom(this, source); }
    /// Overwrites every element with `values` in row-major order; their count must be [#size].
    /// Into `f32` bit for bit or `f64` exactly; not into `i32`.
    public Tensor copyFrom(float[] values) { return Copies.copyFrom(this, values); }
    /// Into `f64` only: rounding to `f32` would change the values (copy from `Tensor.of(values).to(DType.F32)` to round).
    public Tensor copyFrom(double[] values) { return Copies.copyFrom(this, values); }
    /// Into `i32`, or `f64`, which holds every `int` exactly.
    public Tensor copyFrom(int[] values) { return Copies.copyFrom(this, values); }
    /// Into `bool` only.
    public Tensor copyFrom(boolean[] values) { return Copies.copyFrom(this, values); }
    /// The only element of a one-element tensor.
    public double item() { return Values.item(this); }
    public float[] toFloatArray() { return Values.floats(this); }
    public double[] toDoubleArray() { return Values.doubles(this); }
    public int[] toIntArray() { return Values.ints(this); }
    public boolean[] toBooleanArray() { return Values.booleans(this); }
    /// `torch.allclose`: `|a - b| ≤ atol + rtol·|b|` everywhere after broadcasting, NaN never close.
    public boolean allClose(Tensor other) { return Values.allClose(this, other, 1e-5, 1e-8, false); }
    public boolean allClose(Tensor other, double rtol, double atol, boolean equalNan) { return Values.allClose(this, other, rtol, atol, equalNan); }

    /// Values in PyTorch's layout, summarised beyond 1000 elements, then shape and dtype.
    @Override
    public String toString() { return Format.format(this); }

    // ---- internals shared with the rest of the package ----
    Storage storage() { return storage; }
    int[] strides() { return strides; }
    int offset() { return offset; }
    Node node() { return node; }
    Tracer tracer() { return tracer; }
}
