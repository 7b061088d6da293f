// SPDX-License-Identifier: Apache-2.0
package dev.smelt;

import dev.smelt.io.FormatException;
import dev.smelt.io.SafeTensorsFile;
import dev.smelt.io.TensorData;
import dev.smelt.ir.Shape;
import dev.smelt.ir.SmeltException;
import dev.smelt.ir.Storage;
import dev.smelt.ops.Copies;
import dev.smelt.ops.Ops;
import dev.smelt.ops.Value;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/// Tensors by name in the [safetensors](https://github.com/huggingface/safetensors) format, which
/// PyTorch (`safetensors.torch.save_file`/`load_file`), JAX and Hugging Face checkpoints share.
/// `f32`, `f64`, `i32` and `bool` tensors round-trip bit for bit; files holding `F16` or `BF16`
/// load as `f32` and `I64` as `i32` (each value checked to fit). Loading maps the file and copies
/// each tensor's bytes once, into its array; saving writes a temporary file and renames it over
/// `path`, so an interrupted save never leaves a half-written checkpoint.
///
/// A file that breaks the format (a bad header length, bad JSON, offsets out of range or
/// overlapping, a size that does not match shape × dtype, an unknown dtype) throws
/// [SmeltException] naming the file and the fault, and nothing is loaded.
public final class SafeTensors {
    private SafeTensors() {}

    /// Writes `tensors` (concrete, any dtype, views included) in the map's order.
    public static void save(Path path, Map<String, Tensor> tensors) { save(path, tensors, Map.of()); }

    /// Writes `tensors` and free-form `metadata` (the header's `__metadata__`).
    public static void save(Path path, Map<String, Tensor> tensors, Map<String, String> metadata) {
        Ops.nonNull("SafeTensors.save", path, tensors, metadata);
        var data = data(tensors, metadata);
        try {
            SafeTensorsFile.write(path, data, metadata);
        } catch (IOException e) {
            throw failure("SafeTensors.save", path, e);
        }
    }

    /// The bytes [#save] writes to a file, in memory: for sending tensors over a network (Smelt's
    /// Spark module broadcasts weights this way). At most 2 GiB.
    public static byte[] bytes(Map<String, Tensor> tensors) {
        Ops.nonNull("SafeTensors.bytes", tensors);
        try {
            return SafeTensorsFile.bytes(data(tensors, Map.of()), Map.of());
        } catch (FormatException e) {
            throw SmeltException.of("SafeTensors.bytes", "%s", e.getMessage());
        }
    }

    /// [#load(Path)] from the bytes of a file, such as [#bytes] made: a malformed one throws
    /// [SmeltException] naming the fault, as a malformed file does.
    public static Map<String, Tensor> fromBytes(byte[] bytes) {
        Ops.nonNull("SafeTensors.fromBytes", bytes);
        try {
            var tensors = new LinkedHashMap<String, Tensor>();
            SafeTensorsFile.read(bytes).tensors().forEach((name, data) -> tensors.put(name, tensor(data)));
            return Collections.unmodifiableMap(tensors);
        } catch (FormatException e) {
            throw SmeltException.of("SafeTensors.fromBytes", "%d bytes: %s", bytes.length, e.getMessage());
        }
    }

    private static LinkedHashMap<String, TensorData> data(Map<String, Tensor> tensors, Map<String, String> metadata) {
        var data = new LinkedHashMap<String, TensorData>();
        for (var entry : tensors.entrySet()) {
            String name = entry.getKey();
            if (name == null || name.equals("__metadata__")) throw SmeltException.of("SafeTensors.save", "a tensor is named %s; the name is reserved", name);
            requireUnicode(name);
            data.put(name, data("SafeTensors.save", "tensor \"" + name + "\"", entry.getValue()));
        }
        for (var entry : metadata.entrySet()) {
            if (entry.getKey() == null || entry.getValue() == null) throw SmeltException.of("SafeTensors.save", "metadata %s → %s has a null; keys and values are strings", entry.getKey(), entry.getValue());
            requireUnicode(entry.getKey());
            requireUnicode(entry.getValue());
        }
        return data;
    }

    // The header is UTF-8, in which an unpaired surrogate would silently become '?'.
    private static void requireUnicode(String text) {
        if (!StandardCharsets.UTF_8.newEncoder().canEncode(text))
            throw SmeltException.of("SafeTensors.save", "the name or metadata \"%s\" is not valid Unicode (it has an unpaired surrogate); the header is UTF-8", text);
    }

    /// Every tensor of the file, by name in the header's order, each a new dense tensor.
    public static Map<String, Tensor> load(Path path) {
        Ops.nonNull("SafeTensors.load", path);
        try {
            var tensors = new LinkedHashMap<String, Tensor>();
            SafeTensorsFile.read(path).tensors().forEach((name, data) -> tensors.put(name, tensor(data)));
            return Collections.unmodifiableMap(tensors);
        } catch (IOException e) {
            throw failure("SafeTensors.load", path, e);
        }
    }

    /// The file's `__metadata__` (empty if it has none); reads the header only.
    public static Map<String, String> metadata(Path path) {
        Ops.nonNull("SafeTensors.metadata", path);
        try {
            return Collections.unmodifiableMap(SafeTensorsFile.readMetadata(path));
        } catch (IOException e) {
            throw failure("SafeTensors.metadata", path, e);
        }
    }

    /// `tensor`'s elements as the file formats take them: dense, row-major, bits unchanged.
    static TensorData data(String op, String what, Tensor tensor) {
        if (tensor == null) throw SmeltException.of(op, "%s is null", what);
        if (tensor.isTraced()) throw SmeltException.of(op, "%s is traced; only concrete tensors have values to save", what);
        return new TensorData(tensor.shape(), Storage.wrapArray(Copies.dense(tensor.value())));
    }

    static Tensor tensor(TensorData data) {
        Shape shape = data.shape();
        return Tensor.wrap(Value.dense(data.storage(), shape));
    }

    /// An I/O error or a malformed file as the error of `op` on `path`.
    static SmeltException failure(String op, Path path, IOException cause) {
        String detail = switch (cause) {
            case FormatException e -> e.getMessage();
            case NoSuchFileException _ -> "no such file or directory";
            default -> cause.toString();
        };
        var error = SmeltException.of(op, "%s: %s", path, detail);
        error.initCause(cause);
        return error;
    }
}
