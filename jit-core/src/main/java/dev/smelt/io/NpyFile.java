// SPDX-License-Identifier: Apache-2.0
package dev.smelt.io;

import dev.smelt.ir.Shape;
import dev.smelt.ir.Storage;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;

/// NumPy's `.npy` format, versions 1.0, 2.0 and 3.0: the magic `\x93NUMPY`, a major and minor
/// version byte, the header length (2 bytes little-endian in 1.0, 4 in 2.0 and 3.0), then a Python
/// dict literal `{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }` padded with spaces
/// to a newline (Latin-1 text, UTF-8 in 3.0), then the elements. A Fortran-order file is read
/// into row-major order; files are written in version 1.0 (2.0 if the header needs it), row-major.
public final class NpyFile {
    private NpyFile() {}

    private static final byte[] MAGIC = {(byte) 0x93, 'N', 'U', 'M', 'P', 'Y'};
    private static final Set<String> KEYS = Set.of("descr", "fortran_order", "shape");

    public static TensorData read(Path path) throws IOException {
        return MappedFile.read(path, NpyFile::read);
    }

    public static void write(Path path, TensorData data) throws IOException {
        FileDType type = FileDType.of(data.storage().dtype());
        String byteOrder = type.bytes() == 1 ? "|" : "<";
        List<Integer> dims = data.shape().dims();
        String shape = dims.size() == 1 ? "(" + dims.getFirst() + ",)" : dims.toString().replace('[', '(').replace(']', ')');
        String dict = "{'descr': '" + byteOrder + type.npyCode + "', 'fortran_order': False, 'shape': " + shape + ", }";
        boolean wide = dict.length() + 1 + 10 > 0xFFFF;           // the 1.0 length field is 16 bits
        int prefix = wide ? 12 : 10;
        // NumPy pads the whole header to a multiple of 64 bytes so the data is aligned.
        byte[] header = (dict + " ".repeat(-(prefix + dict.length() + 1) & 63) + "\n").getBytes(StandardCharsets.ISO_8859_1);
        long size = prefix + header.length + (long) data.shape().size() * type.bytes();
        MappedFile.write(path, size, file -> {
            MemorySegment.copy(MAGIC, 0, file, ValueLayout.JAVA_BYTE, 0, MAGIC.length);
            file.set(ValueLayout.JAVA_BYTE, 6, (byte) (wide ? 2 : 1));
            file.set(ValueLayout.JAVA_BYTE, 7, (byte) 0);
            var order = ByteOrder.LITTLE_ENDIAN;
            if (wide) file.set(ValueLayout.JAVA_INT_UNALIGNED.withOrder(order), 8, header.length);
            else file.set(ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(order), 8, (short) header.length);
            MemorySegment.copy(header, 0, file, ValueLayout.JAVA_BYTE, prefix, header.length);
            type.write(data.storage(), file, prefix + header.length, order);
        });
    }

    private static TensorData read(MemorySegment file) throws FormatException {
        long size = file.byteSize();
        if (size < MAGIC.length || MemorySegment.mismatch(file, 0, MAGIC.length, MemorySegment.ofArray(MAGIC), 0, MAGIC.length) >= 0)
            throw new FormatException("the file does not start with the .npy magic \\x93NUMPY");
        if (size < 10) throw new FormatException("the file ends inside the version and header length");
        int major = file.get(ValueLayout.JAVA_BYTE, 6), minor = file.get(ValueLayout.JAVA_BYTE, 7);
        if (major < 1 || major > 3 || minor != 0) throw new FormatException("format version " + major + "." + minor + " is not 1.0, 2.0 or 3.0");
        int prefix = major == 1 ? 10 : 12;
        if (size < prefix) throw new FormatException("the file ends inside the version and header length");
        var order = ByteOrder.LITTLE_ENDIAN;
        long length = major == 1 ? Short.toUnsignedLong(file.get(ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(order), 8))
                : Integer.toUnsignedLong(file.get(ValueLayout.JAVA_INT_UNALIGNED.withOrder(order), 8));
        if (length > size - prefix) throw new FormatException("the header length " + length + " runs past the end of the file (" + size + " bytes)");
        byte[] bytes = file.asSlice(prefix, length).toArray(ValueLayout.JAVA_BYTE);
        String header = new String(bytes, major == 3 ? StandardCharsets.UTF_8 : StandardCharsets.ISO_8859_1);
        Map<String, Object> dict = PythonLiteral.dict(header);
        if (!dict.keySet().equals(KEYS)) throw new FormatException("the header has the keys " + dict.keySet() + "; expected exactly descr, fortran_order and shape");
        if (!(dict.get("descr") instanceof String descr)) throw new FormatException("descr " + dict.get("descr") + " is not a simple type; structured arrays are not supported");
        if (!(dict.get("fortran_order") instanceof Boolean fortran)) throw new FormatException("fortran_order is not True or False");
        Shape shape = shape(dict.get("shape"));
        ByteOrder fileOrder = switch (descr.isEmpty() ? ' ' : descr.charAt(0)) {
            case '<' -> ByteOrder.LITTLE_ENDIAN;
            case '>' -> ByteOrder.BIG_ENDIAN;
            case '|', '=' -> ByteOrder.nativeOrder();
            default -> null;
        };
        FileDType type = fileOrder == null ? null : FileDType.byNpyCode(descr.substring(1));
        if (type == null || descr.charAt(0) == '|' && type.bytes() > 1)
            throw new FormatException("descr '" + descr + "' is an unsupported dtype; Smelt reads " + FileDType.SUPPORTED_NPY);
        long dataStart = prefix + length, needed = (long) shape.size() * type.bytes();
        if (size - dataStart != needed)
            throw new FormatException("shape " + shape + " of '" + descr + "' needs " + needed + " bytes of data, but the file holds " + (size - dataStart) + " after the header"
                    + (size - dataStart < needed ? " (truncated)" : ""));
        Storage storage = type.read(file, dataStart, shape.size(), fileOrder);
        return new TensorData(shape, fortran ? rowMajor(storage, shape) : storage);
    }

    private static Shape shape(Object value) throws FormatException {
        if (!(value instanceof List<?> dims) || !dims.stream().allMatch(Long.class::isInstance)) throw new FormatException("shape " + value + " is not a tuple of integers");
        long count = 1;
        for (Object dim : dims) {
            long size = (Long) dim;
            if (size < 0 || size > Integer.MAX_VALUE) throw new FormatException("shape " + dims + " has the size " + size);
            count = Math.min(count * size, SafeTensorsFile.MAX_ELEMENTS + 1);
        }
        if (count > SafeTensorsFile.MAX_ELEMENTS) throw new FormatException("shape " + dims + " has more than the " + SafeTensorsFile.MAX_ELEMENTS + " elements a tensor holds");
        return new Shape(dims.stream().map(dim -> ((Long) dim).intValue()).toList());
    }

    // Column-major elements, the first index fastest, reordered row-major. Bits are moved with
    // arraycopy, whatever the dtype: a Fortran file is rare, so one element per call is fine.
    private static Storage rowMajor(Storage columnMajor, Shape shape) {
        int rank = shape.rank(), size = shape.size();
        var result = Storage.allocate(columnMajor.dtype(), size);
        int[] index = new int[rank], columnStrides = new int[rank];
        for (int axis = 0, stride = 1; axis < rank; stride *= shape.dim(axis), axis++) columnStrides[axis] = stride;
        for (int i = 0, from = 0; i < size; i++) {
            System.arraycopy(columnMajor.array(), from, result.array(), i, 1);
            for (int axis = rank - 1; axis >= 0; axis--) { // the odometer of the row-major index
                from += columnStrides[axis];
                if (++index[axis] < shape.dim(axis)) break;
                from -= columnStrides[axis] * index[axis];
                index[axis] = 0;
            }
        }
        return result;
    }
}
