#!/usr/bin/env bash
# The long property run (not run by CI): the whole Release test suite ROUNDS times
# (default 20), each round with fresh RapidCheck seeds and MAX cases per property
# (default 1000, the CI count). CI draws every property's cases from one fixed seed
# (scripts/test.sh), so only runs like this one meet cases CI has not. Stops at the first
# failing round; RapidCheck's output there holds the RC_PARAMS that reproduces the case.
# The cli, bench and downstream labels draw no random cases (or a smoke few) and are left out.
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS="${1:-20}"
MAX="${2:-1000}"
JOBS="${RML_JOBS:-$(nproc)}"
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j "$JOBS"
for r in $(seq 1 "$ROUNDS"); do
  printf '\n=== round %d of %d\n' "$r" "$ROUNDS"
  RC_PARAMS="max_success=$MAX" ctest --test-dir build --output-on-failure -j "$JOBS" -LE '^(cli|bench|downstream)$' ||
    { echo "round $r failed: the RC_PARAMS printed above reproduce it"; exit 1; }
done
echo "all $ROUNDS rounds passed"
