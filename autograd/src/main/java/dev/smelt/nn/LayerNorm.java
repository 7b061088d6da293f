// SPDX-License-Identifier: Apache-2.0
package dev.smelt.nn;

import dev.smelt.Tensor;
import dev.smelt.ir.SmeltException;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Collectors;

/// Layer normalisation over the trailing axes `normalizedShape`, as `torch.nn.LayerNorm`:
/// `(x - mean) / √(var + eps) · weight + bias`, with the biased variance, `weight` starting at
/// ones and `bias` at zeros (both of the normalized shape), or neither without elementwise affine.
/// The input's trailing axes must equal `normalizedShape`; the leading ones are any.
public final class LayerNorm implements Module {
    private final int[] normalizedShape;
    private final double eps;
    private final Parameter weight, bias;

    /// PyTorch's defaults: `eps = 1e-5`, elementwise affine.
    public LayerNorm(int... normalizedShape) { this(normalizedShape, 1e-5, true); }

    /// Normalises over the trailing axes `normalizedShape` (positive sizes), adding `eps ≥ 0` to the
    /// variance; with `elementwiseAffine`, a learnable weight and bias of that shape.
    public LayerNorm(int[] normalizedShape, double eps, boolean elementwiseAffine) {
        if (normalizedShape == null || normalizedShape.length == 0)
            throw SmeltException.of("LayerNorm", "the normalized shape must name at least one axis size, got %s", Arrays.toString(normalizedShape));
        for (int size : normalizedShape)
            if (size <= 0) throw SmeltException.of("LayerNorm", "normalized shape %s must have positive sizes", Arrays.toString(normalizedShape));
        if (!(eps >= 0) || Double.isInfinite(eps)) throw SmeltException.of("LayerNorm", "eps must be finite and ≥ 0, got %s", eps);
        this.normalizedShape = normalizedShape.clone();
        this.eps = eps;
        this.weight = elementwiseAffine ? new Parameter("weight", Tensor.ones(normalizedShape)) : null;
        this.bias = elementwiseAffine ? new Parameter("bias", Tensor.zeros(normalizedShape)) : null;
    }

    /// The scale, or null without elementwise affine.
    public Parameter weight() { return weight; }

    /// The shift, or null without elementwise affine.
    public Parameter bias() { return bias; }

    /// The value added to the variance.
    public double eps() { return eps; }

    @Override
    public Tensor forward(Tensor x) {
        return Module.input("LayerNorm", x).layerNorm(normalizedShape, weight == null ? null : weight.value(), bias == null ? null : bias.value(), eps);
    }

    @Override
    public List<Parameter> parameters() { return weight == null ? List.of() : List.of(weight, bias); }

    /// `LayerNorm((64,), eps=1e-05, elementwise_affine=True)`.
    @Override
    public String toString() {
        String shape = Arrays.stream(normalizedShape).mapToObj(String::valueOf).collect(Collectors.joining(", ", "(", normalizedShape.length == 1 ? ",)" : ")"));
        return "LayerNorm(%s, eps=%s, elementwise_affine=%s)".formatted(shape, Repr.of(eps), Repr.of(weight != null));
    }
}
