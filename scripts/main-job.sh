#!/usr/bin/env bash
# README command 1: install dependencies, build, and run the main job: check every
# program of the reference corpus against its recorded verdict and show the elaborated
# form of a paper example (Figure 4: app with dense and multiply inlined) and the
# oracle's chronogram of Figure 16 (backfill).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j "${RML_JOBS:-$(nproc)}" --target rml rml-check
printf '\n=== reference corpus: front-end verdicts (reference/NOTES.md explains each)\n'
./build/src/rml corpus reference
printf '\n=== Figure 4: app (Figure 3) after inlining and normalisation\n'
./build/src/rml parse --normalized --main app reference/paper/fig03_gradient_descent.rml
printf '\n=== Figure 16: backfill, computed by the oracle (the paper prints o = 8 8 8 5 4 4)\n'
./build/src/rml run reference/paper/fig16_backfill.rml --inputs reference/paper/fig16_backfill.trace.csv
printf '\n=== rml-check on Figure 16: not productive alone; productive if bp recurs within 5 cycles\n'
./build/src/rml-check reference/paper/fig16_backfill.rml --timeout 20 | head -n 8 || true
./build/src/rml-check reference/paper/fig16_backfill.rml --assume 'always eventually bp within 5'
printf '\n=== ADBench GMM (reference/adbench/gmm.rml) on gmm/test.txt: value (ADBench: 8.07380408004975791) and gradient, compiled path\n'
benchmarks/adbench/to_json gmm data/adbench/gmm/test.txt > build/gmm_test_args.json
./build/src/rml grad reference/adbench/gmm.rml --fun gmm_objective --at build/gmm_test_args.json
