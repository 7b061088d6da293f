// SPDX-License-Identifier: Apache-2.0
package dev.smelt.nn;

import dev.smelt.Generator;
import dev.smelt.Jit;
import dev.smelt.Tensor;
import dev.smelt.ir.DType;
import dev.smelt.ir.SmeltException;

/// `torch.nn.Dropout`: while training, zeroes each element with probability `p` and scales the
/// others by `1 / (1 - p)` ([Tensor#dropout]); in evaluation mode, the identity. New layers train;
/// [#eval] and [#train] switch.
///
/// The mode is a tensor the layer reads, so a function compiled in one mode follows a later switch
/// without a retrace. Compiled code therefore draws the mask in both modes: in evaluation it
/// returns its input unchanged but advances the generator by the input's size per call, where
/// eager code draws nothing.
public final class Dropout implements Module {
    private final double p;
    private final Generator generator;
    private final Tensor training = Tensor.scalar(DType.BOOL, 1);

    /// Each element dropped with probability `p` in `[0, 1]`, its mask drawn from `generator`.
    public Dropout(double p, Generator generator) {
        if (!(p >= 0 && p <= 1)) throw SmeltException.of("Dropout", "p is the probability of zeroing an element and must be in [0, 1], got %s", p);
        if (generator == null) throw SmeltException.of("Dropout", "the generator is null");
        this.p = p;
        this.generator = generator;
    }

    public Tensor forward(Tensor x) {
        Module.input("Dropout", x);
        if (!Jit.isTracing() && !x.isTraced()) return isTraining() ? x.dropout(p, generator) : x;
        return Tensor.where(training, x.dropout(p, generator), x);
    }

    /// Training mode: drop elements. Returns this layer.
    @Override
    public Dropout train() {
        training.set(1);
        return this;
    }

    /// Evaluation mode: the identity. Returns this layer.
    @Override
    public Dropout eval() {
        training.set(0);
        return this;
    }

    public boolean isTraining() { return training.item() != 0; }

    public double p() { return p; }

    /// `Dropout(p=0.5, inplace=False)`, as PyTorch prints it, with ` eval` in evaluation mode.
    @Override
    public String toString() { return "Dropout(p=%s, inplace=False)%s".formatted(Repr.of(p), isTraining() ? "" : " eval"); }
}
