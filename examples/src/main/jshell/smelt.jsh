// SPDX-License-Identifier: Apache-2.0
// Smelt's JShell start-up script: the README's `-Djshell` command loads it after JShell's defaults.
import dev.smelt.*;
import dev.smelt.ir.DType;
import dev.smelt.ir.FusionMode;
import java.lang.invoke.MethodHandles;

/// Prints how `function` was compiled for its latest signature: graph, kernels, decisions, bytes.
void explain(Compiled function) { System.out.println(function.explain()); }

/// Prints why `function` compiled more than once.
void recompiles(Compiled function) { function.recompiles().forEach(System.out::println); }

/// A seeded source of random tensors: `Tensor.randn(rng, 3, 4)`.
Generator rng = new Generator(0);
