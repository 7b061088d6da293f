// SPDX-License-Identifier: Apache-2.0
package dev.smelt.spark;

import dev.smelt.Tensor;
import dev.smelt.autograd.Autograd;
import java.io.File;
import java.net.URISyntaxException;
import java.util.stream.Stream;
import org.apache.spark.sql.SparkSession;

/// Spark sessions for tests: `local[n]` threads in this JVM, or a `local-cluster` of executor
/// JVMs started from the SPARK_HOME the build assembles in `target/spark-home` (its `jars/` is
/// Spark's dependency closure). The executors get Smelt's classes (with ASM) and this module's, test classes
/// included, through `spark.executor.extraClassPath`, and the JVM flags Spark and Smelt need on
/// Java 25 (the `smelt.spark.jvmArgs` property Surefire sets, see the pom) through
/// `spark.executor.extraJavaOptions`.
final class SparkClusters {
    private SparkClusters() {}

    static SparkSession local(int threads) {
        return SparkSession.builder().master("local[" + threads + ",4]").appName("smelt-test")
                .config("spark.ui.enabled", "false").config("spark.sql.shuffle.partitions", "2").getOrCreate();
    }

    /// `executors` executor JVMs of one core and 1 GiB each.
    static SparkSession cluster(int executors) { return cluster(executors, ""); }

    /// [#cluster(int)] with `options` added to each executor's JVM flags.
    static SparkSession cluster(int executors, String options) {
        String classPath = String.join(File.pathSeparator, Stream.of(Tensor.class, org.objectweb.asm.ClassWriter.class, Autograd.class, ShippedFunction.class, SparkClusters.class).map(SparkClusters::location).distinct().toList());
        return SparkSession.builder().master("local-cluster[" + executors + ",1,1024]").appName("smelt-cluster-test")
                .config("spark.ui.enabled", "false").config("spark.sql.shuffle.partitions", "2")
                .config("spark.executor.extraClassPath", classPath)
                .config("spark.executor.extraJavaOptions", System.getProperty("smelt.spark.jvmArgs", "") + " " + options)
                .config("spark.executor.memory", "512m")
                .getOrCreate();
    }

    private static String location(Class<?> type) {
        try {
            return new File(type.getProtectionDomain().getCodeSource().getLocation().toURI()).getPath();
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }
}
