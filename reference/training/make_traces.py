#!/usr/bin/env python3
"""Writes the input traces of the training examples (reference/training/README.md).

fig03_sgd.csv: 200 cycles; i uniform in [-1, 1] (seeded), gt_n = (2 i_(n-1) + 1)^2 with
gt_0 = 0, bp true, d_loss = -0.03 (the learning rate, pre-scaled).
lstm_sine.csv: 8-step sequences of a sine; see lstm_sine.rml.
Python 3 standard library only; the output is deterministic.
"""
import math
import random
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent


def fig03(path):
    rng = random.Random(3)
    rows = ["i,gt,bp,d_loss"]
    prev = None
    for n in range(200):
        i = round(rng.uniform(-1, 1), 6)
        gt = 0.0 if prev is None else (2 * prev + 1) ** 2
        rows.append(f"{i!r},{gt!r},T,-0.03")
        prev = i
    path.write_text("\n".join(rows) + "\n")


def lstm_sine(path, sequences=150, steps=8):
    rows = ["x,target,end,bp,d_loss"]
    w = 2 * math.pi / 16  # a period of 16 steps; each sequence starts at a new phase
    for s in range(sequences):
        phase = (5 * s) % 16
        for t in range(steps):
            x = math.sin(w * (phase + t))
            y = math.sin(w * (phase + t + 1))
            rows.append(f"{x!r},{y!r},{'T' if t == steps - 1 else 'F'},T,-0.05")
    path.write_text("\n".join(rows) + "\n")


if __name__ == "__main__":
    fig03(HERE / "fig03_sgd.csv")
    lstm_sine(HERE / "lstm_sine.csv")
    sys.exit(0)
