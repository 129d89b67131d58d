#!/usr/bin/python3
"""The MLP of benchmarks/mlp (784-256-10, relu hidden layer, softmax cross-entropy
averaged over a batch of 64, float64) in PyTorch CPU, one thread: the time of the loss
(forward) and of the loss plus its gradient w.r.t. the parameters (forward + backward),
as minimums over repetitions, the statistic bench_mlp reports for our path.

Run by hand (Debian's python3-torch is installed for /usr/bin/python3, not for a pyenv
python3 earlier on PATH):
    /usr/bin/python3 benchmarks/mlp/torch_mlp.py [--repeats 30] [--json]
benchmarks/mlp/compare.sh runs it next to bench_mlp and prints the ratio. Not run in CI.
"""
import argparse
import json
import sys
import time

import torch

IN, HIDDEN, OUT, BATCH = 784, 256, 10, 64


def make(seed=0):
    g = torch.Generator().manual_seed(seed)
    f64 = torch.float64

    def glorot(rows, cols):  # same scale as the prelude's glorot_uniform
        lim = (6.0 / (rows + cols)) ** 0.5
        return ((torch.rand(rows, cols, generator=g, dtype=f64) * 2 - 1) * lim).requires_grad_()

    params = {
        "w1": glorot(HIDDEN, IN),
        "b1": torch.zeros(HIDDEN, dtype=f64).uniform_(-0.1, 0.1, generator=g).requires_grad_(),
        "w2": glorot(OUT, HIDDEN),
        "b2": torch.zeros(OUT, dtype=f64).uniform_(-0.1, 0.1, generator=g).requires_grad_(),
    }
    x = torch.rand(BATCH, IN, generator=g, dtype=f64)
    labels = torch.randint(0, OUT, (BATCH,), generator=g)
    return params, x, labels


def loss_fn(p, x, labels):
    h = torch.relu(x @ p["w1"].T + p["b1"])
    logits = h @ p["w2"].T + p["b2"]
    return torch.nn.functional.cross_entropy(logits, labels)  # mean over the batch


def timed(fn, repeats, inner):
    """Minimum per-call CPU time and wall time over `repeats` samples of `inner` calls.
    CPU time (process_time) is the figure compared with bench_mlp's: the machine is
    shared, and with one thread it is the time the computation itself took."""
    best_cpu = best_wall = float("inf")
    for _ in range(repeats):
        c0, w0 = time.process_time(), time.perf_counter()
        for _ in range(inner):
            fn()
        best_cpu = min(best_cpu, (time.process_time() - c0) / inner)
        best_wall = min(best_wall, (time.perf_counter() - w0) / inner)
    return best_cpu, best_wall


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=30)
    ap.add_argument("--inner", type=int, default=20, help="calls per timed sample")
    ap.add_argument("--json", action="store_true", help="one JSON object on stdout")
    a = ap.parse_args()
    torch.set_num_threads(1)
    p, x, labels = make()
    params = list(p.values())

    def forward():
        with torch.no_grad():
            return loss_fn(p, x, labels)

    def gradient():
        for q in params:
            q.grad = None
        loss = loss_fn(p, x, labels)
        loss.backward()
        return loss

    for _ in range(5):  # warm-up (allocator, dispatch caches)
        forward()
        gradient()
    (t_fwd, w_fwd), (t_grad, w_grad) = timed(forward, a.repeats, a.inner), timed(gradient, a.repeats, a.inner)
    # Debian's torch calls the system BLAS (BLAS_INFO=generic): the reference BLAS unless
    # an optimised one (OpenBLAS, BLIS) is installed as the libblas.so.3 alternative.
    cfg = torch.__config__.show()
    blas = cfg.split("BLAS_INFO=")[1].split(",")[0] if "BLAS_INFO=" in cfg else "?"
    out = {"torch": torch.__version__, "threads": torch.get_num_threads(), "dtype": "float64", "blas": blas,
           "forward_ms": t_fwd * 1e3, "gradient_ms": t_grad * 1e3,
           "forward_wall_ms": w_fwd * 1e3, "gradient_wall_ms": w_grad * 1e3}
    if a.json:
        json.dump(out, sys.stdout)
        print()
    else:
        print(f"PyTorch {out['torch']} CPU (BLAS_INFO={blas}), {out['threads']} thread, float64, "
              f"MLP {IN}-{HIDDEN}-{OUT} batch {BATCH}")
        print(f"  loss (forward)            {out['forward_ms']:.4f} ms CPU, {w_fwd * 1e3:.4f} ms wall "
              f"(min of {a.repeats} x {a.inner})")
        print(f"  loss + gradient (fwd+bwd) {out['gradient_ms']:.4f} ms CPU, {w_grad * 1e3:.4f} ms wall")
    return 0


if __name__ == "__main__":
    sys.exit(main())
