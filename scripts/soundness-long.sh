#!/usr/bin/env bash
# The long soundness run of rml-check (issue 17, not run by CI): the soundness properties
# that CI samples (CheckSoundness.BackwardChainsWithCutsRespectTheirHorizon over the hard
# shapes, CheckSoundness.AcceptedProgramsRunWithoutErrorsOrUnknowns,
# CheckProperties.ProvedPropertiesHoldAndRefutationsReplay and
# CheckCounterexamples.ReproduceInTheOracle) over N random programs each
# (default 10000), every case checked, on a Release build. Prints RapidCheck's tag table
# (acceptance rate by shape) and exits non-zero on any violation.
set -euo pipefail
cd "$(dirname "$0")/.."
N="${1:-10000}"
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j "${RML_JOBS:-$(nproc)}" --target check_tests
RML_ALL_CASES=1 RC_PARAMS="max_success=${N}" ./build/tests/check_tests \
  --gtest_filter='CheckSoundness.BackwardChainsWithCutsRespectTheirHorizon:CheckSoundness.AcceptedProgramsRunWithoutErrorsOrUnknowns:CheckProperties.ProvedPropertiesHoldAndRefutationsReplay:CheckCounterexamples.ReproduceInTheOracle'
