# SPDX-License-Identifier: Apache-2.0
"""PyTorch 1.13 eager beside AttentionBench: softmax(q @ k.transpose(-1, -2) * s, -1) @ v on f32
[1, 12, T, 64], T = 128, 512, 2048, causal or not, one thread and two; forward, and forward plus
backward (q, k, v requiring gradients, the gradient of (out * g).sum()). Median of 15 timed calls
after 3 warm-up calls, in ms, and GFLOP/s of the forward (4·12·T²·64, halved when causal).

    /usr/bin/python3 benchmarks/attention.py
"""
import statistics
import time

import torch


def attention(q, k, v, causal):
    scores = q @ k.transpose(-1, -2) * (1 / 8)
    if causal:
        t = q.shape[-2]
        scores = scores + torch.full((t, t), float("-inf")).triu(1)
    return torch.softmax(scores, -1) @ v


def median_ms(call, runs=15):
    for _ in range(3):
        call()
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        call()
        times.append((time.perf_counter() - start) * 1e3)
    return statistics.median(times)


def main():
    torch.manual_seed(20)
    for threads in (1, 2):
        torch.set_num_threads(threads)
        for tokens in (128, 512, 2048):
            for causal in (False, True):
                q, k, v, g = (torch.randn(1, 12, tokens, 64) for _ in range(4))
                with torch.no_grad():
                    forward = median_ms(lambda: attention(q, k, v, causal))
                leaves = [t.clone().requires_grad_() for t in (q, k, v)]

                def both():
                    out = attention(*leaves, causal)
                    (out * g).sum().backward()
                    for leaf in leaves:
                        leaf.grad = None

                backward = median_ms(both, runs=7 if tokens == 2048 else 15)
                flops = 4 * 12 * tokens * tokens * 64 * (0.5 if causal else 1)
                print(f"threads={threads} T={tokens} causal={causal}: forward {forward:.3f} ms ({flops / forward / 1e6:.1f} GFLOP/s), "
                      f"forward+backward {backward:.3f} ms ({backward / forward:.2f}x)")


if __name__ == "__main__":
    main()
