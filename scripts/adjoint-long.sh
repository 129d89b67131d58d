#!/usr/bin/env bash
# Long runs of rml adjoint's laws (not in CI): the central-difference law (scalar and tensor programs) and the
# unrolled-AD law on N random stream programs each (default 10000). Needs a build with
# the tests (build/tests/adjoint_tests). Prints RapidCheck's summary of each.
set -euo pipefail
cd "$(dirname "$0")/.."
N="${1:-10000}"
BIN="${ADJOINT_TESTS:-./build/tests/adjoint_tests}"
for law in GradientEqualsCentralDifferencesOfTheOracle TensorGradientEqualsCentralDifferencesOfTheOracle GradientEqualsReverseAdOfTheUnrolledProgram; do
  start=$(date +%s)
  RC_PARAMS="max_success=$N" "$BIN" --gtest_filter="AdjointLaw.$law" | grep -E 'OK, passed|Falsifiable|%|FAILED|PASSED'
  echo "$law: $N programs in $(( $(date +%s) - start )) s"
done
