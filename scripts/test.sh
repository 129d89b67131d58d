#!/usr/bin/env bash
# README command 2 (what CI runs): install dependencies, build the release configuration and
# run the whole test suite through CTest, then build the libFuzzer targets under clang +
# AddressSanitizer/UBSan and fuzz the front end and the input readers for a bounded time.
# Exits non-zero on any failure. The whole suite under the sanitizers is
# scripts/sanitizers.sh, run before a change lands rather than on every CI run: on two cores
# each configuration's build takes ~9 min and each run of the suite ~10 min, and two of
# each do not fit CI's 25 minutes. For the same reason CI does not build the benchmarks
# (RML_BENCHMARKS=OFF: a tenth of the build); every other build does, and runs their smoke
# tests (`ctest -L bench`).
set -euo pipefail
cd "$(dirname "$0")/.."
FUZZ_SECONDS="${RML_FUZZ_SECONDS:-24}"
READER_FUZZ_SECONDS="${RML_READER_FUZZ_SECONDS:-6}"  # each of the four input readers
. scripts/lib/common.sh

step "dependencies"
bash scripts/install-deps.sh

step "release build (g++, -O3 -march=x86-64-v3)"
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DRML_BENCHMARKS=OFF "${UNITY[@]}" >/dev/null
cmake --build build -j "$JOBS"
step "tests (release)"
seed_costs build scripts/ctest-costs/release.txt
RC_PARAMS="$(rc_params)" ctest --test-dir build --output-on-failure -j "$JOBS"

step "fuzz targets with clang, AddressSanitizer and UndefinedBehaviorSanitizer"
configure_sanitized
cmake --build build-asan -j "$JOBS" --target "${FUZZ_TARGETS[@]}"

step "fuzzing (libFuzzer, ASan+UBSan): the front end ${FUZZ_SECONDS} s beside the input readers ${READER_FUZZ_SECONDS} s each"
# Two lanes, one a core: fuzz_frontend on one; rml-check --assume, the CSV and JSON trace
# readers and rml grad --at one after the other on the other. Each target starts from its
# seeds (the front end's: the corpus), adds what it finds to a scratch corpus, and writes
# any finding to build-asan/fuzz-artifacts/. -timeout: one input over 10 s is a hang;
# -rss_limit_mb bounds memory.
mkdir -p build-asan/fuzz-artifacts
scratch=$(mktemp -d)
mkdir -p "$scratch/seeds"
cp reference/*/*.rml tests/frontend/diag/*.rml tests/check/ok/*.rml tests/check/ko/*.rml src/prelude/prelude.rml "$scratch/seeds"/
fuzz_for() {  # fuzz_for TARGET SECONDS MAX_LEN SEEDS: its last lines in $scratch/TARGET.log
  mkdir -p "$scratch/corpus-$1"
  if ./build-asan/tests/fuzz/"$1" -max_total_time="$2" -timeout=10 -rss_limit_mb=2048 -max_len="$3" -print_final_stats=1 \
       -artifact_prefix=build-asan/fuzz-artifacts/"$1"- "$scratch/corpus-$1" "$4" > "$scratch/$1.log" 2>&1; then
    echo "$1: no crash, hang or sanitizer report in $2 s" >> "$scratch/$1.log"
  else
    echo "$1: FAILED (its input is in build-asan/fuzz-artifacts/)" >> "$scratch/$1.log"
    return 1
  fi
}
readers() {
  local status=0
  fuzz_for fuzz_assume "$READER_FUZZ_SECONDS" 4096 tests/fuzz/seeds/fuzz_assume || status=1
  for t in fuzz_trace_csv fuzz_trace_json fuzz_grad_at; do
    fuzz_for "$t" "$READER_FUZZ_SECONDS" 8192 tests/fuzz/seeds/"$t" || status=1
  done
  return $status
}
fuzz_for fuzz_frontend "$FUZZ_SECONDS" 65536 "$scratch/seeds" & frontend=$!
status=0
readers || status=1
wait "$frontend" || status=1
for t in "${FUZZ_TARGETS[@]}"; do
  printf '\n--- %s\n' "$t"
  tail -n 12 "$scratch/$t.log"
done
rm -rf "$scratch"
exit $status
