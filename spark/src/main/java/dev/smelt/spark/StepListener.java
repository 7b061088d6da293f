// SPDX-License-Identifier: Apache-2.0
package dev.smelt.spark;

import java.io.Serializable;

/// Called on each executor after every step of [DataParallel] training, on every replica: for
/// progress logs and metrics where the work happens. An exception it throws fails the task, and
/// Spark restarts the barrier stage.
@FunctionalInterface
public interface StepListener extends Serializable {
    /// After step `step` (from 1) on replica `worker`, whose averaged loss was `loss`.
    void afterStep(int worker, int step, double loss);
}
