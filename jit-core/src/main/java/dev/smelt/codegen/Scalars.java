// SPDX-License-Identifier: Apache-2.0
package dev.smelt.codegen;

import dev.smelt.ir.BinaryOp;
import dev.smelt.ir.UnaryOp;

/// The scalar definitions that generated code calls instead of inlining them: the composite
/// activations and `pow`. Each delegates to its operator's definition, so a scalar kernel computes
/// exactly what the interpreter does (in double, rounded once by the caller). Public only because
/// the kernel classes, hidden classes in `dev.smelt.runtime`, call it.
public final class Scalars {
    private Scalars() {}

    public static double sign(double x) { return UnaryOp.SIGN.apply(x); }

    public static double sigmoid(double x) { return UnaryOp.SIGMOID.apply(x); }

    public static double geluTanh(double x) { return UnaryOp.GELU_TANH.apply(x); }

    public static double geluErf(double x) { return UnaryOp.GELU_ERF.apply(x); }

    public static double silu(double x) { return UnaryOp.SILU.apply(x); }

    public static double softplus(double x) { return UnaryOp.SOFTPLUS.apply(x); }

    /// C's `pow` (`pow(1, NaN) = 1`), see [BinaryOp#POW].
    public static double pow(double a, double b) { return BinaryOp.POW.apply(a, b); }

    /// Integer `pow`, wrapping, see [BinaryOp#applyInt].
    public static int pow(int a, int b) { return BinaryOp.POW.applyInt(a, b); }
}
