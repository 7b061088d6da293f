// SPDX-License-Identifier: Apache-2.0
package dev.smelt.benchmarks;

import dev.smelt.Generator;
import dev.smelt.SafeTensors;
import dev.smelt.Tensor;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/// Checkpoint loading and saving: a file of `tensors` `f32` tensors, `megabytes` in all, read from
/// the page cache (the file was just written). `load` maps the file and copies each tensor once;
/// `readAllBytes` is the plain-Java way with two copies (file to a byte array, bytes to floats),
/// the baseline it should beat. `save` writes the same tensors (a temporary file, renamed).
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = {"--add-modules", "jdk.incubator.vector", "-Xmx2g"})
@State(Scope.Benchmark)
public class SafeTensorsBench {
    @Param({"256"})
    public int megabytes;

    @Param({"16"})
    public int tensors;

    Path directory, file;
    Map<String, Tensor> weights;

    @Setup
    public void writeAndCheck() throws IOException {
        directory = Files.createTempDirectory("safetensors-bench");
        file = directory.resolve("weights.safetensors");
        weights = new LinkedHashMap<>();
        int perTensor = megabytes * (1 << 20) / 4 / tensors;
        for (int i = 0; i < tensors; i++) weights.put("layer" + i + ".weight", Tensor.randn(new Generator(i), perTensor));
        SafeTensors.save(file, weights);
        var loaded = load();
        var plain = readAllBytes();
        for (var name : weights.keySet()) {
            if (!Arrays.equals(weights.get(name).toFloatArray(), loaded.get(name).toFloatArray()) || !Arrays.equals(weights.get(name).toFloatArray(), plain[Integer.parseInt(name.substring(5, name.indexOf('.')))]))
                throw new IllegalStateException("the loaded " + name + " differs from the saved one");
        }
    }

    @TearDown
    public void delete() throws IOException {
        Files.deleteIfExists(file);
        Files.deleteIfExists(directory);
    }

    @Benchmark
    public Map<String, Tensor> load() { return SafeTensors.load(file); }

    /// The same tensors through `Files.readAllBytes`, relying on Smelt's layout (data in order).
    @Benchmark
    public float[][] readAllBytes() throws IOException {
        var bytes = ByteBuffer.wrap(Files.readAllBytes(file)).order(ByteOrder.LITTLE_ENDIAN);
        int start = 8 + (int) bytes.getLong(0), perTensor = (bytes.capacity() - start) / 4 / tensors;
        var result = new float[tensors][perTensor];
        for (int i = 0; i < tensors; i++) bytes.slice(start + i * perTensor * 4, perTensor * 4).order(ByteOrder.LITTLE_ENDIAN).asFloatBuffer().get(result[i]);
        return result;
    }

    @Benchmark
    public void save() { SafeTensors.save(file, weights); }
}
