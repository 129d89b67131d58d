# Shared by scripts/test.sh (CI) and scripts/sanitizers.sh: step headings, the RapidCheck
# seed, CTest's cost files and the sanitizers' build configuration. Sourced, not run.
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
# Unity builds (16 sources per compiler run) parse the shared headers once per batch: 38%
# less compile time than one run per file at 8 a batch, 5% less again at 16. The developer's build (README) is per file,
# which keeps each file's own includes honest.
UNITY=(-DCMAKE_UNITY_BUILD=ON -DCMAKE_UNITY_BUILD_BATCH_SIZE=16)
# The sanitizers' build (build-asan): clang, AddressSanitizer and UndefinedBehaviorSanitizer,
# with the libFuzzer targets (RML_FUZZ) beside the tests, coverage on the libraries they fuzz
# only (tests/fuzz/CMakeLists.txt). -O1 (ASan's own advice) keeps asserts on and runs the
# solver-heavy tests faster than -O0; line tables are all the sanitizers' reports need (full
# -g costs an eighth more compile time). scripts/test.sh builds its fuzz targets only,
# scripts/sanitizers.sh everything but the benchmarks, in the same folder.
configure_sanitized() {
  cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_FLAGS_DEBUG="-gline-tables-only -O1" \
    -DCMAKE_CXX_COMPILER=clang++ -DRML_SANITIZE=ON -DRML_FUZZ=ON -DRML_BENCHMARKS=OFF "${UNITY[@]}" >/dev/null
}
FUZZ_TARGETS=(fuzz_frontend fuzz_assume fuzz_trace_csv fuzz_trace_json fuzz_grad_at)
trap 'printf "\n=== done in %d s\n" $(($(date +%s) - START))' EXIT
