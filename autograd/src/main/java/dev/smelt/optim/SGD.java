// SPDX-License-Identifier: Apache-2.0
package dev.smelt.optim;

import dev.smelt.autograd.Nodes;
import dev.smelt.ir.Node;
import dev.smelt.ir.SmeltException;
import dev.smelt.nn.Parameter;
import dev.smelt.nn.Repr;
import java.util.List;

/// Stochastic gradient descent as `torch.optim.SGD`: with weight decay `λ`, momentum `μ`,
/// dampening `τ` and optionally Nesterov momentum,
/// ```
/// g ← g + λ·p
/// b ← g at the buffer's first step, else μ·b + (1-τ)·g
/// p ← p - lr·(nesterov ? g + μ·b : b)                 (μ = 0: p ← p - lr·g, b left as it is)
/// ```
/// The buffer's first step is each parameter's own, as PyTorch starts a buffer at the first step
/// that gives the parameter a gradient while the momentum is not 0; the parameter's step count
/// (`Optimizer.steps(int)`) counts those steps. The first-step case is a runtime scalar of the
/// parameter's own (`b ← a·b + c·g`), so step 1 and step 2 share a program. As in PyTorch, an SGD
/// made without momentum keeps no buffer (no memory, no traffic); its momentum cannot be set
/// later. One made with momentum may change it at any step, 0 included: while it is 0 the step
/// computes the direction as a fresh buffer (`g`) and does not keep it ([#writesState]).
public final class SGD extends Optimizer {
    private double momentum, dampening;
    private final boolean nesterov;

    /// Plain SGD: `p ← p - lr·g`, no momentum buffer.
    public SGD(List<Parameter> parameters, double learningRate) { this(parameters, learningRate, 0, 0, 0, false); }

    /// SGD with the given momentum, dampening, weight decay (all finite and `≥ 0`) and Nesterov
    /// momentum (which needs a momentum and no dampening, as in PyTorch).
    public SGD(List<Parameter> parameters, double learningRate, double momentum, double dampening, double weightDecay, boolean nesterov) {
        super(parameters, momentum > 0 ? List.of("momentum_buffer") : List.of(), momentum > 0 ? List.of("keep", "take") : List.of(), learningRate, weightDecay);
        if (!(momentum >= 0) || !(dampening >= 0) || Double.isInfinite(momentum) || Double.isInfinite(dampening))
            throw SmeltException.of("SGD", "momentum and dampening must be finite and ≥ 0, got %s and %s", momentum, dampening);
        if (nesterov && (momentum == 0 || dampening != 0))
            throw SmeltException.of("SGD", "Nesterov momentum requires a momentum and zero dampening (as PyTorch)");
        this.momentum = momentum;
        this.dampening = dampening;
        this.nesterov = nesterov;
    }

    /// Sets the momentum for the next step, without recompiling; only an SGD made with momentum
    /// has a buffer to apply it to.
    public SGD momentum(double value) {
        if (!(value >= 0) || Double.isInfinite(value)) throw SmeltException.of("SGD", "momentum must be finite and ≥ 0, got %s", value);
        if (value > 0 && state(0).isEmpty()) throw SmeltException.of("SGD", "this SGD was made without momentum and keeps no momentum buffer; make it with a momentum to change it later");
        momentum = value;
        return this;
    }

    /// `SGD (lr=0.1, momentum=0.9, dampening=0, weight_decay=0, nesterov=False)`, its current hyper-parameters.
    @Override
    public String toString() {
        return "SGD (lr=%s, momentum=%s, dampening=%s, weight_decay=%s, nesterov=%s)".formatted(Repr.of(learningRate), Repr.orZero(momentum),
                Repr.orZero(dampening), Repr.orZero(weightDecay), Repr.of(nesterov));
    }

    @Override
    List<String> hyperParameterNames() { return List.of("lr", "weight_decay", "momentum"); }

    @Override
    void hyperParameters(double[] values) {
        values[0] = learningRate;
        values[1] = weightDecay;
        values[2] = momentum;
    }

    /// `keep` and `take` of `b ← keep·b + take·g`: a fresh buffer is `g`, and so is the direction
    /// while μ is 0 (with μ = 0, Nesterov's `g + μ·b` is `g` too).
    @Override
    void ownHyperParameters(int steps, double[] values) {
        boolean fresh = steps == 0 || momentum == 0;
        values[0] = fresh ? 0 : momentum;
        values[1] = fresh ? 1 : 1 - dampening;
    }

    /// While μ is 0 the step's new buffers (then `g`) and counts are not written back, as PyTorch
    /// leaves the buffer alone: the same program runs, so changing μ never recompiles, and the
    /// parameters are still written in place.
    @Override
    boolean writesState() { return momentum != 0; }

    @Override
    List<Node> update(Nodes b, Node p, Node g, List<Node> state, List<Node> h) {
        Node lr = h.get(0), decay = h.get(1), mu = h.get(2);
        Node grad = b.add(g, b.mul(decay, p));                                   // g + λ·p
        if (state.isEmpty()) return List.of(b.sub(p, b.mul(lr, grad)));          // p - lr·g
        Node keep = h.get(3), take = h.get(4);
        Node buffer = b.add(b.mul(keep, state.getFirst()), b.mul(take, grad));   // a·b + c·g
        Node direction = nesterov ? b.add(grad, b.mul(mu, buffer)) : buffer;
        return List.of(b.sub(p, b.mul(lr, direction)), buffer);                  // p - lr·d
    }
}
