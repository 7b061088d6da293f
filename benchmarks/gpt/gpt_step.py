# SPDX-License-Identifier: Apache-2.0
# The GPT training step of GptStepBench in PyTorch 1.13 eager: token and position embeddings, LAYERS
# pre-norm causal blocks (dim 256, 4 heads, MLP 1024, tanh GELU), final LayerNorm, a 4096-way
# classifier, mean cross-entropy, AdamW; batch 8 of 128 tokens. Attention is written as
# softmax(q·kᵀ·s + mask)·v (PyTorch 1.13 has no fused CPU kernel). Prints the median step time of
# RUNS timed steps after WARMUP untimed ones, per thread count given: python3 gpt_step.py 1 2
import math, statistics, sys, time
import torch
import torch.nn as nn
import torch.nn.functional as F

VOCAB, CONTEXT, DIM, HEADS, LAYERS, BATCH = 4096, 128, 256, 4, 4, 8
WARMUP, RUNS = 5, 15

class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.norm1, self.norm2 = nn.LayerNorm(DIM), nn.LayerNorm(DIM)
        self.q, self.k, self.v, self.o = (nn.Linear(DIM, DIM) for _ in range(4))
        self.up, self.down = nn.Linear(DIM, 4 * DIM), nn.Linear(4 * DIM, DIM)
        self.register_buffer("mask", torch.full((CONTEXT, CONTEXT), float("-inf")).triu(1))

    def attention(self, x):
        b, t, _ = x.shape
        heads = lambda y: y.view(b, t, HEADS, DIM // HEADS).transpose(1, 2)
        q, k, v = heads(self.q(x)), heads(self.k(x)), heads(self.v(x))
        scores = torch.softmax(q @ k.transpose(-1, -2) / math.sqrt(DIM // HEADS) + self.mask[:t, :t], -1)
        return self.o((scores @ v).transpose(1, 2).reshape(b, t, DIM))

    def forward(self, x):
        x = x + self.attention(self.norm1(x))
        return x + self.down(F.gelu(self.up(self.norm2(x)), approximate="tanh"))

class Gpt(nn.Module):
    def __init__(self):
        super().__init__()
        self.tokens = nn.Embedding(VOCAB, DIM)
        self.positions = nn.Parameter(torch.randn(CONTEXT, DIM) * 0.02)
        self.blocks = nn.ModuleList(Block() for _ in range(LAYERS))
        self.norm, self.head = nn.LayerNorm(DIM), nn.Linear(DIM, VOCAB)

    def forward(self, x):
        h = self.tokens(x) + self.positions[: x.shape[1]]
        for block in self.blocks:
            h = block(h)
        return self.head(self.norm(h))

def main():
    torch.manual_seed(1)
    model = Gpt()
    optimizer = torch.optim.AdamW(model.parameters(), lr=3e-4, weight_decay=0.01)
    x = torch.randint(0, VOCAB, (BATCH, CONTEXT))
    y = torch.randint(0, VOCAB, (BATCH, CONTEXT))

    def step():
        optimizer.zero_grad(set_to_none=True)
        loss = F.cross_entropy(model(x).view(-1, VOCAB), y.view(-1))
        loss.backward()
        optimizer.step()
        return loss.item()

    for threads in [int(t) for t in sys.argv[1:]] or [1]:
        torch.set_num_threads(threads)
        for _ in range(WARMUP):
            step()
        times = []
        for _ in range(RUNS):
            start = time.perf_counter()
            step()
            times.append((time.perf_counter() - start) * 1e3)
        print(f"pytorch {torch.__version__} threads {threads}: median {statistics.median(times):.1f} ms "
              f"(min {min(times):.1f}, max {max(times):.1f}) over {RUNS} steps")

if __name__ == "__main__":
    main()
