// SPDX-License-Identifier: Apache-2.0
package dev.smelt.ir;

import java.util.List;

/// A node of the graph IR: an operator, its operands, a shape and a dtype. Immutable.
///
/// Every record ends with its `shape` and `dtype`. The short constructors infer them from the
/// operands; the canonical ones also accept them explicitly and check them against the inferred
/// type. Stored, not derived on each call: a derived `shape()` would recurse down the whole chain
/// below a node, and exponentially where a node reads one operand twice (`matmul(x, x)`).
///
/// Equality is shallow: same operator and attributes over *identical* operand nodes. The tracer
/// hash-conses as it records, so equal subgraphs are one instance and shallow equality is structural
/// equality at constant cost (records' generated deep `equals`, `hashCode` and `toString` are
/// exponential on a DAG that shares operands; the leaves write out the generated ones, which are
/// bootstrapped on first use, which a fresh JVM's first compile pays for). The constructors enforce each operator's typing
/// rule; the API layer has already broadcast shapes and cast dtypes, and reports user errors.
public sealed interface Node {
    Shape shape();

    DType dtype();

    /// The operands, in order.
    List<Node> inputs();

    /// This node's operator and attributes over `inputs` (in the order of [#inputs]): how passes
    /// and autograd's partition rebuild a node; itself when they are the same nodes, and a leaf is
    /// always itself. The constructors check the typing rule again, so an operand of another type
    /// fails at once.
    default Node withInputs(List<Node> inputs) {
        if (sameNodes(inputs(), inputs)) return this;
        return switch (this) {
            case Input _, Constant _, Iota _ -> this;
            case Unary u -> new Unary(u.op(), inputs.getFirst());
            case Binary b -> new Binary(b.op(), inputs.get(0), inputs.get(1));
            case Where _ -> new Where(inputs.get(0), inputs.get(1), inputs.get(2));
            case Cast c -> new Cast(inputs.getFirst(), c.dtype());
            case IndexCheck c -> new IndexCheck(inputs.getFirst(), c.bounds());
            case Reduce r -> new Reduce(r.op(), inputs.getFirst(), r.axes());
            case MatMul m -> new MatMul(inputs.get(0), inputs.get(1), m.transposeA(), m.transposeB());
            case Reshape r -> new Reshape(inputs.getFirst(), r.shape());
            case Permute p -> new Permute(inputs.getFirst(), p.order());
            case Expand e -> new Expand(inputs.getFirst(), e.shape());
            case Slice s -> new Slice(inputs.getFirst(), s.axis(), s.start(), s.stop(), s.step());
            case Concat c -> new Concat(inputs, c.axis());
            case Random r -> new Random(r.distribution(), inputs.getFirst(), r.shape(), r.dtype());
            case Gather g -> new Gather(inputs.get(0), g.axis(), inputs.get(1));
            case Scatter s -> new Scatter(inputs.get(0), s.axis(), inputs.get(1), inputs.get(2), s.add());
            case SliceUpdate u -> new SliceUpdate(inputs.get(0), u.axis(), inputs.get(1), inputs.get(2));
            case ArgSort s -> new ArgSort(inputs.getFirst(), s.axis(), s.descending());
            case Attention a -> new Attention(a.part(), inputs, a.causal(), a.scale());
        };
    }

    /// Whether `a` and `b` hold the same node instances in the same order.
    static boolean sameNodes(List<Node> a, List<Node> b) {
        if (a.size() != b.size()) return false;
        for (int i = 0; i < a.size(); i++)
            if (a.get(i) != b.get(i)) return false;
        return true;
    }

    /// Graph input number `slot`.
    record Input(int slot, Shape shape, DType dtype) implements Node {
        public List<Node> inputs() { return List.of(); }
        public boolean equals(Object o) { return o instanceof Input i && slot == i.slot && dtype == i.dtype && shape.equals(i.shape); }
        public int hashCode() { return (31 * Integer.hashCode(slot) + shape.hashCode()) * 31 + dtype.hashCode(); }
    }

    /// `value` in every element.
    record Constant(double value, Shape shape, DType dtype) implements Node {
        public Constant { value = dtype.round(value); }
        public List<Node> inputs() { return List.of(); }
        public boolean equals(Object o) { return o instanceof Constant c && Double.compare(value, c.value) == 0 && dtype == c.dtype && shape.equals(c.shape); }
        public int hashCode() { return (31 * Double.hashCode(value) + shape.hashCode()) * 31 + dtype.hashCode(); }
    }

    /// Each element's index along `axis` (XLA's iota): one-hot masks and position ids without an input.
    record Iota(int axis, Shape shape, DType dtype) implements Node {
        public Iota {
            Check.axis(axis, shape);
            Check.that(dtype != DType.BOOL, "iota needs a numeric dtype, not bool");
        }
        public List<Node> inputs() { return List.of(); }
        public boolean equals(Object o) { return o instanceof Iota i && axis == i.axis && dtype == i.dtype && shape.equals(i.shape); }
        public int hashCode() { return (31 * Integer.hashCode(axis) + shape.hashCode()) * 31 + dtype.hashCode(); }
    }

    /// A tensor of `distribution` drawn from the stream whose 64-bit key is `key`, an `i32[2]` of its
    /// high and low halves: element `i` (row-major) is `distribution.sample(key, i, dtype)`. The key
    /// is an input, so each call draws fresh values without a recompile, and a backward regenerates
    /// a dropout mask from it instead of saving the mask.
    record Random(Distribution distribution, Node key, Shape shape, DType dtype) implements Node {
        public Random {
            Check.that(key.dtype() == DType.I32 && key.shape().equals(Shape.of(2)), "%s needs an i32[2] key, not %s%s", distribution, key.dtype(), key.shape());
            Check.that(dtype.isFloating(), "%s needs a float dtype, not %s", distribution, dtype);
        }
        public List<Node> inputs() { return List.of(key); }
        public boolean equals(Object o) { return o instanceof Random r && distribution == r.distribution && shape.equals(r.shape) && dtype == r.dtype && key == r.key; }
        public int hashCode() { return Check.hash(distribution, shape, dtype, key); }
        public String toString() { return Check.describe(this, distribution.toString()); }

        /// The key's two halves as one `long`.
        public static long key(int high, int low) { return (long) high << 32 | (low & 0xFFFFFFFFL); }
    }

    /// `op(x)`, elementwise.
    record Unary(UnaryOp op, Node x, Shape shape, DType dtype) implements Node {
        public Unary(UnaryOp op, Node x) { this(op, x, null, null); }
        public Unary {
            Check.that(x.dtype().isFloating() || op.acceptsIntegers() && x.dtype() == DType.I32, "%s needs a float operand, not %s", op, x.dtype());
            shape = Check.inferred(shape, x.shape(), op);
            dtype = Check.inferred(dtype, x.dtype(), op);
        }
        public List<Node> inputs() { return List.of(x); }
        public boolean equals(Object o) { return o instanceof Unary u && op == u.op && x == u.x; }
        public int hashCode() { return Check.hash(op, x); }
        public String toString() { return Check.describe(this, op); }
    }

    /// `op(left, right)`, elementwise over equal shapes and dtypes.
    record Binary(BinaryOp op, Node left, Node right, Shape shape, DType dtype) implements Node {
        public Binary(BinaryOp op, Node left, Node right) { this(op, left, right, null, null); }
        public Binary {
            Check.same(left.shape(), right.shape(), op);
            Check.same(left.dtype(), right.dtype(), op);
            Check.that(left.dtype().isFloating() || op.acceptsIntegers() && left.dtype() != DType.BOOL || op.isComparison(), "%s is not defined on %s", op, left.dtype());
            shape = Check.inferred(shape, left.shape(), op);
            dtype = Check.inferred(dtype, op.isComparison() ? DType.BOOL : left.dtype(), op);
        }
        public List<Node> inputs() { return List.of(left, right); }
        public boolean equals(Object o) { return o instanceof Binary b && op == b.op && left == b.left && right == b.right; }
        public int hashCode() { return Check.hash(op, left, right); }
        public String toString() { return Check.describe(this, op); }
    }

    /// `condition ? ifTrue : ifFalse`, elementwise; the condition is `bool`.
    record Where(Node condition, Node ifTrue, Node ifFalse, Shape shape, DType dtype) implements Node {
        public Where(Node condition, Node ifTrue, Node ifFalse) { this(condition, ifTrue, ifFalse, null, null); }
        public Where {
            Check.that(condition.dtype() == DType.BOOL, "where needs a bool condition, not %s", condition.dtype());
            Check.same(condition.shape(), ifTrue.shape(), "where");
            Check.same(ifTrue.shape(), ifFalse.shape(), "where");
            Check.same(ifTrue.dtype(), ifFalse.dtype(), "where");
            shape = Check.inferred(shape, ifTrue.shape(), "where");
            dtype = Check.inferred(dtype, ifTrue.dtype(), "where");
        }
        public List<Node> inputs() { return List.of(condition, ifTrue, ifFalse); }
        public boolean equals(Object o) { return o instanceof Where w && condition == w.condition && ifTrue == w.ifTrue && ifFalse == w.ifFalse; }
        public int hashCode() { return Check.hash("where", condition, ifTrue, ifFalse); }
        public String toString() { return Check.describe(this, "where"); }
    }

    /// `x` converted to `dtype`: float to int truncates toward zero and saturates, anything to bool is `x != 0`.
    record Cast(Node x, Shape shape, DType dtype) implements Node {
        public Cast(Node x, DType dtype) { this(x, null, dtype); }
        public Cast { shape = Check.inferred(shape, x.shape(), "cast"); }
        public List<Node> inputs() { return List.of(x); }
        public boolean equals(Object o) { return o instanceof Cast c && dtype == c.dtype && x == c.x; }
        public int hashCode() { return Check.hash(dtype, x); }
        public String toString() { return Check.describe(this, "cast"); }
    }

    /// `x` itself, an `i32` tensor of indices, once each element is known to lie within `bounds`;
    /// else the first that does not (row-major) is the user op's error ([IndexOutOfRange]). Compiled
    /// programs run these checks before their first kernel, so a failed one has written nothing.
    record IndexCheck(Node x, IndexBounds bounds, Shape shape, DType dtype) implements Node {
        public IndexCheck(Node x, IndexBounds bounds) { this(x, bounds, null, null); }
        public IndexCheck {
            Check.that(x.dtype() == DType.I32, "an index check needs i32 indices, not %s", x.dtype());
            Check.that(bounds != null, "an index check needs its bounds");
            shape = Check.inferred(shape, x.shape(), "checkindex");
            dtype = Check.inferred(dtype, x.dtype(), "checkindex");
        }
        public List<Node> inputs() { return List.of(x); }
        public boolean equals(Object o) { return o instanceof IndexCheck c && bounds.equals(c.bounds) && x == c.x; }
        public int hashCode() { return Check.hash(bounds, x); }
        public String toString() { return Check.describe(this, "checkindex " + bounds); }
    }

    /// `op` over `axes` (ascending, distinct), keeping each reduced axis with size 1.
    record Reduce(ReduceOp op, Node x, List<Integer> axes, Shape shape, DType dtype) implements Node {
        public Reduce(ReduceOp op, Node x, List<Integer> axes) { this(op, x, axes, null, null); }
        public Reduce {
            axes = List.copyOf(axes);
            Check.axes(axes, x.shape());
            Check.that(!op.isArg() || axes.size() == 1, "%s reduces exactly one axis, not %s", op, axes);
            Check.that(x.dtype() != DType.BOOL, "%s needs a numeric operand, not bool", op);
            shape = Check.inferred(shape, x.shape().reduced(axes), op);
            dtype = Check.inferred(dtype, op.isArg() ? DType.I32 : x.dtype(), op);
        }
        public List<Node> inputs() { return List.of(x); }
        public boolean equals(Object o) { return o instanceof Reduce r && op == r.op && axes.equals(r.axes) && x == r.x; }
        public int hashCode() { return Check.hash(op, axes, x); }
        public String toString() { return Check.describe(this, op + " axes=" + axes); }
    }

    /// Batched `a · b` over `[batch…, M, K] · [batch…, K, N]` with equal batch dimensions. A transpose
    /// flag means that operand is stored as `[batch…, K, M]` (or `[batch…, N, K]`) and read transposed.
    record MatMul(Node a, Node b, boolean transposeA, boolean transposeB, Shape shape, DType dtype) implements Node {
        public MatMul(Node a, Node b, boolean transposeA, boolean transposeB) { this(a, b, transposeA, transposeB, null, null); }
        public MatMul {
            Check.matmul(a, b, transposeA, transposeB);
            int rank = a.shape().rank();
            int m = a.shape().dim(rank - (transposeA ? 1 : 2)), n = b.shape().dim(rank - (transposeB ? 2 : 1));
            shape = Check.inferred(shape, a.shape().with(rank - 2, m).with(rank - 1, n), "matmul");
            dtype = Check.inferred(dtype, a.dtype(), "matmul");
        }
        public List<Node> inputs() { return List.of(a, b); }
        public boolean equals(Object o) { return o instanceof MatMul m && a == m.a && b == m.b && transposeA == m.transposeA && transposeB == m.transposeB; }
        public int hashCode() { return Check.hash(transposeA, transposeB, a, b); }
        public String toString() { return Check.describe(this, "matmul"); }
    }

    /// `x`'s elements in row-major order, laid out as `shape` (same element count). A view.
    record Reshape(Node x, Shape shape, DType dtype) implements Node {
        public Reshape(Node x, Shape shape) { this(x, shape, null); }
        public Reshape {
            Check.that(x.shape().size() == shape.size(), "reshape from %s to %s changes the element count", x.shape(), shape);
            dtype = Check.inferred(dtype, x.dtype(), "reshape");
        }
        public List<Node> inputs() { return List.of(x); }
        public boolean equals(Object o) { return o instanceof Reshape r && shape.equals(r.shape) && x == r.x; }
        public int hashCode() { return Check.hash(shape, x); }
        public String toString() { return Check.describe(this, "reshape"); }
    }

    /// Output axis `i` is input axis `order.get(i)`. A view.
    record Permute(Node x, List<Integer> order, Shape shape, DType dtype) implements Node {
        public Permute(Node x, List<Integer> order) { this(x, order, null, null); }
        public Permute {
            order = List.copyOf(order);
            Check.permutation(order, x.shape().rank());
            shape = Check.inferred(shape, new Shape(order.stream().map(x.shape().dims()::get).toList()), "permute");
            dtype = Check.inferred(dtype, x.dtype(), "permute");
        }
        public List<Node> inputs() { return List.of(x); }
        public boolean equals(Object o) { return o instanceof Permute p && order.equals(p.order) && x == p.x; }
        public int hashCode() { return Check.hash(order, x); }
        public String toString() { return Check.describe(this, "permute order=" + order); }
    }

    /// `x` repeated along its size-1 axes to `shape` (same rank). A view with stride 0.
    record Expand(Node x, Shape shape, DType dtype) implements Node {
        public Expand(Node x, Shape shape) { this(x, shape, null); }
        public Expand {
            Check.expandable(x.shape(), shape);
            dtype = Check.inferred(dtype, x.dtype(), "expand");
        }
        public List<Node> inputs() { return List.of(x); }
        public boolean equals(Object o) { return o instanceof Expand e && shape.equals(e.shape) && x == e.x; }
        public int hashCode() { return Check.hash(shape, x); }
        public String toString() { return Check.describe(this, "expand"); }
    }

    /// Elements `start, start+step, …` (below `stop`) of `axis`; `0 ≤ start ≤ stop ≤ dim`, `step ≥ 1`. A view.
    record Slice(Node x, int axis, int start, int stop, int step, Shape shape, DType dtype) implements Node {
        public Slice(Node x, int axis, int start, int stop, int step) { this(x, axis, start, stop, step, null, null); }
        public Slice {
            Check.axis(axis, x.shape());
            Check.that(0 <= start && start <= stop && stop <= x.shape().dim(axis) && step >= 1, "slice %d:%d:%d out of range for axis %d of %s", start, stop, step, axis, x.shape());
            shape = Check.inferred(shape, x.shape().with(axis, stop == start ? 0 : (stop - start - 1) / step + 1), "slice"); // ⌈(stop-start)/step⌉, no int overflow
            dtype = Check.inferred(dtype, x.dtype(), "slice");
        }
        public List<Node> inputs() { return List.of(x); }
        public boolean equals(Object o) { return o instanceof Slice s && axis == s.axis && start == s.start && stop == s.stop && step == s.step && x == s.x; }
        public int hashCode() { return Check.hash(axis, start, stop, step, x); }
        public String toString() { return Check.describe(this, "slice axis=%d start=%d stop=%d step=%d".formatted(axis, start, stop, step)); }
    }

    /// `parts` joined along `axis`; all other dimensions and the dtype agree.
    record Concat(List<Node> parts, int axis, Shape shape, DType dtype) implements Node {
        public Concat(List<Node> parts, int axis) { this(parts, axis, null, null); }
        public Concat {
            parts = List.copyOf(parts);
            Check.concat(parts, axis);
            shape = Check.inferred(shape, parts.getFirst().shape().with(axis, parts.stream().mapToInt(p -> p.shape().dim(axis)).sum()), "concat");
            dtype = Check.inferred(dtype, parts.getFirst().dtype(), "concat");
        }
        public List<Node> inputs() { return parts; }
        public boolean equals(Object o) { return o instanceof Concat c && axis == c.axis && Check.identical(parts, c.parts); }
        public int hashCode() { return Check.hash(axis, Check.identities(parts)); }
        public String toString() { return Check.describe(this, "concat axis=" + axis); }
    }

    /// `torch.gather`: element `p` is `x` at `p` with axis `axis` replaced by `index[p]`. The index
    /// is `i32` of x's rank and no larger than `x` on the other axes; the result has its shape. Each
    /// index lies in `0..x.dim(axis)-1`: the API puts an [IndexCheck] on it.
    record Gather(Node x, int axis, Node index, Shape shape, DType dtype) implements Node {
        public Gather(Node x, int axis, Node index) { this(x, axis, index, null, null); }
        public Gather {
            Check.axis(axis, x.shape());
            Check.indexed("gather", x.shape(), axis, index);
            shape = Check.inferred(shape, index.shape(), "gather");
            dtype = Check.inferred(dtype, x.dtype(), "gather");
        }
        public List<Node> inputs() { return List.of(x, index); }
        public boolean equals(Object o) { return o instanceof Gather g && axis == g.axis && x == g.x && index == g.index; }
        public int hashCode() { return Check.hash("gather", axis, x, index); }
        public String toString() { return Check.describe(this, "gather axis=" + axis); }
    }

    /// `torch.scatter` (`add` false) and `scatter_add` (`add` true), functional: `x` with each element
    /// `p` of `src` written to (or added to) `x` at `p` with axis `axis` replaced by `index[p]`, in
    /// row-major order of `p`, so a repeated index keeps the last write or sums in that order, each
    /// sum rounded to the dtype. `index` is `i32` of `src`'s shape, no larger than `x` off the axis,
    /// and checked like [Gather]'s.
    record Scatter(Node x, int axis, Node index, Node src, boolean add, Shape shape, DType dtype) implements Node {
        public Scatter(Node x, int axis, Node index, Node src, boolean add) { this(x, axis, index, src, add, null, null); }
        public Scatter {
            Check.axis(axis, x.shape());
            Check.indexed("scatter", x.shape(), axis, index);
            Check.same(index.shape(), src.shape(), "scatter");
            Check.same(x.dtype(), src.dtype(), "scatter");
            Check.that(!add || x.dtype() != DType.BOOL, "scatter add needs a numeric dtype, not bool");
            shape = Check.inferred(shape, x.shape(), "scatter");
            dtype = Check.inferred(dtype, x.dtype(), "scatter");
        }
        public List<Node> inputs() { return List.of(x, index, src); }
        public boolean equals(Object o) { return o instanceof Scatter s && axis == s.axis && add == s.add && x == s.x && index == s.index && src == s.src; }
        public int hashCode() { return Check.hash("scatter", axis, add, x, index, src); }
        public String toString() { return Check.describe(this, "scatter axis=" + axis + (add ? " add" : "")); }
    }

    /// `x` with the slice `start ≤ i < start + value.dim(axis)` of `axis` replaced by `value`
    /// (equal sizes elsewhere). `start` is a 0-d `i32`, so the position may change from call to call
    /// without a new graph; the API checks it lies in `0..x.dim(axis) - value.dim(axis)`.
    record SliceUpdate(Node x, int axis, Node start, Node value, Shape shape, DType dtype) implements Node {
        public SliceUpdate(Node x, int axis, Node start, Node value) { this(x, axis, start, value, null, null); }
        public SliceUpdate {
            Check.axis(axis, x.shape());
            Check.that(start.dtype() == DType.I32 && start.shape().rank() == 0, "a slice update needs a 0-d i32 start, not %s%s", start.dtype(), start.shape());
            Check.that(value.shape().rank() == x.shape().rank() && value.shape().with(axis, 0).equals(x.shape().with(axis, 0)) && value.shape().dim(axis) <= x.shape().dim(axis),
                    "a slice update of %s along axis %d cannot take a value of %s", x.shape(), axis, value.shape());
            Check.same(x.dtype(), value.dtype(), "sliceupdate");
            shape = Check.inferred(shape, x.shape(), "sliceupdate");
            dtype = Check.inferred(dtype, x.dtype(), "sliceupdate");
        }
        public List<Node> inputs() { return List.of(x, start, value); }
        public boolean equals(Object o) { return o instanceof SliceUpdate u && axis == u.axis && x == u.x && start == u.start && value == u.value; }
        public int hashCode() { return Check.hash("sliceupdate", axis, x, start, value); }
        public String toString() { return Check.describe(this, "sliceupdate axis=" + axis); }
    }

    /// The `i32` indices that sort each line of `x` along `axis`, stably (`torch.argsort(stable=True)`):
    /// equal values keep their index order, in either direction; NaN sorts above every number and
    /// `-0` equals `+0`.
    record ArgSort(Node x, int axis, boolean descending, Shape shape, DType dtype) implements Node {
        public ArgSort(Node x, int axis, boolean descending) { this(x, axis, descending, null, null); }
        public ArgSort {
            Check.axis(axis, x.shape());
            Check.that(x.dtype() != DType.BOOL, "argsort needs a numeric operand, not bool");
            shape = Check.inferred(shape, x.shape(), "argsort");
            dtype = Check.inferred(dtype, DType.I32, "argsort");
        }
        public List<Node> inputs() { return List.of(x); }
        public boolean equals(Object o) { return o instanceof ArgSort s && axis == s.axis && descending == s.descending && x == s.x; }
        public int hashCode() { return Check.hash("argsort", axis, descending, x); }
        public String toString() { return Check.describe(this, "argsort axis=" + axis + (descending ? " descending" : "")); }
    }

    /// Part `part` of attention `softmax(q·kᵀ·scale + mask)·v`, computed by a fused kernel that
    /// streams over key blocks and never writes the scores. Operands: q `[…, H, T, d]`, k
    /// `[…, Hkv, S, d]` and v `[…, Hkv, S, dv]` (Hkv divides H: grouped-query heads share k and v);
    /// for a gradient part also the output, its logsumexp and the output's gradient; last the mask,
    /// if any: bool (true keeps a score) or added, of the scores' rank and broadcastable to them.
    /// `causal` masks key `s > t` for query `t` (top-left aligned). [AttentionMath] has the typing
    /// rule and the meaning in the other nodes.
    record Attention(AttentionPart part, List<Node> operands, boolean causal, double scale, Shape shape, DType dtype) implements Node {
        public Attention(AttentionPart part, List<Node> operands, boolean causal, double scale) { this(part, operands, causal, scale, null, null); }
        public Attention {
            operands = List.copyOf(operands);
            shape = Check.inferred(shape, AttentionMath.check(part, operands, scale), part);
            dtype = Check.inferred(dtype, operands.getFirst().dtype(), part);
        }
        public List<Node> inputs() { return operands; }
        public boolean equals(Object o) { return o instanceof Attention a && part == a.part && causal == a.causal && Double.compare(scale, a.scale) == 0 && Check.identical(operands, a.operands); }
        public int hashCode() { return Check.hash(part, causal, scale, Check.identities(operands)); }
        public String toString() { return Check.describe(this, "attention " + part); }
    }
}
