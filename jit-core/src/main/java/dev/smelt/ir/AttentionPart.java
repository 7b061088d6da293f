// SPDX-License-Identifier: Apache-2.0
package dev.smelt.ir;

/// Which result of attention `O = softmax(q·kᵀ·scale + mask)·v` a [Node.Attention] is. The forward
/// kernel writes `OUTPUT` and, when a backward needs it, `LOGSUMEXP` beside it; the backward kernel
/// writes the three gradients, recomputing the scores block by block from q, k and the logsumexp.
public enum AttentionPart {
    OUTPUT,     // O = P·v, P = softmax(s), s = q·kᵀ·scale + mask           [… H, T, dv]
    LOGSUMEXP,  // L = max(s) + log Σ exp(s - max(s)), per query row          [… H, T, 1]
    GRAD_Q,     // dq = scale · dS·k, dS = P ∘ (dO·vᵀ - rowsum(dO ∘ O))        [… H, T, d]
    GRAD_K,     // dk = scale · dSᵀ·q, summed over the q heads sharing k     [… Hkv, S, d]
    GRAD_V;     // dv = Pᵀ·dO, summed over the q heads sharing v             [… Hkv, S, dv]

    /// Whether this part reads the forward's output, logsumexp and output gradient.
    public boolean isGradient() { return this == GRAD_Q || this == GRAD_K || this == GRAD_V; }

    @Override
    public String toString() { return name().toLowerCase(java.util.Locale.ROOT); }

    static AttentionPart parse(String text) {
        for (AttentionPart part : values())
            if (part.toString().equals(text)) return part;
        throw new IllegalArgumentException("unknown attention part '" + text + "'");
    }
}
