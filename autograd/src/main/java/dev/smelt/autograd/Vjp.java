// SPDX-License-Identifier: Apache-2.0
package dev.smelt.autograd;

import dev.smelt.ir.BinaryOp;
import dev.smelt.ir.DType;
import dev.smelt.ir.Node;
import dev.smelt.ir.Node.*;
import dev.smelt.ir.ReduceOp;
import dev.smelt.ir.Shape;
import dev.smelt.ir.UnaryOp;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/// Vector-Jacobian products: one rule per node kind, each written next to its maths.
///
/// For `y = f(x₁…xₙ)` and the upstream gradient `g = ∂L/∂y`, [#of] returns `∂L/∂xᵢ` for each
/// operand in order, or null where an operand gets no gradient (integer and bool values,
/// comparison and argmax results, a where's condition). Broadcasting is explicit in the IR (reshape
/// then expand), so a broadcast's gradient is summed back by the expand rule alone.
///
/// Subgradients: `relu`, `abs` and `sign` use 0 at 0 (PyTorch); `maximum`/`minimum` split `g`
/// evenly between equal operands (PyTorch's `torch.maximum`); a `max`/`min` reduction splits `g`
/// evenly among the elements equal to the result (PyTorch's `amax`/`amin`), and a NaN result passes
/// no gradient.
final class Vjp {
    private Vjp() {}

    private static final double SQRT_2_OVER_PI = Math.sqrt(2 / Math.PI), GELU_CUBIC = 0.044715;
    private static final double INV_SQRT_2PI = 1 / Math.sqrt(2 * Math.PI);

    static List<Node> of(Node y, Node g, Nodes b) {
        return switch (y) {
            case Input _, Constant _, Iota _ -> List.of();
            case Unary u -> Arrays.asList(unary(u, g, b));
            case Binary(var op, var x1, var x2, var _, var _) -> binary(op, x1, x2, y, g, b);
            case Where(var c, var t, var f, var _, var _) -> Arrays.asList(null,                // d(c ? t : f) = c ? g : 0,
                    b.where(c, g, b.constant(0, g)), b.where(c, b.constant(0, g), g));         //                c ? 0 : g
            case IndexCheck _ -> Arrays.asList((Node) null);                                   // indices: no gradient
            case Cast(var x, var _, var dtype) -> Arrays.asList(x.dtype().isFloating() && dtype.isFloating() ? b.cast(g, x.dtype()) : null);
            case Reduce r -> Arrays.asList(reduce(r, g, b));
            case MatMul m -> matmul(m, g, b);
            case Reshape(var x, var _, var _) -> List.of(b.reshape(g, x.shape()));              // reshape back
            case Permute(var x, var order, var _, var _) -> List.of(b.permute(g, inverse(order))); // inverse permutation
            case Expand(var x, var shape, var _) -> List.of(b.sum(g, expandedAxes(x.shape(), shape))); // Σ over repeated axes
            case Slice s -> List.of(slice(s, g, b));                                            // g placed back, zeros elsewhere
            case Concat c -> concat(c, g, b);                                                    // each part's slice of g
            case Random _ -> Arrays.asList((Node) null);                                         // no gradient to the key
            case Gather(var x, var axis, var index, var _, var _) -> Arrays.asList(              // d x[…, index, …] = g added at index
                    b.intern(new Scatter(b.constant(0, x.shape(), x.dtype()), axis, index, g, true)), null);
            case Scatter s -> scatter(s, g, b);
            case SliceUpdate u -> sliceUpdate(u, g, b);
            case ArgSort _ -> Arrays.asList((Node) null);                                        // indices: no gradient (topk's values are a gather)
            case Attention a -> AttentionVjp.of(a, g, b);                                        // FlashAttention-2's fused backward
        };
    }

    // scatter add: g, and g read back at index; scatter: g where nothing was written, and g read back
    // at index for the sources written last, 0 for those a repeated index overwrote (they do not
    // reach the result). Which one was written last: each source's row-major number scattered the
    // same way and read back (JAX's scatter rule; PyTorch gives every duplicate the gradient).
    private static List<Node> scatter(Scatter s, Node g, Nodes b) {
        Node gathered = b.intern(new Gather(g, s.axis(), s.index()));
        if (s.add()) return Arrays.asList(g, null, gathered);
        Node dx = b.intern(new Scatter(g, s.axis(), s.index(), b.constant(0, s.src()), false));
        Shape shape = s.src().shape();
        Node ids = b.reshape(b.intern(new Iota(0, Shape.of(shape.size()), DType.I32)), shape);
        Node written = b.intern(new Scatter(b.constant(-1, s.shape(), DType.I32), s.axis(), s.index(), ids, false));
        Node last = b.binary(BinaryOp.EQ, b.intern(new Gather(written, s.axis(), s.index())), ids);
        return Arrays.asList(dx, null, b.where(last, gathered, b.constant(0, gathered)));
    }

    // x with a slice replaced: g with that slice zeroed, and the slice of g at start + i (a gather).
    private static List<Node> sliceUpdate(SliceUpdate u, Node g, Nodes b) {
        Shape region = u.value().shape();
        Node dx = b.intern(new SliceUpdate(g, u.axis(), u.start(), b.constant(0, u.value())));
        Node start = b.expand(b.reshape(u.start(), new Shape(java.util.Collections.nCopies(region.rank(), 1))), region);
        Node index = b.add(b.intern(new Iota(u.axis(), region, u.start().dtype())), start);
        return Arrays.asList(dx, null, b.intern(new Gather(g, u.axis(), index)));
    }

    private static Node unary(Unary u, Node g, Nodes b) {
        Node x = u.x(), y = u;
        return switch (u.op()) {
            case NEG -> b.neg(g);                                                    // d(-x)      = -g
            case ABS -> b.mul(g, b.unary(UnaryOp.SIGN, x));                          // d|x|       = g·sign x
            case EXP -> b.mul(g, y);                                                 // d eˣ       = g·eˣ
            case EXPM1 -> b.mul(g, b.add(y, b.constant(1, y)));                      // d(eˣ-1)    = g·(y+1)
            case LOG -> b.div(g, x);                                                 // d ln x     = g/x
            case LOG1P -> b.div(g, b.add(x, b.constant(1, x)));                      // d ln(1+x)  = g/(1+x)
            case SQRT -> b.div(g, b.scale(2, y));                                    // d√x        = g/(2√x)
            case RSQRT -> b.mul(g, b.scale(-0.5, b.mul(y, b.square(y))));            // d x^-½     = -½·g·y³
            case RECIPROCAL -> b.neg(b.mul(g, b.square(y)));                         // d(1/x)     = -g·y²
            case SQUARE -> b.mul(g, b.scale(2, x));                                  // d x²       = 2x·g
            case SIN -> b.mul(g, b.unary(UnaryOp.COS, x));                           // d sin x    = g·cos x
            case COS -> b.neg(b.mul(g, b.unary(UnaryOp.SIN, x)));                    // d cos x    = -g·sin x
            case TANH -> b.mul(g, b.sub(b.constant(1, y), b.square(y)));             // d tanh x   = g·(1-y²)
            case SIGMOID -> b.mul(g, b.mul(y, b.sub(b.constant(1, y), y)));          // d σ(x)     = g·y·(1-y)
            case RELU -> b.where(positive(x, b), g, b.constant(0, g));               // d relu x   = x > 0 ? g : 0
            case GELU_TANH -> b.mul(g, geluTanhSlope(x, b));
            case GELU_ERF -> b.mul(g, geluErfSlope(x, y, b));
            case SILU -> {                                                           // d x·σ(x)   = g·σ·(1 + x·(1-σ))
                Node s = b.unary(UnaryOp.SIGMOID, x);
                yield b.mul(g, b.mul(s, b.add(b.constant(1, x), b.mul(x, b.sub(b.constant(1, s), s)))));
            }
            case SOFTPLUS -> b.where(b.binary(BinaryOp.GT, x, b.constant(20, x)), g,  // x > 20 ? g : g·σ(x) (PyTorch's threshold)
                    b.mul(g, b.unary(UnaryOp.SIGMOID, x)));
            case SIGN -> null;                                                       // piecewise constant: no gradient
            case STOP_GRADIENT -> null;                                              // by definition
        };
    }

    // ½(1 + t) + ½x·(1 - t²)·√(2/π)·(1 + 3·0.044715x²), t = tanh(√(2/π)(x + 0.044715x³))
    private static Node geluTanhSlope(Node x, Nodes b) {
        Node x2 = b.square(x);
        Node inner = b.scale(SQRT_2_OVER_PI, b.add(x, b.scale(GELU_CUBIC, b.mul(x2, x))));
        Node t = b.unary(UnaryOp.TANH, inner);
        Node half = b.constant(0.5, x), one = b.constant(1, x);
        Node dInner = b.scale(SQRT_2_OVER_PI, b.add(one, b.scale(3 * GELU_CUBIC, x2)));
        return b.add(b.mul(half, b.add(one, t)), b.mul(b.mul(half, x), b.mul(b.sub(one, b.square(t)), dInner)));
    }

    // Φ(x) + x·φ(x), with Φ(x) = gelu(x)/x (the IR has no erf); near 0, Φ = ½ to well below an ulp.
    private static Node geluErfSlope(Node x, Node y, Nodes b) {
        Node tiny = b.binary(BinaryOp.LT, b.unary(UnaryOp.ABS, x), b.constant(1e-20, x));
        Node cdf = b.where(tiny, b.constant(0.5, x), b.div(y, x));
        Node pdf = b.scale(INV_SQRT_2PI, b.unary(UnaryOp.EXP, b.scale(-0.5, b.square(x))));
        return b.add(cdf, b.mul(x, pdf));
    }

    private static List<Node> binary(BinaryOp op, Node x1, Node x2, Node y, Node g, Nodes b) {
        return switch (op) {
            case ADD -> List.of(g, g);                                               // d(a+b) = g, g
            case SUB -> List.of(g, b.neg(g));                                        // d(a-b) = g, -g
            case MUL -> List.of(b.mul(g, x2), b.mul(g, x1));                         // d(a·b) = g·b, g·a
            case DIV -> List.of(b.div(g, x2), b.neg(b.div(b.mul(g, x1), b.square(x2)))); // d(a/b) = g/b, -g·a/b²
            case POW -> pow(x1, x2, y, g, b);
            case MAXIMUM -> extremum(BinaryOp.LT, x1, x2, g, b);
            case MINIMUM -> extremum(BinaryOp.GT, x1, x2, g, b);
            case EQ, NE, LT, LE, GT, GE -> Arrays.asList(null, null);                 // bool result: no gradient
        };
    }

    // d aᵇ = g·b·aᵇ⁻¹ (0 where b = 0), g·aᵇ·ln a (0 where a = 0 and b ≥ 0): PyTorch's masks.
    private static List<Node> pow(Node a, Node e, Node y, Node g, Nodes b) {
        Node zero = b.constant(0, g);
        Node da = b.where(b.binary(BinaryOp.EQ, e, zero), zero, b.mul(g, b.mul(e, b.binary(BinaryOp.POW, a, b.sub(e, b.constant(1, e))))));
        Node de = b.mul(g, b.mul(y, b.unary(UnaryOp.LOG, a)));
        return List.of(da, b.where(b.binary(BinaryOp.EQ, a, zero), b.where(b.binary(BinaryOp.GE, e, zero), zero, de), de));
    }

    // maximum: a gets g where a > b, b where b > a, each g/2 where equal (loses = LT); minimum mirrored.
    private static List<Node> extremum(BinaryOp loses, Node x1, Node x2, Node g, Nodes b) {
        Node zero = b.constant(0, g), half = b.scale(0.5, g);
        Node tie = b.binary(BinaryOp.EQ, x1, x2);
        Node d1 = b.where(tie, half, b.where(b.binary(loses, x1, x2), zero, g));
        Node d2 = b.where(tie, half, b.where(b.binary(loses, x2, x1), zero, g));
        return List.of(d1, d2);
    }

    private static Node reduce(Reduce r, Node g, Nodes b) {
        Node x = r.x();
        Shape shape = x.shape();
        return switch (r.op()) {
            case SUM -> b.expand(g, shape);                                          // d Σx = g repeated
            case PROD -> prod(r, g, b);
            case MAX, MIN -> {                                                       // g / #ties on each tie, 0 elsewhere
                Node ties = b.binary(BinaryOp.EQ, x, b.expand(r, shape));
                // A NaN result is made by the NaNs, which tie with it (PyTorch's max(): its gradient goes
                // to them), rather than by nothing, which would give every element 0.
                if (x.dtype().isFloating()) ties = b.where(b.binary(BinaryOp.NE, x, x), b.constant(1, shape, DType.BOOL), ties);
                Node count = b.sum(b.cast(ties, x.dtype()), r.axes());
                yield b.where(ties, b.expand(b.div(g, count), shape), b.constant(0, shape, x.dtype()));
            }
            case ARGMAX, ARGMIN -> null;                                             // an index: no gradient
        };
    }

    // d Πx = g·Πx/xᵢ where xᵢ ≠ 0; at a zero, g·Π(others) if it is the only zero of its slice, else 0.
    private static Node prod(Reduce r, Node g, Nodes b) {
        Node x = r.x();
        Shape shape = x.shape();
        Node zero = b.constant(0, x), isZero = b.binary(BinaryOp.EQ, x, zero);
        Node zeros = b.sum(b.cast(isZero, x.dtype()), r.axes());
        Node others = b.reduce(ReduceOp.PROD, b.where(isZero, b.constant(1, x), x), r.axes());
        Node lone = b.where(b.binary(BinaryOp.EQ, zeros, b.constant(1, zeros)), b.mul(g, others), b.constant(0, g));
        Node nonZero = b.div(b.mul(b.expand(g, shape), b.expand(r, shape)), x);
        return b.where(isZero, b.expand(lone, shape), nonZero);
    }

    // C = op(A)·op(B), with op a transpose where flagged: d op(A) = G·op(B)ᵀ, d op(B) = op(A)ᵀ·G.
    // A transposed operand's gradient is the transpose of that, which swaps the product's factors;
    // every case stays one matmul with transpose flags.
    private static List<Node> matmul(MatMul m, Node g, Nodes b) {
        boolean ta = m.transposeA(), tb = m.transposeB();
        Node da = ta ? b.matmul(m.b(), g, tb, true) : b.matmul(g, m.b(), false, !tb);     // Aᵀ stored: op(B)·Gᵀ
        Node db = tb ? b.matmul(g, m.a(), true, ta) : b.matmul(m.a(), g, !ta, false);     // Bᵀ stored: Gᵀ·op(A)
        return List.of(da, db);
    }

    // Zeros with g at start, start+step, … along the axis: g interleaved with step-1 zero rows,
    // trimmed to the axis, then padded before and after (a concat with constants, no scatter).
    private static Node slice(Slice s, Node g, Nodes b) {
        Shape full = s.x().shape();
        int axis = s.axis(), n = g.shape().dim(axis), step = s.step(), dim = full.dim(axis);
        Node spread = g;
        if (step > 1 && n > 0) {
            Shape unit = inserted(g.shape(), axis + 1, 1);
            Node rows = b.concat(List.of(b.reshape(g, unit), b.constant(0, unit.with(axis + 1, step - 1), g.dtype())), axis + 1);
            spread = b.reshape(rows, g.shape().with(axis, n * step));
            spread = b.slice(spread, axis, 0, Math.min(n * step, dim - s.start()), 1);
        }
        int after = dim - s.start() - spread.shape().dim(axis);
        var parts = new ArrayList<Node>();
        if (s.start() > 0) parts.add(b.constant(0, full.with(axis, s.start()), g.dtype()));
        if (spread.shape().dim(axis) > 0) parts.add(spread);
        if (after > 0) parts.add(b.constant(0, full.with(axis, after), g.dtype()));
        return parts.isEmpty() ? b.constant(0, full, g.dtype()) : b.concat(parts, axis);
    }

    private static List<Node> concat(Concat c, Node g, Nodes b) {
        var grads = new ArrayList<Node>();
        int offset = 0;
        for (Node part : c.parts()) {
            int size = part.shape().dim(c.axis());
            grads.add(b.slice(g, c.axis(), offset, offset + size, 1));
            offset += size;
        }
        return grads;
    }

    private static Node positive(Node x, Nodes b) { return b.binary(BinaryOp.GT, x, b.constant(0, x)); }

    static List<Integer> inverse(List<Integer> order) {
        Integer[] inverse = new Integer[order.size()];
        for (int axis = 0; axis < order.size(); axis++) inverse[order.get(axis)] = axis;
        return List.of(inverse);
    }

    static List<Integer> expandedAxes(Shape from, Shape to) {
        var axes = new ArrayList<Integer>();
        for (int axis = 0; axis < from.rank(); axis++)
            if (from.dim(axis) != to.dim(axis)) axes.add(axis);
        return axes;
    }

    private static Shape inserted(Shape shape, int axis, int size) {
        var dims = new ArrayList<>(shape.dims());
        dims.add(axis, size);
        return new Shape(dims);
    }
}
