// SPDX-License-Identifier: Apache-2.0
package dev.smelt.optim;

import dev.smelt.autograd.Nodes;
import dev.smelt.ir.Node;
import dev.smelt.ir.SmeltException;
import dev.smelt.nn.Parameter;
import dev.smelt.nn.Repr;
import java.util.List;

/// Adam and AdamW as `torch.optim.Adam` / `torch.optim.AdamW` (no amsgrad), at a parameter's own
/// step `t` (its first update is `t = 1`, however many steps passed it by):
/// ```
/// g ← g + λ·p                      (Adam: L2 penalty in the gradient)
/// p ← p·(1 - lr·λ)                 (AdamW: decoupled weight decay)
/// m ← β₁·m + (1-β₁)·g;   v ← β₂·v + (1-β₂)·g²
/// p ← p - (lr / (1-β₁ᵗ)) · m / (√v / √(1-β₂ᵗ) + ε)
/// ```
/// The bias corrections are computed in double on the Java side each step, from each parameter's
/// step count, and enter the program as runtime scalars of that parameter's own.
public final class Adam extends Optimizer {
    private final double beta1, beta2, eps;
    private final boolean decoupled;

    /// Adam with PyTorch's defaults: β = (0.9, 0.999), ε = 1e-8, no weight decay.
    public Adam(List<Parameter> parameters, double learningRate) { this(parameters, learningRate, 0.9, 0.999, 1e-8, 0, false); }

    /// Adam, or AdamW with `decoupledWeightDecay`; `0 ≤ β₁, β₂ < 1`, finite `ε ≥ 0`, `lr` and weight
    /// decay finite and `≥ 0`; anything else throws.
    public Adam(List<Parameter> parameters, double learningRate, double beta1, double beta2, double eps, double weightDecay, boolean decoupledWeightDecay) {
        super(parameters, List.of("exp_avg", "exp_avg_sq"), List.of("step_size", "sqrt(1-beta2^t)"), learningRate, weightDecay);
        if (!(beta1 >= 0 && beta1 < 1) || !(beta2 >= 0 && beta2 < 1) || !(eps >= 0) || Double.isInfinite(eps))
            throw SmeltException.of(decoupledWeightDecay ? "AdamW" : "Adam", "expected 0 ≤ β₁, β₂ < 1 and a finite ε ≥ 0, got %s, %s, %s", beta1, beta2, eps);
        this.beta1 = beta1;
        this.beta2 = beta2;
        this.eps = eps;
        this.decoupled = decoupledWeightDecay;
    }

    /// AdamW with PyTorch's defaults (β = 0.9, 0.999, ε = 1e-8).
    public static Adam adamW(List<Parameter> parameters, double learningRate, double weightDecay) {
        return new Adam(parameters, learningRate, 0.9, 0.999, 1e-8, weightDecay, true);
    }

    @Override
    String name() { return decoupled ? "AdamW" : "Adam"; }

    /// `Adam (lr=0.001, betas=(0.9, 0.999), eps=1e-08, weight_decay=0)`, its current hyper-parameters.
    @Override
    public String toString() {
        return "%s (lr=%s, betas=(%s, %s), eps=%s, weight_decay=%s)".formatted(name(), Repr.of(learningRate), Repr.of(beta1), Repr.of(beta2),
                Repr.of(eps), Repr.orZero(weightDecay));
    }

    @Override
    List<String> hyperParameterNames() { return List.of("beta1", "1-beta1", "beta2", "1-beta2", "eps", "l2", "decay"); }

    @Override
    void hyperParameters(double[] values) {
        values[0] = beta1;
        values[1] = 1 - beta1;
        values[2] = beta2;
        values[3] = 1 - beta2;
        values[4] = eps;
        values[5] = decoupled ? 0 : weightDecay;
        values[6] = decoupled ? 1 - learningRate * weightDecay : 1;
    }

    @Override
    void ownHyperParameters(int steps, double[] values) {
        int t = steps + 1;
        values[0] = learningRate / (1 - Math.pow(beta1, t));
        values[1] = Math.sqrt(1 - Math.pow(beta2, t));
    }

    @Override
    List<Node> update(Nodes b, Node p, Node g, List<Node> state, List<Node> h) {
        Node b1 = h.get(0), oneMinusB1 = h.get(1), b2 = h.get(2), oneMinusB2 = h.get(3);
        Node epsilon = h.get(4), l2 = h.get(5), decay = h.get(6), stepSize = h.get(7), correction2 = h.get(8);
        Node grad = b.add(g, b.mul(l2, p));
        Node m = b.add(b.mul(b1, state.get(0)), b.mul(oneMinusB1, grad));
        Node v = b.add(b.mul(b2, state.get(1)), b.mul(oneMinusB2, b.square(grad)));
        Node denominator = b.add(b.div(b.sqrt(v), correction2), epsilon);
        Node updated = b.sub(b.mul(p, decay), b.mul(stepSize, b.div(m, denominator)));
        return List.of(updated, m, v);
    }
}
