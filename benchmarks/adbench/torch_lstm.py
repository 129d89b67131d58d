#!/usr/bin/python3
"""PyTorch CPU baseline of the ADBench LSTM objective and its gradient: the
diagonal LSTM of docs/design/anchors-ad.md §2 written with torch tensors (float64, one
thread), the gradient by autograd (loss.backward()) w.r.t. main_params and extra_params.
Not run in CI (Debian's python3-torch, /usr/bin/python3):

    /usr/bin/python3 benchmarks/adbench/torch_lstm.py data/adbench/lstm/lstm_l2_c1024.txt [REPEATS]

It checks the objective against the file's known value when it is ADBench's test file,
and prints the minimum seconds of the objective and of objective + gradient over REPEATS
(default 5), to compare with bench_lstm (benchmarks/adbench/README.md)."""
import sys
import time

import torch


def read(path):
    toks = open(path).read().split()
    l, c, b = int(toks[0]), int(toks[1]), int(toks[2])
    vals = [float(t) for t in toks[3:]]
    pos = 0

    def take(n):
        nonlocal pos
        out = torch.tensor(vals[pos:pos + n], dtype=torch.float64)
        pos += n
        return out
    main = take(8 * l * b).reshape(2 * l, 4 * b)
    extra = take(3 * b).reshape(3, b)
    state = take(2 * l * b).reshape(2 * l, b)
    seq = take(c * b).reshape(c, b)
    return l, c, b, main, extra, state, seq


def objective(l, c, b, main, extra, state, seq):
    h = [state[2 * k] for k in range(l)]
    cell = [state[2 * k + 1] for k in range(l)]
    total = torch.zeros((), dtype=torch.float64)
    for t in range(c - 1):
        x = seq[t] * extra[0]
        for k in range(l):
            w, bias = main[2 * k].reshape(4, b), main[2 * k + 1].reshape(4, b)
            forget = torch.sigmoid(x * w[0] + bias[0])
            ingate = torch.sigmoid(h[k] * w[1] + bias[1])
            outgate = torch.sigmoid(x * w[2] + bias[2])
            change = torch.tanh(h[k] * w[3] + bias[3])
            cell[k] = cell[k] * forget + ingate * change
            h[k] = outgate * torch.tanh(cell[k])
            x = h[k]
        y = x * extra[1] + extra[2]
        lse = torch.log(torch.exp(y).sum() + 2)
        total = total + (seq[t + 1] * (y - lse)).sum()
    return -total / ((c - 1) * b)


def main():
    if len(sys.argv) not in (2, 3):
        print(__doc__, file=sys.stderr)
        return 2
    torch.set_num_threads(1)
    l, c, b, m, e, s, seq = read(sys.argv[1])
    reps = int(sys.argv[2]) if len(sys.argv) == 3 else 5
    t_obj, t_grad = float("inf"), float("inf")
    for _ in range(reps):
        t0 = time.process_time()
        with torch.no_grad():
            v = objective(l, c, b, m, e, s, seq)
        t_obj = min(t_obj, time.process_time() - t0)
        mm, ee = m.clone().requires_grad_(), e.clone().requires_grad_()
        t0 = time.process_time()
        loss = objective(l, c, b, mm, ee, s, seq)
        loss.backward()
        t_grad = min(t_grad, time.process_time() - t0)
    g = torch.cat([mm.grad.reshape(-1), ee.grad.reshape(-1)])
    print(f"{sys.argv[1]}: l={l} c={c} objective {v.item():.10f}, gradient[0] {g[0].item():.6e} ({g.numel()} entries)")
    print(f"torch CPU, 1 thread, min of {reps}: objective {t_obj * 1e3:.1f} ms, objective+gradient {t_grad * 1e3:.1f} ms "
          f"(ratio {t_grad / t_obj:.2f})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
