#!/usr/bin/env bash
# Runs bench_mlp (our path and hand-written Eigen) and torch_mlp.py (PyTorch CPU, one
# thread) on the same MLP and prints the ratios of minimum CPU times.
# Usage: benchmarks/mlp/compare.sh [BUILD_DIR] (default build); not run in CI.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
build="${1:-$here/../../build}"
bench="$build/benchmarks/mlp/bench_mlp"
[[ -x "$bench" ]] || { echo "compare.sh: $bench not built (ninja -C $build bench_mlp)" >&2; exit 2; }
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
"$bench" --benchmark_repetitions=5 --benchmark_enable_random_interleaving=true \
  --benchmark_filter='rml_loss|rml_gradient$|eigen_' \
  --benchmark_out="$tmp/rml.json" --benchmark_out_format=json >/dev/null 2>"$tmp/bench.log" || { cat "$tmp/bench.log" >&2; exit 1; }
/usr/bin/python3 "$here/torch_mlp.py" --json >"$tmp/torch.json"
/usr/bin/python3 - "$tmp/rml.json" "$tmp/torch.json" <<'PY'
import json, sys
runs = json.load(open(sys.argv[1]))["benchmarks"]
best = {}
for r in runs:
    if r.get("run_type") != "iteration":
        continue
    scale = {"ns": 1e-6, "us": 1e-3, "ms": 1.0, "s": 1e3}[r["time_unit"]]
    best[r["run_name"]] = min(best.get(r["run_name"], float("inf")), r["cpu_time"] * scale)
t = json.load(open(sys.argv[2]))
print(f"MLP 784-256-10 batch 64, float64, one thread; minimum CPU time per call (ms)")
print(f"{'':30}{'loss':>10}{'loss+grad':>12}")
print(f"{'rml (ours)':30}{best['rml_loss']:10.4f}{best['rml_gradient']:12.4f}")
print(f"{'Eigen (hand-written)':30}{best['eigen_loss']:10.4f}{best['eigen_gradient']:12.4f}")
print(f"{'PyTorch ' + t['torch'] + ' (BLAS ' + t['blas'] + ')':30}{t['forward_ms']:10.4f}{t['gradient_ms']:12.4f}")
print(f"PyTorch / rml: loss {t['forward_ms'] / best['rml_loss']:.2f}x, "
      f"loss+gradient {t['gradient_ms'] / best['rml_gradient']:.2f}x")
print(f"rml / Eigen:   loss {best['rml_loss'] / best['eigen_loss']:.2f}x, "
      f"loss+gradient {best['rml_gradient'] / best['eigen_gradient']:.2f}x")
PY
