// SPDX-License-Identifier: Apache-2.0
package dev.smelt.spark;

import dev.smelt.ir.SmeltException;
import dev.smelt.nn.Parameter;
import dev.smelt.optim.Adam;
import dev.smelt.optim.Optimizer;
import dev.smelt.optim.SGD;
import java.io.Serializable;
import java.util.List;

/// The optimizer every replica of [DataParallel] runs, as data: each executor builds its own
/// [Optimizer] from it over its replica's parameters.
public sealed interface UpdateRule extends Serializable {
    /// The optimizer over `parameters`.
    Optimizer over(List<Parameter> parameters);

    /// Stochastic gradient descent with momentum (0 for none), as [SGD].
    record Sgd(double learningRate, double momentum) implements UpdateRule {
        /// Checks the values on the driver, as [SGD] would on the executors.
        public Sgd {
            if (!(learningRate >= 0) || Double.isInfinite(learningRate)) throw SmeltException.of("SGD", "learning rate must be finite and ≥ 0, got %s", learningRate);
            if (!(momentum >= 0) || Double.isInfinite(momentum)) throw SmeltException.of("SGD", "momentum must be finite and ≥ 0, got %s", momentum);
        }

        @Override
        public Optimizer over(List<Parameter> parameters) { return new SGD(parameters, learningRate, momentum, 0, 0, false); }
    }

    /// Adam with PyTorch's defaults but the learning rate, as `new dev.smelt.optim.Adam(parameters, learningRate)`.
    record Adam(double learningRate) implements UpdateRule {
        /// Checks the learning rate on the driver, as [dev.smelt.optim.Adam] would on the executors.
        public Adam {
            if (!(learningRate >= 0) || Double.isInfinite(learningRate)) throw SmeltException.of("Adam", "learning rate must be finite and ≥ 0, got %s", learningRate);
        }

        @Override
        public Optimizer over(List<Parameter> parameters) { return new dev.smelt.optim.Adam(parameters, learningRate); }
    }
}
