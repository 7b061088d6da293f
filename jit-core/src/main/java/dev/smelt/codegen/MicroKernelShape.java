// SPDX-License-Identifier: Apache-2.0
package dev.smelt.codegen;

import dev.smelt.ir.DType;
import jdk.incubator.vector.DoubleVector;
import jdk.incubator.vector.FloatVector;

/// The register tile of a matmul micro-kernel: `rows` rows of A broadcast against `vectors`
/// vectors of `lanes` columns of B, accumulating `rows × vectors` vectors of C.
///
/// Sized from the machine: two vectors of B per step of K, and as many rows as keep the
/// accumulators to three quarters of the vector registers (the rest hold B's vectors and the
/// broadcast of A): 12 rows × 2 vectors with 32 registers (AVX-512, 27 registers live), 6 × 2 with
/// 16 (AVX2). Two vectors rather than four keep the micro-panel of B that stays in L1 narrow, so
/// it holds more steps of K: at 1024³ on the AVX-512 host 12×2 ran at 87 GFLOP/s against 78 for
/// 6×4 and 76 for 8×3 (best of 12 calls, loaded machine, 2026-11). `columns()` divides
/// [dev.smelt.kernel.MatMulKernel#UNIT_COLUMNS] in each case.
public record MicroKernelShape(DType dtype, int rows, int vectors, int lanes) {
    /// Vector registers: `-Dsmelt.vectorRegisters=N`, else 32 where the preferred vectors are
    /// 512 bits wide (AVX-512 has 32 zmm registers) and 16 otherwise (AVX2 has 16 ymm).
    public static final int REGISTERS = dev.smelt.ir.Settings.integer("smelt.vectorRegisters",
            FloatVector.SPECIES_PREFERRED.vectorBitSize() >= 512 ? 32 : 16, 16);

    public MicroKernelShape {
        if (!dtype.isFloating()) throw new IllegalArgumentException("micro-kernel of " + dtype + ": f32 or f64 only");
        if (rows < 1 || vectors < 1 || lanes < 1) throw new IllegalArgumentException("empty micro-kernel " + rows + "x" + vectors + "x" + lanes);
    }

    /// The tile for `dtype` on this machine's preferred species.
    public static MicroKernelShape of(DType dtype) {
        int lanes = dtype == DType.F32 ? FloatVector.SPECIES_PREFERRED.length() : DoubleVector.SPECIES_PREFERRED.length();
        int vectors = 2;
        int rows = Math.max(1, REGISTERS * 3 / 4 / vectors);
        return new MicroKernelShape(dtype, rows, vectors, lanes);
    }

    public int columns() { return vectors * lanes; }

    /// `tile f32 12x2 vectors of 16 lanes`: the text its class name is hashed from.
    @Override
    public String toString() { return "tile " + dtype + " " + rows + "x" + vectors + " vectors of " + lanes + " lanes"; }
}
