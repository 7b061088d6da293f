// SPDX-License-Identifier: Apache-2.0
package dev.smelt.kernel;

import dev.smelt.ir.AttentionPart;
import dev.smelt.ir.DType;
import dev.smelt.ir.Storage;

/// Evaluates an [AttentionKernel] work item by work item in double, one query row at a time with
/// the plain two-pass softmax: the reference the vector kernels are checked against, and the
/// [KernelInterpreter]'s evaluation of this kernel form.
public final class AttentionInterpreter implements KernelFunction {
    private final AttentionKernel kernel;

    public AttentionInterpreter(AttentionKernel kernel) { this.kernel = kernel; }

    @Override
    public void run(Object[] buffers, int start, int end) {
        var storages = new Storage[buffers.length];
        for (int i = 0; i < buffers.length; i++) storages[i] = Storage.wrapArray(buffers[i]);
        int blocks = kernel.queryBlocks(), group = kernel.heads() / kernel.kvHeads();
        for (int item = start; item < end; item++) {
            if (!kernel.backward()) {
                int head = item / blocks, first = item % blocks * AttentionKernel.QUERY_BLOCK;
                for (int t = first; t < Math.min(kernel.tokens(), first + AttentionKernel.QUERY_BLOCK); t++) forward(storages, head, t);
                continue;
            }
            int batch = item / kernel.kvHeads(), kv = item % kernel.kvHeads();
            clear(storages, AttentionPart.GRAD_K, item * kernel.sources() * kernel.depth(), kernel.sources() * kernel.depth());
            clear(storages, AttentionPart.GRAD_V, item * kernel.sources() * kernel.valueDepth(), kernel.sources() * kernel.valueDepth());
            for (int head = (batch * kernel.heads() + kv * group); head < batch * kernel.heads() + (kv + 1) * group; head++) {
                clear(storages, AttentionPart.GRAD_Q, head * kernel.tokens() * kernel.depth(), kernel.tokens() * kernel.depth());
                for (int t = 0; t < kernel.tokens(); t++) backward(storages, head, item, t);
            }
        }
    }

    // s[j] for query t of head `head` (batch·H + h): scaled, masked; -inf where masked.
    private double[] scores(Storage[] buffers, int head, int t) {
        int d = kernel.depth(), kvHead = kvHead(head), sources = kernel.sources();
        double[] s = new double[sources];
        for (int j = 0; j < sources; j++) {
            double dot = 0;
            for (int i = 0; i < d; i++) dot += buffers[0].get((head * kernel.tokens() + t) * d + i) * buffers[1].get(kernel.keyRow(kvHead, j) + i * kernel.keyFeatureStride());
            s[j] = kernel.dtype().round(kernel.dtype().round(dot) * kernel.scale());
            if (kernel.causal() && j > t) s[j] = Double.NEGATIVE_INFINITY;
            if (kernel.maskType() != null) {
                double mask = buffers[kernel.backward() ? 6 : 3].get(maskIndex(head, t, j));
                s[j] = kernel.maskType() == DType.BOOL ? (mask != 0 ? s[j] : Double.NEGATIVE_INFINITY) : s[j] + mask;
            }
        }
        return s;
    }

    private void forward(Storage[] buffers, int head, int t) {
        double[] s = scores(buffers, head, t);
        double max = Double.NEGATIVE_INFINITY, sum = 0;
        for (double x : s) max = x != x || max != max ? Double.NaN : Math.max(max, x);
        for (double x : s) sum += Math.exp(x - max);
        int dv = kernel.valueDepth(), kvHead = kvHead(head), out = buffers.length - kernel.parts().size();
        for (int c = 0; c < dv; c++) {
            double value = 0;
            for (int j = 0; j < s.length; j++) value += Math.exp(s[j] - max) / sum * buffers[2].get(kernel.valueRow(kvHead, j) + c);
            buffers[out + kernel.output(AttentionPart.OUTPUT)].set((head * kernel.tokens() + t) * dv + c, value);
        }
        int lse = kernel.output(AttentionPart.LOGSUMEXP);
        if (lse >= 0) buffers[out + lse].set(head * kernel.tokens() + t, max + Math.log(sum));
    }

    // dS = P ∘ (dO·vᵀ - rowsum(dO ∘ O)); dq += scale·dS·k, dk += scale·dSᵀ·q, dv += Pᵀ·dO.
    private void backward(Storage[] buffers, int head, int kvHead, int t) {
        double[] s = scores(buffers, head, t);
        int d = kernel.depth(), dv = kernel.valueDepth(), row = head * kernel.tokens() + t, out = buffers.length - kernel.parts().size();
        double rowDot = 0;
        for (int c = 0; c < dv; c++) rowDot += buffers[5].get(row * dv + c) * buffers[3].get(row * dv + c);
        for (int j = 0; j < s.length; j++) {
            double p = Math.exp(s[j] - buffers[4].get(row)), dp = 0;
            int key = kvHead * kernel.sources() + j;
            for (int c = 0; c < dv; c++) dp += buffers[5].get(row * dv + c) * buffers[2].get(kernel.valueRow(kvHead, j) + c);
            boolean dropped = kernel.maskType() == DType.BOOL && buffers[6].get(maskIndex(head, t, j)) == 0;
            double ds = dropped ? 0 : p * (dp - rowDot);
            add(buffers, out, AttentionPart.GRAD_V, key * dv, dv, p, buffers[5], row * dv);
            add(buffers, out, AttentionPart.GRAD_K, key * d, d, ds * kernel.scale(), buffers[0], row * d);
            add(buffers, out, AttentionPart.GRAD_Q, row * d, d, ds * kernel.scale(), buffers[1], kernel.keyRow(kvHead, j));
        }
    }

    // target[at + i] += factor · source[from + i], for the part's output if the kernel writes it.
    private void add(Storage[] buffers, int out, AttentionPart part, int at, int count, double factor, Storage source, int from) {
        int index = kernel.output(part);
        if (index < 0) return;
        for (int i = 0; i < count; i++) buffers[out + index].set(at + i, buffers[out + index].get(at + i) + factor * source.get(from + i));
    }

    private void clear(Storage[] buffers, AttentionPart part, int at, int count) {
        int index = kernel.output(part);
        if (index < 0) return;
        for (int i = 0; i < count; i++) buffers[buffers.length - kernel.parts().size() + index].set(at + i, 0);
    }

    private int kvHead(int head) {
        int heads = kernel.heads();
        return head / heads * kernel.kvHeads() + head % heads / (heads / kernel.kvHeads());
    }

    private int maskIndex(int head, int t, int j) {
        var strides = kernel.maskStrides();
        int rank = kernel.scores().rank(), index = t * strides.get(rank - 2) + j * strides.get(rank - 1);
        for (int axis = rank - 3; axis >= 0; axis--) {
            index += head % kernel.scores().dim(axis) * strides.get(axis);
            head /= kernel.scores().dim(axis);
        }
        return index;
    }
}
