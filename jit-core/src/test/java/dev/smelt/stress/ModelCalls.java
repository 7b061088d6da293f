// SPDX-License-Identifier: Apache-2.0
package dev.smelt.stress;

import dev.smelt.ir.DType;
import dev.smelt.ir.Shape;
import dev.smelt.stress.Program.NoTensor;
import dev.smelt.stress.Program.Value;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/// The model-building calls for [ProgramGenerator]: rmsNorm (with and without a weight), rope
/// (interleaved pairs and halves, angles per position or shared), scaledDotProductAttention
/// (causal, a bool or an additive mask, grouped heads, a given scale) and einsum (traces,
/// diagonals, contractions with a second operand, implicit and explicit outputs). For a program to
/// be differentiated, no bool mask (a row it drops whole is NaN) and no eps of 0.
final class ModelCalls {
    private ModelCalls() {}

    private static final String LETTERS = "abcdefg";

    static void any(ProgramGenerator g) {
        switch (g.random.nextInt(4)) {
            case 0 -> rmsNorm(g);
            case 1 -> rope(g);
            case 2 -> attention(g);
            default -> einsum(g);
        }
    }

    private static void rmsNorm(ProgramGenerator g) {
        int x = operand(g);
        if (x < 0) return;
        Shape shape = g.shape(x);
        if (shape.rank() == 0) return;
        int trailing = 1 + g.random.nextInt(Math.min(2, shape.rank()));
        Shape normalized = new Shape(shape.dims().subList(shape.rank() - trailing, shape.rank()));
        Object weight = g.random.nextBoolean() ? g.constant(Shapes.floating(g.random), normalized) : new NoTensor();
        g.call("rmsNorm", new Value(x), normalized.toArray(), weight, g.any(g.smooth() ? List.of(1e-5, 0.1) : List.of(1e-5, 1e-6, 0.1, 0.0)));
    }

    /// `x.rope(cos, sin, interleaved)` over `x`'s last axis (made even by a slice), `cos` and `sin` of a
    /// captured angle table per position (`[tokens, d/2]`) or shared (`[d/2]`), or captured themselves.
    private static void rope(ProgramGenerator g) {
        int x = operand(g);
        if (x < 0) return;
        Shape shape = g.shape(x);
        if (shape.rank() == 0 || shape.dim(shape.rank() - 1) < 2) return;
        int d = shape.dim(shape.rank() - 1);
        if (d % 2 != 0) x = g.call("slice", new Value(x), -1, 0, d - 1);
        if (x < 0) return;
        int half = d / 2;
        Shape angles = shape.rank() >= 2 && g.random.nextBoolean() ? Shape.of(shape.dim(shape.rank() - 2), half) : Shape.of(half);
        Object cos, sin;
        if (g.random.nextInt(4) > 0) {
            var table = g.constant(Shapes.floating(g.random), angles);
            cos = ElementwiseCalls.operand(g.call("cos", table));
            sin = ElementwiseCalls.operand(g.call("sin", table));
        } else {
            cos = g.constant(Shapes.floating(g.random), angles);
            sin = g.constant(Shapes.floating(g.random), angles);
        }
        if (cos != null && sin != null) g.call("rope", new Value(x), cos, sin, g.random.nextBoolean());
    }

    /// `Tensor.scaledDotProductAttention` with `x` as the queries `[..., tokens, d]`; keys and values
    /// `x` itself (self-attention) or captured, with as many or fewer heads (axis -3) than `x`.
    private static void attention(ProgramGenerator g) {
        int q = operand(g);
        if (q >= 0 && !g.dtype(q).isFloating()) q = g.as(q, Shapes.floating(g.random));
        if (q < 0 || g.shape(q).rank() < 2) return;
        Shape shape = g.shape(q);
        int rank = shape.rank(), tokens = shape.dim(rank - 2), d = shape.dim(rank - 1);
        Object k, v;
        int sources, dv;
        DType scores = g.dtype(q);
        if (g.random.nextInt(3) == 0) {
            k = v = new Value(q);
            sources = tokens;
            dv = d;
        } else {
            sources = g.random.nextBoolean() ? tokens : Shapes.dim(g.random);
            dv = g.random.nextBoolean() ? d : Shapes.dim(g.random);
            Shape keys = shape.with(rank - 2, sources);
            if (rank >= 3 && shape.dim(rank - 3) > 1 && g.random.nextBoolean()) keys = keys.with(rank - 3, divisor(g, shape.dim(rank - 3)));
            DType keyType = Shapes.floating(g.random);
            if (keyType == DType.F64) scores = DType.F64;
            k = g.constant(keyType, keys);
            v = g.constant(Shapes.floating(g.random), keys.with(rank - 1, dv));
        }
        long batch = shape.count() / Math.max(1, (long) tokens * d);
        if (batch * tokens * sources > g.scale.maxElements() || batch * tokens * sources * (d + dv) > g.scale.maxFlops()) return;
        var qv = new Value(q);
        switch (g.random.nextInt(4)) {
            case 0 -> g.callStatic("scaledDotProductAttention", qv, k, v, g.random.nextBoolean());
            case 1 -> g.callStatic("scaledDotProductAttention", qv, k, v, g.constant(g.random.nextBoolean() && !g.smooth() ? DType.BOOL : scores,  // an additive mask in the scores' dtype
                    g.random.nextBoolean() ? Shape.of(tokens, sources) : Shape.of(1, sources)));
            default -> g.callStatic("scaledDotProductAttention", qv, k, v, new NoTensor(), g.random.nextBoolean(), g.any(List.of(0.125, 1.0, 0.0, -0.5, 3.0)));
        }
    }

    /// A value to call on: for a program to be differentiated, in f64 (a bool or f32 value would
    /// compute in f32, whose rounding swamps central differences); -1 if the conversion was dropped.
    private static int operand(ProgramGenerator g) { return g.smooth() ? g.as(g.pick(), DType.F64) : g.pick(); }

    private static int divisor(ProgramGenerator g, int n) {
        var divisors = new ArrayList<Integer>();
        for (int i = 1; i < n; i++) if (n % i == 0) divisors.add(i);
        return g.any(divisors);
    }

    /// `Tensor.einsum(spec, x)` or `(spec, x, y)`: a label per axis of `x`, equal sizes sometimes
    /// sharing one (a diagonal); `y` captured, with some of `x`'s labels (or size 1 there, which
    /// broadcasts) and new ones; the output implicit, or some labels in any order.
    private static void einsum(ProgramGenerator g) {
        int x = operand(g);
        if (x < 0) return;
        Shape shape = g.shape(x);
        if (shape.rank() > 4) return;
        Map<Character, Integer> sizes = new LinkedHashMap<>();
        var first = new StringBuilder();
        for (int axis = 0; axis < shape.rank(); axis++) {
            int dim = shape.dim(axis);
            Character same = sizes.entrySet().stream().filter(e -> e.getValue() == dim).map(Map.Entry::getKey).findFirst().orElse(null);
            char label = same != null && g.random.nextInt(4) == 0 ? same : LETTERS.charAt(sizes.size());
            sizes.put(label, dim);
            first.append(label);
        }
        String spec = first.toString();
        var operands = new ArrayList<Value>(List.of(new Value(x)));
        if (g.random.nextBoolean()) {
            var second = new StringBuilder();
            var dims = new ArrayList<Integer>();
            for (char label : new ArrayList<>(sizes.keySet())) if (g.random.nextBoolean()) {
                second.append(label);
                dims.add(g.random.nextInt(6) == 0 ? 1 : sizes.get(label));
            }
            for (int extra = g.random.nextInt(3); extra > 0 && sizes.size() < LETTERS.length(); extra--) {
                char label = LETTERS.charAt(sizes.size());
                sizes.put(label, Shapes.dim(g.random));
                second.append(label);
                dims.add(sizes.get(label));
            }
            spec += "," + second;
            int y = g.call("to", g.constant(Shapes.floating(g.random), new Shape(dims)), g.smooth() ? DType.F64 : Shapes.dtype(g.random)); // a value, so Values can name it
            if (y < 0) return;
            operands.add(new Value(y));
        }
        long work = sizes.values().stream().mapToLong(Integer::longValue).reduce(1, (a, b) -> a * b);
        if (work > g.scale.maxFlops()) return;
        if (g.random.nextBoolean()) {
            var labels = new ArrayList<>(sizes.keySet());
            Collections.shuffle(labels, g.random);
            var output = new StringBuilder();
            for (char label : labels) if (g.random.nextBoolean()) output.append(label);
            spec += "->" + output;
        }
        g.callStatic("einsum", spec, new Program.Values(operands.stream().map(Value::index).toList()));
    }
}
