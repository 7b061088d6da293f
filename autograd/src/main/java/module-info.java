// SPDX-License-Identifier: Apache-2.0

/// Gradients and training for Smelt: `Autograd.grad` and `valueAndGrad` (`dev.smelt.autograd`),
/// modules (`dev.smelt.nn`), optimizers and compiled training steps (`dev.smelt.optim`), and data
/// loading (`dev.smelt.data`).
module dev.smelt.autograd {
    requires transitive dev.smelt;

    exports dev.smelt.autograd;
    exports dev.smelt.nn;
    exports dev.smelt.optim;
    exports dev.smelt.data;
}
