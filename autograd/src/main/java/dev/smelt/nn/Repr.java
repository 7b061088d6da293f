// SPDX-License-Identifier: Apache-2.0
package dev.smelt.nn;

import java.math.BigDecimal;

/// Numbers as Python's `repr` prints them, so that modules and optimizers print as in PyTorch
/// (`eps=1e-05`, `lr=0.001`); for the `toString` of your own modules too.
public final class Repr {
    private Repr() {}

    /// Python's `repr(float)`: the shortest digits that read back to `value`, in positional notation
    /// for decimal exponents −4…15 (`0.001`, `2.0`), else scientific with a signed two-digit
    /// exponent (`1e-05`, `1e+16`); `nan`, `inf`, `-inf`.
    public static String of(double value) {
        if (Double.isNaN(value)) return "nan";
        if (Double.isInfinite(value)) return value > 0 ? "inf" : "-inf";
        if (value == 0) return 1 / value < 0 ? "-0.0" : "0.0";
        BigDecimal shortest = new BigDecimal(Double.toString(value)).stripTrailingZeros(); // Double.toString: shortest round trip (JDK 19+)
        int exponent = shortest.precision() - shortest.scale() - 1;
        if (exponent >= -4 && exponent < 16) {
            String plain = shortest.toPlainString();
            return plain.contains(".") ? plain : plain + ".0";
        }
        String digits = shortest.unscaledValue().abs().toString();
        String mantissa = digits.length() == 1 ? digits : digits.charAt(0) + "." + digits.substring(1);
        return (value < 0 ? "-" : "") + mantissa + "e" + (exponent < 0 ? "-" : "+") + (Math.abs(exponent) < 10 ? "0" : "") + Math.abs(exponent);
    }

    /// [#of], except that 0 prints as `0`: PyTorch's defaults for weight decay, momentum and
    /// dampening are the integer 0.
    public static String orZero(double value) { return value == 0 ? "0" : of(value); }

    /// Python's `True` or `False`.
    public static String of(boolean value) { return value ? "True" : "False"; }
}
