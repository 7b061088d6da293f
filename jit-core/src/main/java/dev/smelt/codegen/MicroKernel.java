// SPDX-License-Identifier: Apache-2.0
package dev.smelt.codegen;

/// The innermost block of a packed matmul: one register tile of `rows × columns` of C
/// ([MicroKernelShape]) computed from packed panels. Implemented by generated vector classes
/// ([MicroKernelEmitter]) and by plain Java (the runtime's scalar tile, served while C2 compiles
/// the vector one). Arrays are all `float[]` or all `double[]`.
public interface MicroKernel {
    /// `C[c + r·ldc + j] (+)= Σ_p A[a + p·rows + r] · B[b + p·columns + j]` for `r < rows`,
    /// `j < columns`, `p < depth`: `a` is a packed micro-panel of A (`rows` values per step of K),
    /// `b` one of B (`columns` values per step); C's tile is overwritten, or added to when
    /// `accumulate`.
    void run(Object a, int aOffset, Object b, int bOffset, int depth, Object c, int cOffset, int ldc, boolean accumulate);
}
