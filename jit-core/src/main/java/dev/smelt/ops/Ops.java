// SPDX-License-Identifier: Apache-2.0
package dev.smelt.ops;

import dev.smelt.ir.BinaryOp;
import dev.smelt.ir.DType;
import dev.smelt.ir.Node;
import dev.smelt.ir.Shape;
import dev.smelt.ir.SmeltException;
import dev.smelt.ir.UnaryOp;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/// Elementwise operations, `where`, `concat` and `matmul`: argument checks, promotion and
/// broadcasting, then the graph nodes (recorded or evaluated by [Dispatch]).
public final class Ops {
    private Ops() {}

    public static Value unary(UnaryOp op, Value x) {
        return Dispatch.apply(op.toString(), List.of(x), (b, in) -> b.unary(op, operandFor(b, op, in.getFirst())));
    }

    // Integers keep integer-defined ops (neg, abs, …); other ops, and bool operands, convert first.
    private static Node operandFor(Builder b, UnaryOp op, Node x) {
        if (x.dtype().isFloating()) return x;
        return op.acceptsIntegers() ? b.cast(x, DType.I32) : b.cast(x, DType.F32);
    }

    public static Value cast(Value x, DType dtype) {
        if (dtype == null) throw SmeltException.of("to", "dtype is null");
        return Dispatch.apply("to", List.of(x), (b, in) -> b.cast(in.getFirst(), dtype));
    }

    public static Value binary(BinaryOp op, Value a, Value other) {
        nonNull(op.toString(), a, other);
        return Dispatch.apply(op.toString(), List.of(a, other), (b, in) -> {
            Shape shape = Builder.broadcastShapes(op.toString(), in.get(0).shape(), in.get(1).shape());
            DType dtype = computeType(op, DType.promote(in.get(0).dtype(), in.get(1).dtype()));
            return b.binary(op, b.broadcast(b.cast(in.get(0), dtype), shape), b.broadcast(b.cast(in.get(1), dtype), shape));
        });
    }

    public static Value binary(BinaryOp op, Value a, Number scalar) {
        nonNull(op.toString(), a, scalar);
        return Dispatch.apply(op.toString(), List.of(a), (b, in) -> {
            Node x = in.getFirst();
            DType dtype = computeType(op, DType.promoteWithScalar(x.dtype(), kind(op.toString(), scalar)));
            double exponent = value(op.toString(), scalar, dtype);
            // PyTorch refuses these too; a tensor of exponents gives its integer results (2⁻¹ = 0)
            if (op == BinaryOp.POW && dtype == DType.I32 && exponent < 0)
                throw SmeltException.of("pow", "integers to negative integer powers are not allowed: %s%s to the power %s; convert to a float first (to(DType.F32))", x.dtype(), x.shape(), scalar);
            return b.binary(op, b.cast(x, dtype), b.constant(exponent, x.shape(), dtype));
        });
    }

    /// The dtype an op computes in, given its promoted operand dtype: arithmetic needs at least
    /// `i32`, and true division a float.
    private static DType computeType(BinaryOp op, DType promoted) {
        if (op.isComparison()) return promoted;
        if (op == BinaryOp.DIV && !promoted.isFloating()) return DType.F32;
        return promoted == DType.BOOL ? DType.I32 : promoted;
    }

    public static Value where(Value condition, Value a, Value other) {
        nonNull("where", condition, a, other);
        return Dispatch.apply("where", List.of(condition, a, other), (b, in) -> where(b, in.get(0), in.get(1), in.get(2)));
    }

    public static Value where(Value condition, Value a, Number other) {
        nonNull("where", condition, a, other);
        return Dispatch.apply("where", List.of(condition, a), (b, in) -> {
            DType dtype = DType.promoteWithScalar(in.get(1).dtype(), kind("where", other));
            return where(b, in.get(0), in.get(1), b.constant(value("where", other, dtype), Shape.SCALAR, dtype));
        });
    }

    public static Value where(Value condition, Number a, Value other) {
        nonNull("where", condition, a, other);
        return Dispatch.apply("where", List.of(condition, other), (b, in) -> {
            DType dtype = DType.promoteWithScalar(in.get(1).dtype(), kind("where", a));
            return where(b, in.get(0), b.constant(value("where", a, dtype), Shape.SCALAR, dtype), in.get(1));
        });
    }

    public static Node where(Builder b, Node condition, Node x, Node y) {
        if (condition.dtype() != DType.BOOL)
            throw SmeltException.of("where", "condition must be bool, not %s; compare first (for example x.gt(0))", condition.dtype());
        Shape shape = Builder.broadcastShapes("where", Builder.broadcastShapes("where", condition.shape(), x.shape()), y.shape());
        DType dtype = DType.promote(x.dtype(), y.dtype());
        return b.where(b.broadcast(condition, shape), b.broadcast(b.cast(x, dtype), shape), b.broadcast(b.cast(y, dtype), shape));
    }

    public static Value concat(Value[] tensors, int axis) {
        return concat(tensors == null ? null : Arrays.asList(tensors), axis); // List.of would throw on a null element
    }

    public static Value concat(List<Value> tensors, int axis) {
        if (tensors == null) throw SmeltException.of("concat", "the list of tensors is null");
        if (tensors.isEmpty()) throw SmeltException.of("concat", "needs at least one tensor");
        nonNull("concat", tensors.toArray());
        return Dispatch.apply("concat", tensors, (b, in) -> concat(b, in, axis));
    }

    private static Node concat(Builder b, List<Node> in, int axis) {
        Shape first = in.getFirst().shape();
        if (first.rank() == 0) throw SmeltException.of("concat", "cannot join 0-d tensors; unsqueeze them first");
        int normalized = Builder.axis("concat", axis, first.rank());
        DType dtype = in.stream().map(Node::dtype).reduce(DType.BOOL, DType::promote);
        var parts = new ArrayList<Node>();
        long length = 0, size = 0; // sums of ints: they may pass an int, never a long
        for (Node part : in) {
            if (part.shape().rank() != first.rank() || !part.shape().with(normalized, 0).equals(first.with(normalized, 0)))
                throw SmeltException.of("concat", "shapes %s and %s differ outside axis %d", first, part.shape(), axis);
            parts.add(b.cast(part, dtype));
            length += part.shape().dim(normalized);
            size += part.shape().count();
        }
        if (length > Value.MAX_SIZE || size > Value.MAX_SIZE)
            throw SmeltException.of("concat", "joining %s along axis %d gives %d elements, %d along the axis; a tensor holds at most Tensor.MAX_SIZE = %d",
                    in.stream().map(Node::shape).toList(), axis, size, length, Value.MAX_SIZE);
        return b.concat(parts, normalized);
    }

    public static Value matmul(Value a, Value other) {
        nonNull("matmul", a, other);
        return Dispatch.apply("matmul", List.of(a, other), (b, in) -> MatMuls.build(b, in.get(0), in.get(1)));
    }

    public static void nonNull(String op, Object... arguments) {
        for (int i = 0; i < arguments.length; i++)
            if (arguments[i] == null) throw SmeltException.of(op, "argument %d is null", i);
    }

    /// The dtype category of a Java scalar: integral boxes are `i32`, the rest `f32`.
    private static DType kind(String op, Number scalar) {
        return scalar instanceof Integer || scalar instanceof Long || scalar instanceof Short
                || scalar instanceof Byte || scalar instanceof BigInteger ? DType.I32 : DType.F32;
    }

    private static double value(String op, Number scalar, DType dtype) {
        if (dtype == DType.I32 && (scalar.longValue() < Integer.MIN_VALUE || scalar.longValue() > Integer.MAX_VALUE || scalar instanceof BigInteger big && big.bitLength() > 31))
            throw SmeltException.of(op, "scalar %s does not fit i32", scalar);
        return scalar instanceof BigDecimal decimal ? decimal.doubleValue() : scalar.doubleValue();
    }
}
