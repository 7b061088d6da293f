// SPDX-License-Identifier: Apache-2.0
package dev.smelt;

import dev.smelt.io.NpyFile;
import dev.smelt.ir.SmeltException;
import dev.smelt.ops.Ops;
import java.io.IOException;
import java.nio.file.Path;

/// One tensor in NumPy's `.npy` format (`numpy.save`/`numpy.load`). `f32`, `f64`, `i32` and `bool`
/// round-trip bit for bit (`<f4`, `<f8`, `<i4`, `|b1`); files of `<f2` load as `f32` and `<i8` as
/// `i32` (each value checked to fit), big-endian files too, and Fortran-order files are reordered
/// into row-major. A malformed or truncated file throws [SmeltException] naming the file and the
/// fault.
public final class Npy {
    private Npy() {}

    /// Writes `tensor` (concrete, any dtype, views included), row-major, format version 1.0.
    public static void save(Path path, Tensor tensor) {
        Ops.nonNull("Npy.save", path);
        var data = SafeTensors.data("Npy.save", "the tensor", tensor);
        try {
            NpyFile.write(path, data);
        } catch (IOException e) {
            throw SafeTensors.failure("Npy.save", path, e);
        }
    }

    /// The file's array as a new dense tensor.
    public static Tensor load(Path path) {
        Ops.nonNull("Npy.load", path);
        try {
            return SafeTensors.tensor(NpyFile.read(path));
        } catch (IOException e) {
            throw SafeTensors.failure("Npy.load", path, e);
        }
    }
}
