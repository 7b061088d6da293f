// SPDX-License-Identifier: Apache-2.0
package com.example;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TrainTest {
    @Test
    void learnsThreeSeparableClasses(@TempDir Path directory) throws Exception {
        double accuracy = Train.train(directory.resolve("points.csv"));
        assertTrue(accuracy >= 0.9, "test accuracy " + accuracy);
    }
}
