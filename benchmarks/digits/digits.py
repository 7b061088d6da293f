# SPDX-License-Identifier: Apache-2.0
# The PyTorch side of run.sh: the same run as dev.smelt.benchmarks.Digits (see its comment), in PyTorch 1.13.
import gzip
import sys

import torch

ROWS, TRAIN, BATCH, EPOCHS = 1797, 1437, 32, 30

with gzip.open(sys.argv[1], "rt") as f:
    data = torch.tensor([[int(v) for v in line.split(",")] for line in f], dtype=torch.float32)
data = data[torch.tensor([(i * 1103 + 7) % ROWS for i in range(ROWS)])]  # slot i holds file row (i*1103+7) % 1797
pixels, labels = data[:, :64] / 16, data[:, 64].long()

torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Linear(64, 128), torch.nn.ReLU(), torch.nn.Linear(128, 10))
adam = torch.optim.Adam(model.parameters(), lr=1e-3)
batches = TRAIN // BATCH  # the short last batch is dropped, as in the Java program
for epoch in range(EPOCHS):
    total = 0.0
    for b in range(batches):
        x, y = pixels[b * BATCH:(b + 1) * BATCH], labels[b * BATCH:(b + 1) * BATCH]
        loss = torch.nn.functional.cross_entropy(model(x), y)
        adam.zero_grad()
        loss.backward()
        adam.step()
        total += loss.item()
with torch.no_grad():
    correct = (model(pixels[TRAIN:]).argmax(1) == labels[TRAIN:]).sum().item()
print(f"pytorch: last epoch mean loss {total / batches:.4f}, test accuracy {100 * correct / (ROWS - TRAIN):.1f}%")
