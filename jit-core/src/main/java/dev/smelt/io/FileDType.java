// SPDX-License-Identifier: Apache-2.0
package dev.smelt.io;

import dev.smelt.ir.DType;
import dev.smelt.ir.Storage;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/// The element types Smelt reads from files, each with its safetensors name, its NumPy type code
/// and the dtype it loads as. The first four are Smelt's own dtypes and round-trip bit for bit;
/// the others widen exactly on reading (`f16`, `bf16` to `f32`) or are range-checked (`i64` to
/// `i32`), and are never written.
enum FileDType {
    BOOL("BOOL", "b1", DType.BOOL),
    I32("I32", "i4", DType.I32),
    F32("F32", "f4", DType.F32),
    F64("F64", "f8", DType.F64),
    F16("F16", "f2", DType.F32),
    BF16("BF16", null, DType.F32),  // NumPy has no bfloat16
    I64("I64", "i8", DType.I32);

    /// What a file says when it holds these. Both formats name more types than Smelt reads
    /// (`u8`, `f8_e4m3`, `complex64`, …); an error lists the ones it does.
    static final String SUPPORTED_SAFETENSORS = "F32, F64, I32, BOOL, and F16, BF16 (read as F32), I64 (read as I32)";
    static final String SUPPORTED_NPY = "'<f4', '<f8', '<i4', '|b1', and '<f2' (read as f32), '<i8' (read as i32), either byte order";

    final String safetensorsName;
    final String npyCode;
    final DType dtype;

    FileDType(String safetensorsName, String npyCode, DType dtype) {
        this.safetensorsName = safetensorsName;
        this.npyCode = npyCode;
        this.dtype = dtype;
    }

    int bytes() {
        return switch (this) {
            case BOOL -> 1;
            case F16, BF16 -> 2;
            case I32, F32 -> 4;
            case F64, I64 -> 8;
        };
    }

    /// The file type that holds `dtype` unchanged.
    static FileDType of(DType dtype) {
        return switch (dtype) {
            case BOOL -> BOOL;
            case I32 -> I32;
            case F32 -> F32;
            case F64 -> F64;
        };
    }

    static FileDType bySafetensorsName(String name) {
        for (var type : values()) if (type.safetensorsName.equals(name)) return type;
        return null;
    }

    static FileDType byNpyCode(String code) {
        for (var type : values()) if (code.equals(type.npyCode)) return type;
        return null;
    }

    /// `count` elements at `offset` of `file`, in `order`, as a fresh storage of [#dtype]: one copy,
    /// from the mapped file straight into the tensor's array.
    Storage read(MemorySegment file, long offset, int count, ByteOrder order) throws FormatException {
        var storage = Storage.allocate(dtype, count);
        switch (this) {
            case BOOL -> {
                byte[] bools = storage.bools();
                MemorySegment.copy(file, ValueLayout.JAVA_BYTE, offset, bools, 0, count);
                for (int i = 0; i < count; i++) bools[i] = (byte) (bools[i] != 0 ? 1 : 0); // any non-zero byte is true, as in NumPy
            }
            case I32 -> MemorySegment.copy(file, ValueLayout.JAVA_INT_UNALIGNED.withOrder(order), offset, storage.ints(), 0, count);
            case F32 -> MemorySegment.copy(file, ValueLayout.JAVA_FLOAT_UNALIGNED.withOrder(order), offset, storage.floats(), 0, count);
            case F64 -> MemorySegment.copy(file, ValueLayout.JAVA_DOUBLE_UNALIGNED.withOrder(order), offset, storage.doubles(), 0, count);
            case F16 -> {
                var layout = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(order);
                for (int i = 0; i < count; i++) storage.floats()[i] = Float.float16ToFloat(file.get(layout, offset + 2L * i));
            }
            case BF16 -> { // the top half of an f32
                var layout = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(order);
                for (int i = 0; i < count; i++) storage.floats()[i] = Float.intBitsToFloat(file.get(layout, offset + 2L * i) << 16);
            }
            case I64 -> {
                var layout = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(order);
                for (int i = 0; i < count; i++) {
                    long value = file.get(layout, offset + 8L * i);
                    if (value != (int) value) throw new FormatException("element " + i + " is " + value + ", outside the i32 range that I64 data is read into");
                    storage.ints()[i] = (int) value;
                }
            }
        }
        return storage;
    }

    /// Writes `storage`, whose dtype this type holds unchanged, at `offset` of `file` in `order`.
    void write(Storage storage, MemorySegment file, long offset, ByteOrder order) {
        int count = storage.size();
        switch (this) {
            case BOOL -> MemorySegment.copy(storage.bools(), 0, file, ValueLayout.JAVA_BYTE, offset, count);
            case I32 -> MemorySegment.copy(storage.ints(), 0, file, ValueLayout.JAVA_INT_UNALIGNED.withOrder(order), offset, count);
            case F32 -> MemorySegment.copy(storage.floats(), 0, file, ValueLayout.JAVA_FLOAT_UNALIGNED.withOrder(order), offset, count);
            case F64 -> MemorySegment.copy(storage.doubles(), 0, file, ValueLayout.JAVA_DOUBLE_UNALIGNED.withOrder(order), offset, count);
            case F16, BF16, I64 -> throw new IllegalArgumentException(this + " is read only; tensors are written in their own dtype");
        }
    }
}
