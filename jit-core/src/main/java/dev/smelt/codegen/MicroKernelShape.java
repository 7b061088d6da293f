// SPDX-License-Identifier: Apache-2.0
package dev.smelt.codegen;

import dev.smelt.ir.DType;
import jdk.incubator.vector.DoubleVector;
import jdk.incubator.vector.FloatVector;

/// The register tile of a matmul micro-kernel: `rows` rows of A broadcast against `vectors`
/// vectors of `lanes` columns of B, accumulating `rows × vectors` vectors of C.
///
/// Sized from the machine: each step of K holds the accumulators, the `vectors` loaded from B and
/// one broadcast of A in vector registers, so `rows·vectors + vectors + 1 ≤ registers`. With
/// 32 registers (AVX-512) that is 6 rows × 4 vectors (29 registers), with 16 (AVX2, NEON) 6 × 2
/// (15): both the widest tiles that leave no accumulator spilled, measured in `MatMulBench`.
/// `columns()` divides [dev.smelt.kernel.MatMulKernel#UNIT_COLUMNS] in each case.
public record MicroKernelShape(DType dtype, int rows, int vectors, int lanes) {
    /// Vector registers: `-Dsmelt.vectorRegisters=N`, else 32 where the preferred vectors are
    /// 512 bits wide (AVX-512 has 32 zmm registers) and 16 otherwise (AVX2 has 16 ymm).
    public static final int REGISTERS = Integer.getInteger("smelt.vectorRegisters",
            FloatVector.SPECIES_PREFERRED.vectorBitSize() >= 512 ? 32 : 16);

    public MicroKernelShape {
        if (!dtype.isFloating()) throw new IllegalArgumentException("micro-kernel of " + dtype + ": f32 or f64 only");
        if (rows < 1 || vectors < 1 || lanes < 1) throw new IllegalArgumentException("empty micro-kernel " + rows + "x" + vectors + "x" + lanes);
    }

    /// The tile for `dtype` on this machine's preferred species.
    public static MicroKernelShape of(DType dtype) {
        int lanes = dtype == DType.F32 ? FloatVector.SPECIES_PREFERRED.length() : DoubleVector.SPECIES_PREFERRED.length();
        int vectors = Math.max(1, REGISTERS / 8);
        int rows = Math.clamp((REGISTERS - vectors - 1) / vectors, 1, 8);
        return new MicroKernelShape(dtype, rows, vectors, lanes);
    }

    public int columns() { return vectors * lanes; }

    /// `tile f32 6x4 vectors of 16 lanes`: the text its class name is hashed from.
    @Override
    public String toString() { return "tile " + dtype + " " + rows + "x" + vectors + " vectors of " + lanes + " lanes"; }
}
