// SPDX-License-Identifier: Apache-2.0
package dev.smelt.fusion;

import dev.smelt.ir.BinaryOp;
import dev.smelt.ir.Node;
import dev.smelt.kernel.Expr;

/// An iota read through views: its index along `axis` is affine in the kernel point, `offset +
/// Σ coef[d]·p[d]`, which is built from [Expr.Index] terms.
final class Indexes {
    private Indexes() {}

    /// The iota's value at each point, or null when the mapping hides which axis it counts.
    static Expr of(Node.Iota iota, Mapping mapping) {
        int[] coef = mapping.axisCoefficients(iota.axis());
        if (coef == null) return null;
        Expr sum = null;
        for (int d = 0; d < coef.length; d++) {
            if (coef[d] == 0) continue;
            Expr term = new Expr.Index(d, iota.dtype());
            if (coef[d] != 1) term = new Expr.Binary(BinaryOp.MUL, term, new Expr.Constant(coef[d], iota.dtype()));
            sum = sum == null ? term : new Expr.Binary(BinaryOp.ADD, sum, term);
        }
        int offset = mapping.axisOffset(iota.axis());
        Expr constant = new Expr.Constant(offset, iota.dtype());
        if (sum == null) return constant;
        return offset == 0 ? sum : new Expr.Binary(BinaryOp.ADD, sum, constant);
    }
}
