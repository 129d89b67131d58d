#!/usr/bin/env bash
# README command 1: install dependencies, build, and run the main job: check every
# program of the reference corpus against its recorded verdict and show the elaborated
# form of a paper example (Figure 4: app with dense and multiply inlined) and the
# oracle's chronogram of Figure 16 (backfill), the ADBench GMM value and gradient, and the
# ADBench LSTM objective and the gradient of the training program rml adjoint derives.
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
./build/src/rml-check reference/paper/fig16_backfill.rml | head -n 8 || true
./build/src/rml-check reference/paper/fig16_backfill.rml --assume 'always eventually bp within 5'
printf '\n=== ADBench GMM (reference/adbench/gmm.rml) on gmm/test.txt: value (ADBench: 8.07380408004975791) and gradient, compiled path\n'
benchmarks/adbench/to_json gmm data/adbench/gmm/test.txt > build/gmm_test_args.json
./build/src/rml grad reference/adbench/gmm.rml --fun gmm_objective --at build/gmm_test_args.json
printf '\n=== ADBench LSTM (reference/adbench/lstm.rml, a stream program over the 1023 characters of lstm_l2_c1024.txt)\n'
printf 'objective at the last cycle (ADBench: 0.66666518):\n'
benchmarks/adbench/to_json lstm data/adbench/lstm/lstm_l2_c1024.txt > build/lstm_trace.json
./build/src/rml run reference/adbench/lstm.rml --inputs build/lstm_trace.json --format csv --show objective | tail -n 1
printf 'its gradient, by the training program rml adjoint derives (BPTT through post chains), at cycle 0:\n'
printf 'd_main (4 x 56) and d_extra (3 x 14) = ADBench'"'"'s 266 gradient entries (tests/adjoint checks them to rho <= 1e-8)\n'
./build/src/rml adjoint reference/adbench/lstm.rml -o build/lstm_train.rml
benchmarks/adbench/to_json lstm data/adbench/lstm/lstm_l2_c1024.txt --derived > build/lstm_train_trace.json
./build/src/rml run build/lstm_train.rml --main adbench_lstm_l2_adjoint --inputs build/lstm_train_trace.json \
  --format json --show d_main,d_extra | python3 -c 'import json, sys; c = json.load(sys.stdin)[0]; print(json.dumps(c))'
