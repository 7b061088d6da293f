// SPDX-License-Identifier: Apache-2.0
package dev.smelt.fusion;

import dev.smelt.kernel.ColumnReduction;
import dev.smelt.kernel.Kernel;

/// Whether generated code reads a reduction kernel's strided inputs as a column reduction, LANES
/// neighbouring rows at once, so that they stream like a contiguous read: the predicate code
/// generation decides by ([ColumnReduction]), at the lane count this machine's vectors give the kernel.
final class ColumnReads {
    private ColumnReads() {}

    static boolean vectorised(Kernel kernel, Machine machine) { return ColumnReduction.eligible(kernel, machine.lanes(kernel.laneBytes())); }
}
