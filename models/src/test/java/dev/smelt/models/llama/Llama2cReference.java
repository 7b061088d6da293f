// SPDX-License-Identifier: Apache-2.0
package dev.smelt.models.llama;

/// llama2.c's `forward` (run.c) ported line by line to Java floats, one token at a time with a KV
/// cache: the oracle the Smelt model is checked against.
final class Llama2cReference {
    private final Llama2Config p;
    private final float[] embedding, rmsFinal, classifier;
    private final float[][] rmsAtt, wq, wk, wv, wo, rmsFfn, w1, w2, w3;
    private final float[][] keyCache, valueCache; // [layer][pos * kvDim + i]

    Llama2cReference(Llama2Checkpoint weights) {
        p = weights.config();
        embedding = weights.tokenEmbedding().toFloatArray();
        rmsFinal = weights.rmsFinal().toFloatArray();
        classifier = weights.classifier().toFloatArray();
        int layers = p.layers();
        rmsAtt = new float[layers][]; wq = new float[layers][]; wk = new float[layers][]; wv = new float[layers][]; wo = new float[layers][];
        rmsFfn = new float[layers][]; w1 = new float[layers][]; w2 = new float[layers][]; w3 = new float[layers][];
        for (int l = 0; l < layers; l++) {
            var layer = weights.layers().get(l);
            rmsAtt[l] = layer.rmsAttention().toFloatArray(); wq[l] = layer.wq().toFloatArray(); wk[l] = layer.wk().toFloatArray();
            wv[l] = layer.wv().toFloatArray(); wo[l] = layer.wo().toFloatArray(); rmsFfn[l] = layer.rmsFeedForward().toFloatArray();
            w1[l] = layer.w1().toFloatArray(); w2[l] = layer.w2().toFloatArray(); w3[l] = layer.w3().toFloatArray();
        }
        keyCache = new float[layers][p.seqLen() * p.kvDim()];
        valueCache = new float[layers][p.seqLen() * p.kvDim()];
    }

    /// The logits for `token` at `pos`, after tokens 0..pos-1 went through this object in order.
    float[] forward(int token, int pos) {
        int dim = p.dim(), kvDim = p.kvDim(), kvMul = p.heads() / p.kvHeads(), hidden = p.hiddenDim(), headSize = p.headSize();
        float[] x = new float[dim], xb = new float[dim], xb2 = new float[dim], hb = new float[hidden], hb2 = new float[hidden];
        float[] q = new float[dim], att = new float[p.seqLen()];
        System.arraycopy(embedding, token * dim, x, 0, dim);
        for (int l = 0; l < p.layers(); l++) {
            rmsnorm(xb, x, rmsAtt[l], dim);
            float[] k = new float[kvDim], v = new float[kvDim];
            matmul(q, xb, wq[l], dim, dim);
            matmul(k, xb, wk[l], dim, kvDim);
            matmul(v, xb, wv[l], dim, kvDim);
            for (int i = 0; i < dim; i += 2) {
                int headDim = i % headSize;
                float freq = 1.0f / (float) Math.pow(10000.0f, headDim / (float) headSize);
                float val = pos * freq, fcr = (float) Math.cos(val), fci = (float) Math.sin(val);
                int rotations = i < kvDim ? 2 : 1;
                for (int r = 0; r < rotations; r++) {
                    float[] vec = r == 0 ? q : k;
                    float v0 = vec[i], v1 = vec[i + 1];
                    vec[i] = v0 * fcr - v1 * fci;
                    vec[i + 1] = v0 * fci + v1 * fcr;
                }
            }
            System.arraycopy(k, 0, keyCache[l], pos * kvDim, kvDim);
            System.arraycopy(v, 0, valueCache[l], pos * kvDim, kvDim);
            for (int h = 0; h < p.heads(); h++) {
                for (int t = 0; t <= pos; t++) {
                    float score = 0;
                    for (int i = 0; i < headSize; i++) score += q[h * headSize + i] * keyCache[l][t * kvDim + (h / kvMul) * headSize + i];
                    att[t] = score / (float) Math.sqrt(headSize);
                }
                softmax(att, pos + 1);
                for (int i = 0; i < headSize; i++) {
                    float sum = 0;
                    for (int t = 0; t <= pos; t++) sum += att[t] * valueCache[l][t * kvDim + (h / kvMul) * headSize + i];
                    xb[h * headSize + i] = sum;
                }
            }
            matmul(xb2, xb, wo[l], dim, dim);
            for (int i = 0; i < dim; i++) x[i] += xb2[i];
            rmsnorm(xb, x, rmsFfn[l], dim);
            matmul(hb, xb, w1[l], dim, hidden);
            matmul(hb2, xb, w3[l], dim, hidden);
            for (int i = 0; i < hidden; i++) hb[i] = hb[i] * (1.0f / (1.0f + (float) Math.exp(-hb[i]))) * hb2[i];
            matmul(xb, hb, w2[l], hidden, dim);
            for (int i = 0; i < dim; i++) x[i] += xb[i];
        }
        rmsnorm(x, x, rmsFinal, dim);
        float[] logits = new float[p.vocab()];
        matmul(logits, x, classifier, dim, p.vocab());
        return logits;
    }

    private static void rmsnorm(float[] o, float[] x, float[] weight, int size) {
        float ss = 0;
        for (int j = 0; j < size; j++) ss += x[j] * x[j];
        ss /= size;
        ss += 1e-5f;
        ss = 1.0f / (float) Math.sqrt(ss);
        for (int j = 0; j < size; j++) o[j] = weight[j] * (ss * x[j]);
    }

    private static void softmax(float[] x, int size) {
        float max = x[0];
        for (int i = 1; i < size; i++) max = Math.max(max, x[i]);
        float sum = 0;
        for (int i = 0; i < size; i++) sum += x[i] = (float) Math.exp(x[i] - max);
        for (int i = 0; i < size; i++) x[i] /= sum;
    }

    // W (d, n) @ x (n,) -> xout (d,)
    private static void matmul(float[] out, float[] x, float[] w, int n, int d) {
        for (int i = 0; i < d; i++) {
            float val = 0;
            for (int j = 0; j < n; j++) val += w[i * n + j] * x[j];
            out[i] = val;
        }
    }
}
