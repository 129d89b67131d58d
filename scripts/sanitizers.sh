#!/usr/bin/env bash
# The whole test suite under clang + AddressSanitizer/UndefinedBehaviorSanitizer (Debug, -O1),
# run before a change lands (CI, scripts/test.sh, builds only the fuzz targets in this
# configuration and fuzzes them). Builds build-asan (everything but the benchmarks) and runs
# every CTest test there; exits non-zero on any failure or sanitizer report. The machine-
# checked laws (proofs/) run in the Release configuration only (CMakeLists.txt says why).
#   scripts/sanitizers.sh [CTEST ARGS...]     e.g. -L check to run one group
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib/common.sh

step "dependencies"
bash scripts/install-deps.sh

step "debug build with clang, AddressSanitizer and UndefinedBehaviorSanitizer (tests and fuzz targets)"
configure_sanitized
cmake --build build-asan -j "$JOBS"
step "tests (clang, ASan+UBSan)"
seed_costs build-asan scripts/ctest-costs/asan.txt
# Sanitizers slow the solver-heavy properties ~10x: 25 random cases each here (they look
# for memory and UB errors; the Release run checks the laws on 100).
# scripts/lsan.supp: one allocation inside Z3's Spacer that Z3 never frees (not rml's).
RC_PARAMS="$(rc_params max_success=25)" ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  LSAN_OPTIONS="suppressions=$PWD/scripts/lsan.supp" \
  ctest --test-dir build-asan --output-on-failure -j "$JOBS" "$@"
