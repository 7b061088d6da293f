// SPDX-License-Identifier: Apache-2.0
package dev.smelt.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.smelt.ir.Parser;
import dev.smelt.ir.Storage;
import dev.smelt.ref.Interpreter;
import java.util.List;
import org.junit.jupiter.api.Test;

/// Cases the random programs of `stress` found where [GraphTolerance] derived a finite bound for a
/// result that another valid evaluation order computes differently in kind (±∞ or NaN): such
/// elements must be unbounded, not compared.
class GraphToleranceTest {
    /// `[MAX, MAX, MAX]·[2, -3, -1]` in f32 is -2·MAX, which the interpreter (adding in double)
    /// rounds to -∞; an f32 accumulation overflows on the first product, and an FMA then keeps +∞
    /// (plain adds give NaN). Reassociation bounds assume partial sums stay finite: past the
    /// largest float they do not.
    @Test
    void f32MatmulWhosePartialSumsMayOverflowIsUnbounded() {
        assertEquals(Double.POSITIVE_INFINITY, bound("""
                graph(%0: f32[1,3], %1: f32[3,1]) {
                  %2 = matmul %0 %1 : f32[1,1]
                  return %2
                }
                """, Storage.wrap(new float[] {Float.MAX_VALUE, Float.MAX_VALUE, Float.MAX_VALUE}), Storage.wrap(new float[] {2, -3, -1})));
    }

    /// The same for a sum: `MAX + MAX - MAX - MAX` is 0 in double and ∞ or NaN in f32, by order.
    @Test
    void f32SumWhosePartialSumsMayOverflowIsUnbounded() {
        assertEquals(Double.POSITIVE_INFINITY, bound("""
                graph(%0: f32[4]) {
                  %1 = sum %0 axes=[0] : f32[1]
                  return %1
                }
                """, Storage.wrap(new float[] {Float.MAX_VALUE, Float.MAX_VALUE, -Float.MAX_VALUE, -Float.MAX_VALUE})));
    }

    /// `MAX·(-53) + 2.37·28.4 + MAX·2.4` is NaN by plain adds (-∞ + ∞) and -∞ with an FMA (which
    /// does not round `MAX·2.4` to ∞ first), so `result < 0` may be false or true: the matmul's
    /// unbounded error makes the comparison unbounded even though the reference value is NaN.
    @Test
    void comparisonOfAValueWithUnboundedErrorIsUnbounded() {
        assertEquals(Double.POSITIVE_INFINITY, bound("""
                graph(%0: f64[1,3], %1: f64[3,1]) {
                  %2 = matmul %0 %1 : f64[1,1]
                  %3 = const 0.0 : f64[1,1]
                  %4 = lt %2 %3 : bool[1,1]
                  return %4
                }
                """, Storage.wrap(new double[] {Double.MAX_VALUE, 2.37, Double.MAX_VALUE}), Storage.wrap(new double[] {-53, 28.4, 2.4})));
    }

    /// The vector `sigmoid` computes `1 / (1 + e⁻ˣ)` in f32, where `e⁻ˣ` overflows below x ≈ -88.7
    /// and the result is 0 against the reference's subnormal: [Tolerance] measured and documents
    /// that floor (`Float.MIN_NORMAL`), so the graph bound includes it.
    @Test
    void sigmoidMayGiveZeroForASubnormalResult() {
        var x = Storage.wrap(new float[] {-88.7f});
        String graph = """
                graph(%0: f32[1]) {
                  %1 = sigmoid %0 : f32[1]
                  return %1
                }
                """;
        double reference = Interpreter.run(Parser.parse(graph), List.of(x)).getFirst().get(0);
        assertEquals(null, GraphTolerance.mismatch(reference, 0, bound(graph, x)), "reference " + reference);
    }

    private static double bound(String graph, Storage... inputs) {
        return Interpreter.run(GraphTolerance.bounds(Parser.parse(graph)), List.of(inputs)).getFirst().get(0);
    }
}
