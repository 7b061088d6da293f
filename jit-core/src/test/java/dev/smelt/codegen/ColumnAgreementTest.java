// SPDX-License-Identifier: Apache-2.0
package dev.smelt.codegen;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.smelt.fusion.Machine;
import dev.smelt.kernel.Kernel;
import dev.smelt.testing.RandomKernels;
import java.lang.reflect.Method;
import java.util.ArrayList;
import org.junit.jupiter.api.Test;

/// Fusion prices a reduction kernel as a column reduction when `kernel.ColumnReduction` says so at
/// the lane count of its `Machine` (`fusion.ColumnReads`), and code generation asks the same
/// predicate at its [VectorPlan]'s lane count, then whether the platform has the species the column
/// loops need ([ColumnPlan]): on 3,000 random kernels (half of them shaped as column reductions) both
/// say the same, so the two lane counts agree and no species is missing where the cost model
/// assumed a column reduction: it prices the code that is generated.
class ColumnAgreementTest {
    @Test
    void fusionAndCodegenAgreeWhichKernelsAreColumnReductions() throws Exception {
        Method vectorised = Class.forName("dev.smelt.fusion.ColumnReads").getDeclaredMethod("vectorised", Kernel.class, Machine.class);
        vectorised.setAccessible(true); // package-private in fusion: this test alone looks across the wall
        var disagreements = new ArrayList<String>();
        int columns = 0;
        for (long seed = 0; seed < 3000; seed++) {
            Kernel kernel = seed % 2 == 0 ? RandomKernels.generateColumns(seed) : RandomKernels.generate(seed);
            boolean fusion = (boolean) vectorised.invoke(null, kernel, Machine.CURRENT);
            boolean codegen = ColumnPlan.of(kernel, LoopSpace.of(kernel), VectorPlan.of(kernel, 0)) != null;
            if (codegen) columns++;
            if (fusion != codegen) disagreements.add("seed %d: fusion %s, codegen %s%n%s".formatted(seed, fusion, codegen, kernel));
        }
        assertEquals(0, disagreements.size(), () -> String.join("\n", disagreements.subList(0, Math.min(3, disagreements.size()))));
        assertTrue(columns > 300, columns + " column reductions: too few to compare");
    }
}
