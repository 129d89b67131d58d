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
ctest --test-dir build --output-on-failure -j "$JOBS"

step "debug build with clang, AddressSanitizer and UndefinedBehaviorSanitizer"
# -O1 (ASan's own advice) keeps asserts on and runs the solver-heavy tests faster than -O0;
# line tables are all the sanitizers' reports need (full -g costs an eighth more compile time).
# The benchmark executables are built and smoke-tested in the release configuration only.
cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_FLAGS_DEBUG="-gline-tables-only -O1" -DCMAKE_CXX_COMPILER=clang++ \
  -DRML_SANITIZE=ON -DRML_BENCHMARKS=OFF "${UNITY[@]}" >/dev/null
cmake --build build-asan -j "$JOBS"
step "tests (clang, ASan+UBSan)"
seed_costs build-asan scripts/ctest-costs/asan.txt
# Sanitizers slow the solver-heavy properties ~10x: 25 random cases each here (they look
# for memory and UB errors; the Release run above checks the laws on 100).
# scripts/lsan.supp: one allocation inside Z3's Spacer that Z3 never frees (not rml's).
RC_PARAMS="max_success=25" ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  LSAN_OPTIONS="suppressions=$PWD/scripts/lsan.supp" \
  ctest --test-dir build-asan --output-on-failure -j "$JOBS"

step "fuzzing the front end for ${FUZZ_SECONDS} s (libFuzzer, ASan+UBSan)"
# Unity batches and line tables only (all a sanitizer's report needs) halve this build.
cmake -S . -B build-fuzz -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O2 -gline-tables-only -DNDEBUG" \
  -DCMAKE_CXX_COMPILER=clang++ -DRML_FUZZ=ON "${UNITY[@]}" >/dev/null
cmake --build build-fuzz -j "$JOBS" --target fuzz_frontend
seeds=$(mktemp -d)
cp reference/*/*.rml tests/frontend/diag/*.rml tests/check/ok/*.rml tests/check/ko/*.rml src/prelude/prelude.rml "$seeds"/
# -timeout: one input taking over 10 s is a hang; -rss_limit_mb bounds memory.
./build-fuzz/tests/fuzz/fuzz_frontend -max_total_time="$FUZZ_SECONDS" -timeout=10 -rss_limit_mb=2048 \
  -max_len=65536 -print_final_stats=1 "$seeds" 2>&1 | tail -n 15
rm -rf "$seeds"
echo "fuzzing: no crash, hang or sanitizer report in ${FUZZ_SECONDS} s"

step "fuzzing rml-check --assume for ${READER_FUZZ_SECONDS} s (libFuzzer, ASan+UBSan)"
cmake --build build-fuzz -j "$JOBS" --target fuzz_assume fuzz_trace_csv fuzz_trace_json fuzz_grad_at
# Each target starts from its seeds (tests/fuzz/seeds/TARGET); what it adds goes to a
# scratch corpus, findings to build-fuzz/artifacts/.
mkdir -p build-fuzz/artifacts
fuzz_for() {  # fuzz_for TARGET SECONDS MAX_LEN
  local corpus
  corpus=$(mktemp -d)
  ./build-fuzz/tests/fuzz/"$1" -max_total_time="$2" -timeout=10 -rss_limit_mb=2048 -max_len="$3" \
    -print_final_stats=1 -artifact_prefix=build-fuzz/artifacts/"$1"- "$corpus" tests/fuzz/seeds/"$1" 2>&1 | tail -n 5
  rm -rf "$corpus"
}
fuzz_for fuzz_assume "$READER_FUZZ_SECONDS" 4096
echo "fuzzing --assume: no crash, hang or sanitizer report in ${READER_FUZZ_SECONDS} s"

# The input readers (issue 15): CSV and JSON traces, rml grad --at.
for t in fuzz_trace_csv fuzz_trace_json fuzz_grad_at; do
  step "fuzzing $t for ${READER_FUZZ_SECONDS} s (libFuzzer, ASan+UBSan)"
  fuzz_for "$t" "$READER_FUZZ_SECONDS" 8192
  echo "$t: no crash, hang or sanitizer report in ${READER_FUZZ_SECONDS} s"
done
