// SPDX-License-Identifier: Apache-2.0
package dev.smelt.kernel;

import dev.smelt.ir.BinaryOp;
import dev.smelt.ir.DType;
import dev.smelt.ir.Distribution;
import dev.smelt.ir.UnaryOp;
import java.util.List;

/// A scalar expression evaluated at one point of a kernel's iteration space. Its meaning is a
/// tree's: a value used twice inside one kernel is computed twice, unless it is a [Shared] value
/// (computed once per point and kept in a local), a [Let]'s variable, a [Load] of a buffer another
/// kernel wrote, or, when it is what a reduction folds, that reduction's [Element]. In memory it is a DAG: lowering
/// builds each value once and every use points at it, so an expression reused at each of `k`
/// levels unfolds to a tree of `2^k` nodes. Every walk over expressions therefore visits each
/// distinct node (by identity) once, and equality and hashing, though structural, are linear in
/// the DAG ([Structure]).
public sealed interface Expr {
    DType dtype();

    /// Calls `visit` on `expr` and on each distinct node below it (by identity) once, parents first.
    static void walk(Expr expr, java.util.function.Consumer<Expr> visit) { walk(List.of(expr), visit); }

    /// [#walk] over several roots, each node once in all.
    static void walk(List<Expr> exprs, java.util.function.Consumer<Expr> visit) {
        for (Expr node : nodes(exprs)) visit.accept(node);
    }

    /// The nodes [#walk] visits, in its order, to loop over: a walk's visitor is a lambda, and each
    /// lambda costs a fresh JVM's first compile a bootstrap (~0.3 ms).
    static List<Expr> nodes(List<Expr> exprs) {
        var nodes = new java.util.ArrayList<Expr>();
        var seen = visited();
        for (Expr expr : exprs) collect(expr, nodes, seen);
        return nodes;
    }

    private static void collect(Expr expr, List<Expr> nodes, java.util.Set<Expr> seen) {
        if (!seen.add(expr)) return;
        nodes.add(expr);
        for (Expr operand : operands(expr)) collect(operand, nodes, seen);
    }

    /// A set of nodes by identity.
    static java.util.Set<Expr> visited() { return java.util.Collections.newSetFromMap(new java.util.IdentityHashMap<>(64)); }

    /// The direct operands of `expr`, in order; none for a leaf.
    static List<Expr> operands(Expr expr) {
        return switch (expr) {
            case Load _, Constant _, Index _, Accumulated _, Element _, Var _ -> List.of();
            case Shared shared -> List.of(shared.value());
            case Fma fma -> List.of(fma.a(), fma.b(), fma.c());
            case Bits bits -> List.of(bits.x());
            case Bitwise bitwise -> List.of(bitwise.left(), bitwise.right());
            case Let let -> List.of(let.value(), let.body());
            case Fallback fallback -> List.of(fallback.x(), fallback.inRange(), fallback.value());
            case Unary unary -> List.of(unary.x());
            case Binary binary -> List.of(binary.left(), binary.right());
            case Where where -> List.of(where.condition(), where.ifTrue(), where.ifFalse());
            case Cast cast -> List.of(cast.x());
            case Random random -> List.of(random.position(), random.keyHigh(), random.keyLow());
            case Gather gather -> List.of(gather.index());
        };
    }

    /// `expr` with each direct operand replaced by `rewrite(operand)`; leaves unchanged.
    static Expr mapOperands(Expr expr, java.util.function.UnaryOperator<Expr> rewrite) {
        return switch (expr) {
            case Load _, Constant _, Index _, Accumulated _, Element _, Var _ -> expr;
            case Fma fma -> new Fma(rewrite.apply(fma.a()), rewrite.apply(fma.b()), rewrite.apply(fma.c()));
            case Bits bits -> new Bits(rewrite.apply(bits.x()), bits.dtype());
            case Bitwise bitwise -> new Bitwise(bitwise.op(), rewrite.apply(bitwise.left()), rewrite.apply(bitwise.right()));
            case Let let -> new Let(let.variable(), rewrite.apply(let.value()), rewrite.apply(let.body()));
            case Fallback fallback -> new Fallback(fallback.op(), rewrite.apply(fallback.x()), rewrite.apply(fallback.inRange()), rewrite.apply(fallback.value()));
            case Unary unary -> new Unary(unary.op(), rewrite.apply(unary.x()));
            case Binary binary -> new Binary(binary.op(), rewrite.apply(binary.left()), rewrite.apply(binary.right()));
            case Where where -> new Where(rewrite.apply(where.condition()), rewrite.apply(where.ifTrue()), rewrite.apply(where.ifFalse()));
            case Cast cast -> new Cast(rewrite.apply(cast.x()), cast.dtype());
            case Shared shared -> new Shared(shared.id(), rewrite.apply(shared.value()));
            case Random random -> new Random(random.distribution(), rewrite.apply(random.position()), rewrite.apply(random.keyHigh()), rewrite.apply(random.keyLow()), random.dtype());
            case Gather gather -> new Gather(gather.input(), rewrite.apply(gather.index()), gather.stride(), gather.limit(), gather.dtype());
        };
    }

    /// The distinct [Shared] values in `exprs`, each after the shared values it reads: the order in
    /// which a loop body computes them.
    static List<Shared> sharedValues(List<Expr> exprs) {
        var found = new java.util.LinkedHashMap<Integer, Shared>();
        var seen = visited();
        for (Expr expr : exprs) collectShared(expr, found, seen);
        return List.copyOf(found.values());
    }

    private static void collectShared(Expr expr, java.util.Map<Integer, Shared> found, java.util.Set<Expr> seen) {
        if (!seen.add(expr) || expr instanceof Shared shared && found.containsKey(shared.id())) return;
        for (Expr operand : operands(expr)) collectShared(operand, found, seen);
        if (expr instanceof Shared shared) found.put(shared.id(), shared);
    }

    /// Whether `expr` is a leaf: a load, a constant, an index, a finished or stored reduction value,
    /// or a [Let]'s variable.
    static boolean isLeaf(Expr expr) {
        return expr instanceof Load || expr instanceof Constant || expr instanceof Index || expr instanceof Accumulated || expr instanceof Element
                || expr instanceof Var;
    }

    /// Input buffer `input` of the kernel, read through its [IndexMap] at the current point.
    record Load(int input, DType dtype) implements Expr {}

    /// A constant, already rounded to `dtype`.
    record Constant(double value, DType dtype) implements Expr {
        public Constant { value = dtype.round(value); }
    }

    /// The current index along axis `axis` of the iteration space (the graph's iota).
    record Index(int axis, DType dtype) implements Expr {}

    /// The dtype is stored, not derived on each call: deriving it would walk down the operands.
    record Unary(UnaryOp op, Expr x, DType dtype) implements Expr {
        public Unary(UnaryOp op, Expr x) { this(op, x, x.dtype()); }
        public Unary {
            if (dtype != x.dtype()) throw new IllegalArgumentException(op + " of " + x.dtype() + " is not " + dtype);
        }
        public boolean equals(Object o) { return o instanceof Expr e && Structure.equal(this, e); }
        public int hashCode() { return Structure.hash(this); }
        public String toString() { return KernelPrinter.expression(this, 2000); }
    }

    /// Comparisons give `bool`; operands have equal dtypes.
    record Binary(BinaryOp op, Expr left, Expr right, DType dtype) implements Expr {
        public Binary(BinaryOp op, Expr left, Expr right) { this(op, left, right, op.isComparison() ? DType.BOOL : left.dtype()); }
        public Binary {
            if (left.dtype() != right.dtype())
                throw new IllegalArgumentException(op + ": operand dtypes differ, " + left.dtype() + " vs " + right.dtype());
            if (dtype != (op.isComparison() ? DType.BOOL : left.dtype())) throw new IllegalArgumentException(op + " of " + left.dtype() + " is not " + dtype);
        }
        public boolean equals(Object o) { return o instanceof Expr e && Structure.equal(this, e); }
        public int hashCode() { return Structure.hash(this); }
        public String toString() { return KernelPrinter.expression(this, 2000); }
    }

    record Where(Expr condition, Expr ifTrue, Expr ifFalse, DType dtype) implements Expr {
        public Where(Expr condition, Expr ifTrue, Expr ifFalse) { this(condition, ifTrue, ifFalse, ifTrue.dtype()); }
        public Where {
            if (dtype != ifTrue.dtype()) throw new IllegalArgumentException("where of " + ifTrue.dtype() + " is not " + dtype);
        }
        public boolean equals(Object o) { return o instanceof Expr e && Structure.equal(this, e); }
        public int hashCode() { return Structure.hash(this); }
        public String toString() { return KernelPrinter.expression(this, 2000); }
    }

    record Cast(Expr x, DType dtype) implements Expr {
        public boolean equals(Object o) { return o instanceof Expr e && Structure.equal(this, e); }
        public int hashCode() { return Structure.hash(this); }
        public String toString() { return KernelPrinter.expression(this, 2000); }
    }

    /// Element `position` (an `i32`, row-major in the random node's shape) of a graph `Random` node whose
    /// key's halves are `keyHigh` and `keyLow`: `distribution.sample(key, position, dtype)`.
    record Random(Distribution distribution, Expr position, Expr keyHigh, Expr keyLow, DType dtype) implements Expr {
        public Random {
            if (position.dtype() != DType.I32 || keyHigh.dtype() != DType.I32 || keyLow.dtype() != DType.I32 || !dtype.isFloating())
                throw new IllegalArgumentException(distribution + " needs i32 position and key and a float dtype");
        }
        public boolean equals(Object o) { return o instanceof Expr e && Structure.equal(this, e); }
        public int hashCode() { return Structure.hash(this); }
        public String toString() { return KernelPrinter.expression(this, 2000); }
    }

    /// Input buffer `input` read through its [IndexMap] at the current point and then `index · stride`
    /// further: a gather, whose position along one axis is data. `index` is an `i32` in
    /// `0..limit-1`, checked before the kernel runs (`Node.IndexCheck`); the map reads index 0 there.
    /// (A limit of 0 leaves no index: the kernel's space is empty.)
    record Gather(int input, Expr index, int stride, int limit, DType dtype) implements Expr {
        public Gather {
            if (index.dtype() != DType.I32 || limit < 0) throw new IllegalArgumentException("a gather needs an i32 index and a limit of at least 0");
        }
        public boolean equals(Object o) { return o instanceof Expr e && Structure.equal(this, e); }
        public int hashCode() { return Structure.hash(this); }
        public String toString() { return KernelPrinter.expression(this, 2000); }
    }

    /// The finished value of reduction `reduction` for the current row (see [Kernel]).
    record Accumulated(int reduction, DType dtype) implements Expr {}

    /// The value reduction `reduction` folds at the current point: its `value` expression evaluated
    /// here, not the accumulated result. Generated code stores each point's value while it folds
    /// the row and reads it back, so softmax's `div(e1, r1)` computes `exp` once per point.
    record Element(int reduction, DType dtype) implements Expr {}

    /// `value`, computed once per point of a loop and kept in a local: every occurrence of one `id`
    /// in a loop's expressions carries the same `value`, and generated code computes it before the
    /// loop body's stores and reads the local at each occurrence. The cost model chooses this over
    /// recomputation when the value's arithmetic costs more than the register it occupies.
    record Shared(int id, Expr value) implements Expr {
        public Shared {
            if (id < 0) throw new IllegalArgumentException("shared value id " + id);
        }
        public DType dtype() { return value.dtype(); }
        public boolean equals(Object o) { return o instanceof Expr e && Structure.equal(this, e); }
        public int hashCode() { return Structure.hash(this); }
        public String toString() { return KernelPrinter.expression(this, 2000); }
    }

    // The forms below are what [Transcendentals] writes a transcendental as: the steps of its
    // polynomial, which the emitters and the interpreter then compute alike. Lowering never makes them.

    /// `a·b + c` rounded once (`Math.fma`), on floats of one dtype.
    record Fma(Expr a, Expr b, Expr c, DType dtype) implements Expr {
        public Fma(Expr a, Expr b, Expr c) { this(a, b, c, a.dtype()); }
        public Fma {
            if (!dtype.isFloating() || a.dtype() != dtype || b.dtype() != dtype || c.dtype() != dtype)
                throw new IllegalArgumentException("fma of " + a.dtype() + ", " + b.dtype() + ", " + c.dtype() + " is not " + dtype);
        }
        public boolean equals(Object o) { return o instanceof Expr e && Structure.equal(this, e); }
        public int hashCode() { return Structure.hash(this); }
        public String toString() { return KernelPrinter.expression(this, 2000); }
    }

    /// The bits of an `f32` read as an `i32` (`Float.floatToRawIntBits`), or of an `i32` as an `f32`.
    record Bits(Expr x, DType dtype) implements Expr {
        public Bits {
            if (!(x.dtype() == DType.F32 && dtype == DType.I32 || x.dtype() == DType.I32 && dtype == DType.F32))
                throw new IllegalArgumentException("bits of " + x.dtype() + " as " + dtype + ": only f32 and i32 swap bits");
        }
        public boolean equals(Object o) { return o instanceof Expr e && Structure.equal(this, e); }
        public int hashCode() { return Structure.hash(this); }
        public String toString() { return KernelPrinter.expression(this, 2000); }
    }

    /// A bitwise operation or shift of `i32`s, as Java's `&`, `|`, `^`, `<<` and `>>>`.
    record Bitwise(BitOp op, Expr left, Expr right) implements Expr {
        /// The operators; `SHR` shifts in zeros.
        public enum BitOp { AND, OR, XOR, SHL, SHR }

        public Bitwise {
            if (left.dtype() != DType.I32 || right.dtype() != DType.I32) throw new IllegalArgumentException(op + " of " + left.dtype() + " and " + right.dtype());
        }
        public DType dtype() { return DType.I32; }
        public boolean equals(Object o) { return o instanceof Expr e && Structure.equal(this, e); }
        public int hashCode() { return Structure.hash(this); }
        public String toString() { return KernelPrinter.expression(this, 2000); }
    }

    /// `body`, in which `variable` stands for `value`, computed once: how an expression uses one
    /// value several times (the tree a DAG unfolds to computes it at each use). Generated code keeps
    /// `value` in a local for the body's extent.
    record Let(Var variable, Expr value, Expr body) implements Expr {
        public Let {
            if (variable.dtype() != value.dtype()) throw new IllegalArgumentException("v" + variable.id() + " of " + variable.dtype() + " bound to " + value.dtype());
        }
        public DType dtype() { return body.dtype(); }
        public boolean equals(Object o) { return o instanceof Expr e && Structure.equal(this, e); }
        public int hashCode() { return Structure.hash(this); }
        public String toString() { return KernelPrinter.expression(this, 2000); }
    }

    /// The value a [Let] binds; ids are unique within a kernel.
    record Var(int id, DType dtype) implements Expr {
        // the record's own, written out: generated ones are bootstrapped on first use, in a fresh JVM's first compile
        public boolean equals(Object o) { return o instanceof Var v && id == v.id && dtype == v.dtype; }
        public int hashCode() { return 31 * id + dtype.hashCode(); }
    }

    /// `value` where `inRange` holds, else `op`'s definition of `x` (in double, rounded once: the
    /// interpreter's): the arguments past a polynomial's range, and NaN. Vector code tests whether
    /// every lane is in range and otherwise computes the others lane by lane, so the definition
    /// costs only where it is needed. A range test that is the constant true ([#total]: `exp`'s,
    /// `log`'s and `tanh`'s) has nothing to fall back to: the node then only names `op`'s
    /// implementation, which the scalar variant makes a method of.
    record Fallback(UnaryOp op, Expr x, Expr inRange, Expr value) implements Expr {
        public Fallback {
            if (inRange.dtype() != DType.BOOL || x.dtype() != value.dtype()) throw new IllegalArgumentException("fallback needs a bool range test and x of the value's dtype");
        }
        /// An implementation of `op` for every argument.
        public static Fallback total(UnaryOp op, Expr x, Expr value) { return new Fallback(op, x, new Constant(1, DType.BOOL), value); }
        /// Whether every argument is in range.
        public boolean total() { return inRange instanceof Constant always && always.value() != 0; }
        public DType dtype() { return value.dtype(); }
        public boolean equals(Object o) { return o instanceof Expr e && Structure.equal(this, e); }
        public int hashCode() { return Structure.hash(this); }
        public String toString() { return KernelPrinter.expression(this, 2000); }
    }
}
