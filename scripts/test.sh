#!/usr/bin/env bash
# README command 2: install dependencies, build, run the whole test suite through CTest in
# the release configuration and again under clang + AddressSanitizer/UBSan (Debug), then
# fuzz the front end for a bounded time. Exits non-zero on any failure. The machine-checked
# laws (proofs/) run in the Release configuration only (CMakeLists.txt says why).
set -euo pipefail
cd "$(dirname "$0")/.."
FUZZ_SECONDS="${RML_FUZZ_SECONDS:-30}"
READER_FUZZ_SECONDS="${RML_READER_FUZZ_SECONDS:-10}"  # each of the four input readers
JOBS="${RML_JOBS:-$(nproc)}"
START=$(date +%s)
# RapidCheck draws every property's cases from one fixed seed, so a run's verdict does not
# change from one run to the next: a failing property prints a case that fails on every
# machine. RML_RC_SEED=random leaves the seed to RapidCheck (a fresh one each run), as
# scripts/properties-long.sh does over many rounds.
RC_SEED="${RML_RC_SEED:-1129}"
rc_params() {  # rc_params [MORE]: RC_PARAMS for ctest
  local p="$*"
  [ "$RC_SEED" = random ] || p="${p:+$p }seed=$RC_SEED"
  printf '%s' "$p"
}
step() { printf '\n=== %s (at %d s)\n' "$*" $(($(date +%s) - START)); }
# CTest starts the longest tests first when it knows their cost: a fresh build folder gets
# the costs of an earlier run (scripts/ctest-costs/), so that no long test starts last and
# leaves a core idle at the end. Only the order changes.
seed_costs() {  # seed_costs BUILD_DIR COSTS_FILE
  mkdir -p "$1/Testing/Temporary"
  [ -e "$1/Testing/Temporary/CTestCostData.txt" ] || cp "$2" "$1/Testing/Temporary/CTestCostData.txt"
}
trap 'printf "\n=== done in %d s\n" $(($(date +%s) - START))' EXIT

step "dependencies"
bash scripts/install-deps.sh

step "release build (g++, -O3 -march=x86-64-v3)"
# Unity builds (8 sources per compiler run) parse the shared headers once per batch: 38%
# less compile time than one run per file. The developer's build (README) is per file,
# which keeps each file's own includes honest.
UNITY=(-DCMAKE_UNITY_BUILD=ON -DCMAKE_UNITY_BUILD_BATCH_SIZE=8)
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release "${UNITY[@]}" >/dev/null
cmake --build build -j "$JOBS"
step "tests (release)"
seed_costs build scripts/ctest-costs/release.txt
RC_PARAMS="$(rc_params)" ctest --test-dir build --output-on-failure -j "$JOBS"

step "debug build with clang, AddressSanitizer and UndefinedBehaviorSanitizer (tests and fuzz targets)"
# -O1 (ASan's own advice) keeps asserts on and runs the solver-heavy tests faster than -O0;
# line tables are all the sanitizers' reports need (full -g costs an eighth more compile time).
# The benchmark executables are built and smoke-tested in the release configuration only.
# The libFuzzer targets are built here too (RML_FUZZ): one build of the libraries instead of
# a third, with coverage on the libraries they fuzz only (tests/fuzz/CMakeLists.txt).
cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_FLAGS_DEBUG="-gline-tables-only -O1" -DCMAKE_CXX_COMPILER=clang++ \
  -DRML_SANITIZE=ON -DRML_FUZZ=ON -DRML_BENCHMARKS=OFF "${UNITY[@]}" >/dev/null
cmake --build build-asan -j "$JOBS"
step "tests (clang, ASan+UBSan)"
seed_costs build-asan scripts/ctest-costs/asan.txt
# Sanitizers slow the solver-heavy properties ~10x: 25 random cases each here (they look
# for memory and UB errors; the Release run above checks the laws on 100).
# scripts/lsan.supp: one allocation inside Z3's Spacer that Z3 never frees (not rml's).
RC_PARAMS="$(rc_params max_success=25)" ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  LSAN_OPTIONS="suppressions=$PWD/scripts/lsan.supp" \
  ctest --test-dir build-asan --output-on-failure -j "$JOBS"

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
for t in fuzz_frontend fuzz_assume fuzz_trace_csv fuzz_trace_json fuzz_grad_at; do
  printf '\n--- %s\n' "$t"
  tail -n 12 "$scratch/$t.log"
done
rm -rf "$scratch"
exit $status
