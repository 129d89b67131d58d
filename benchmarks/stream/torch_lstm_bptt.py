#!/usr/bin/python3
"""PyTorch CPU baseline of the Figure 20 training program: an LSTM cell of
UNITS units on SIZEX inputs, trained by truncated BPTT every END cycles (the gradient of
the sum of h . dh_next over each sequence, SGD on the cell's parameters), float64, one
thread. Not run in CI: `/usr/bin/python3 benchmarks/stream/torch_lstm_bptt.py [UNITS SIZEX CYCLES END]`.

It prints seconds for CYCLES cycles and per cycle, to compare with
`rml run --backend stream` on the same shapes (benchmarks/stream/README.md)."""
import sys
import time

import torch


def main():
    units, sizex, cycles, end = (int(a) for a in (sys.argv[1:5] + ["64", "32", "2000", "5"][len(sys.argv[1:5]):]))
    torch.set_num_threads(1)
    torch.manual_seed(0)
    cell = torch.nn.LSTMCell(sizex, units).double()
    opt = torch.optim.SGD(cell.parameters(), lr=0.01)
    xs = torch.rand(cycles, sizex, dtype=torch.float64) * 2 - 1
    dh = (torch.rand(cycles, units, dtype=torch.float64) * 2 - 1) * 0.1
    h = torch.zeros(1, units, dtype=torch.float64)
    c = torch.zeros(1, units, dtype=torch.float64)
    start = time.perf_counter()
    loss = 0
    for n in range(cycles):
        h, c = cell(xs[n:n + 1], (h, c))
        loss = loss + (h * dh[n:n + 1]).sum()
        if n % end == end - 1:  # a sequence ends: backward through it, step, cut the graph
            opt.zero_grad()
            loss.backward()
            opt.step()
            h, c, loss = h.detach(), c.detach(), 0
    seconds = time.perf_counter() - start
    print(f"torch LSTMCell units={units} sizex={sizex} cycles={cycles} end every {end}: "
          f"{seconds:.3f} s, {1e3 * seconds / cycles:.3f} ms per cycle")


if __name__ == "__main__":
    main()
