// SPDX-License-Identifier: Apache-2.0
package dev.smelt.fusion;

import dev.smelt.ir.BinaryOp;
import dev.smelt.ir.DType;
import dev.smelt.ir.Node;
import dev.smelt.kernel.IndexMap;
import dev.smelt.kernel.Expr;

/// Indices affine in the kernel point, `offset + Σ coef[d]·p[d]`, built from [Expr.Index] terms:
/// an iota read through views, and the element a random node draws at each point.
final class Indexes {
    private Indexes() {}

    /// The iota's value at each point, or null when the mapping hides which axis it counts.
    static Expr of(Node.Iota iota, Mapping mapping) {
        int[] coef = mapping.axisCoefficients(iota.axis());
        return coef == null ? null : affine(coef, mapping.axisOffset(iota.axis()), iota.dtype());
    }

    /// The point's row-major position in a dense buffer of the mapped value, as an `i32`: which
    /// element of a random node the point draws.
    static Expr position(Mapping mapping) {
        IndexMap dense = mapping.dense();
        return affine(dense.strides().stream().mapToInt(Integer::intValue).toArray(), dense.offset(), DType.I32);
    }

    // offset + Σ coef[d]·index<d>
    private static Expr affine(int[] coef, int offset, DType dtype) {
        Expr sum = null;
        for (int d = 0; d < coef.length; d++) {
            if (coef[d] == 0) continue;
            Expr term = new Expr.Index(d, dtype);
            if (coef[d] != 1) term = new Expr.Binary(BinaryOp.MUL, term, new Expr.Constant(coef[d], dtype));
            sum = sum == null ? term : new Expr.Binary(BinaryOp.ADD, sum, term);
        }
        Expr constant = new Expr.Constant(offset, dtype);
        if (sum == null) return constant;
        return offset == 0 ? sum : new Expr.Binary(BinaryOp.ADD, sum, constant);
    }
}
