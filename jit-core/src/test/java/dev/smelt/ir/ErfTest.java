// SPDX-License-Identifier: Apache-2.0
package dev.smelt.ir;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/// Known values of erf and erfc, correctly rounded from 200-bit mpmath.
class ErfTest {
    @ParameterizedTest(name = "erf({0}) = {1}, erfc({0}) = {2}")
    @CsvSource({
            "1e-10,  1.1283791670955126e-10, 0.999999999887162",
            "0.1,    0.1124629160182849,     0.8875370839817152",
            "0.25,   0.27632639016823696,    0.7236736098317631",
            "0.4999, 0.5204119951613866,     0.4795880048386134",
            "0.5,    0.5204998778130465,     0.4795001221869535",
            "0.6,    0.6038560908479259,     0.3961439091520741",
            "0.75,   0.7111556336535151,     0.28884436634648486",
            "1,      0.8427007929497149,     0.15729920705028513",
            "1.5,    0.9661051464753108,     0.033894853524689274",
            "2,      0.9953222650189527,     0.0046777349810472645",
            "3,      0.9999779095030014,     2.209049699858544e-05",
            "4,      0.9999999845827421,     1.541725790028002e-08",
            "5,      0.9999999999984626,     1.5374597944280349e-12",
            "6,      1.0,                    2.1519736712498913e-17",
            "10,     1.0,                    2.088487583762545e-45",
            "15,     1.0,                    7.212994172451207e-100",
            "26,     1.0,                    5.663192408856143e-296",
    })
    void knownValuesWithinTwoUlps(double x, double erf, double erfc) {
        assertWithinUlps(erf, Erf.erf(x), 2, "erf(" + x + ")");
        assertWithinUlps(-erf, Erf.erf(-x), 2, "erf(" + -x + ")");
        assertWithinUlps(erfc, Erf.erfc(x), 2, "erfc(" + x + ")");
        assertWithinUlps(1 + erf, Erf.erfc(-x), 1, "erfc(" + -x + ")");
    }

    @Test
    void erfIsOdd() {
        for (double x = -8; x <= 8; x += 0.0625) assertEquals(-Erf.erf(x), Erf.erf(-x), "erf(" + x + ")");
        assertEquals(-0.0, Erf.erf(-0.0));
        assertEquals(0.0, Erf.erf(0.0));
    }

    @Test
    void limitsAndNan() {
        assertEquals(1.0, Erf.erf(Double.POSITIVE_INFINITY));
        assertEquals(-1.0, Erf.erf(Double.NEGATIVE_INFINITY));
        assertEquals(0.0, Erf.erfc(Double.POSITIVE_INFINITY));
        assertEquals(2.0, Erf.erfc(Double.NEGATIVE_INFINITY));
        assertEquals(Double.NaN, Erf.erf(Double.NaN));
        assertEquals(Double.NaN, Erf.erfc(Double.NaN));
    }

    @Test
    void tinyArgumentsAndTheUnderflowOfErfc() {
        assertEquals(Double.MIN_VALUE, Erf.erf(Double.MIN_VALUE)); // 2/√π · 2^-1074 rounds back to 2^-1074
        assertEquals(1.1283791670955126e-300, Erf.erf(1e-300));
        assertEquals(2 * Double.MIN_VALUE, Erf.erfc(27.2)); // 9.88e-324, subnormal
        assertEquals(0.0, Erf.erfc(27.3));
        assertEquals(0.0, Erf.erfc(1e300));
    }

    private static void assertWithinUlps(double expected, double actual, int ulps, String what) {
        double error = Math.abs(expected - actual) / Math.ulp(expected);
        if (!(error <= ulps)) throw new AssertionError("%s: expected %s, got %s (%.1f ulps, at most %d)".formatted(what, expected, actual, error, ulps));
    }
}
