#!/usr/bin/env bash
# The long differential run (not run by CI): rml diff over N generated programs
# (default 1000) for each built-in back end (the oracle's Kleene solver, the compiled
# path, the stream path) in the paper's syntax, and for the worklist solver on the Lustre
# dialect, on a Release build. Each program is checked by rml-check first (about 0.5 s),
# so 1000 programs take about 10 minutes per back end on one core. Exits non-zero on the
# first difference (with its shrunk counterexample in rml-diff-long/BACKEND/). Last, the
# generator's law (rml-check never refuses a draw) over N draws, each one checked.
set -euo pipefail
cd "$(dirname "$0")/.."
N="${1:-1000}"
SEED="${2:-1}"
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j "${RML_JOBS:-$(nproc)}" --target rml diff_tests
for b in kleene compiled stream; do
  echo "== $b"
  ( time ./build/src/rml diff --count "$N" --seed "$SEED" --backend "$b" -o "rml-diff-long/$b" ) 2>&1
done
echo "== worklist, Lustre dialect"
( time ./build/src/rml diff --count "$N" --seed "$SEED" --dialect lustre --backend worklist -o rml-diff-long/lustre ) 2>&1
echo "== the generator's draws, every one checked"
RML_ALL_CASES=1 RC_PARAMS="max_success=${N}" ./build/tests/diff_tests --gtest_filter='Generator.DrawsAreAcceptedByRmlCheck'
