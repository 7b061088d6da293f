// SPDX-License-Identifier: Apache-2.0
package dev.smelt.spark;

import org.apache.spark.sql.SparkSession;

/// Spark sessions for tests: `local[n]` in this JVM.
final class SparkClusters {
    private SparkClusters() {}

    static SparkSession local(int threads) {
        return SparkSession.builder().master("local[" + threads + "]").appName("smelt-test")
                .config("spark.ui.enabled", "false").config("spark.sql.shuffle.partitions", "2").getOrCreate();
    }
}
