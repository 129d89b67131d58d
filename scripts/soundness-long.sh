#!/usr/bin/env bash
# The long soundness run of rml-check (not run by CI): the soundness properties
# that CI samples (CheckSoundness.BackwardChainsWithCutsRespectTheirHorizon over the hard
# shapes, CheckSoundness.AcceptedProgramsRunWithoutErrorsOrUnknowns,
# CheckProperties.ProvedPropertiesHoldAndRefutationsReplay,
# CheckCounterexamples.ReproduceInTheOracle and
# IntEncoding.ProvedPropertiesHoldAtTheExtremesAndTheEncodingsAgree,
# Portfolio.TwoLanesKeepTheOneLaneVerdictAndProveOnlyWhatHolds,
# PreAny.ProvedPropertiesAreNeverFalseAndRefutationsReplayAsFalse,
# CheckSoundness.ProvedInitialisationHasNoNilOutput, MayBeNil.AVariableItLeavesOutIsNeverNil)
# over N random programs each, then rml
# compile's and the stream path's differential tests at full size (tests/stream), and the
# native run's law (tests/api)
# (default 10000), every case checked, on a Release build. Prints RapidCheck's tag table
# (acceptance rate by shape) and exits non-zero on any violation.
set -euo pipefail
cd "$(dirname "$0")/.."
N="${1:-10000}"
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j "${RML_JOBS:-$(nproc)}" --target check_tests stream_tests api_tests
RML_ALL_CASES=1 RC_PARAMS="max_success=${N}" ./build/tests/check_tests \
  --gtest_filter='CheckSoundness.BackwardChainsWithCutsRespectTheirHorizon:CheckSoundness.AcceptedProgramsRunWithoutErrorsOrUnknowns:CheckProperties.ProvedPropertiesHoldAndRefutationsReplay:CheckCounterexamples.ReproduceInTheOracle:IntEncoding.ProvedPropertiesHoldAtTheExtremesAndTheEncodingsAgree:Portfolio.TwoLanesKeepTheOneLaneVerdictAndProveOnlyWhatHolds:DifferenceBounds.ProvedBoundsHoldOnRunsThatReachTheCeilings:PreAny.ProvedPropertiesAreNeverFalseAndRefutationsReplayAsFalse:CheckSoundness.ProvedInitialisationHasNoNilOutput:MayBeNil.AVariableItLeavesOutIsNeverNil'
# rml compile's classes: 100 accepted post-free programs and 40 with post (CI: 20 and 10),
# and the stream runner's differential law over N programs.
RML_ALL_CASES=1 RC_PARAMS="max_success=${N}" ./build/tests/stream_tests --gtest_filter='CompileEqualsOracle.*:StreamEqualsOracle.*'
# rml run --native against the oracle: 60 accepted generated programs (CI: 8).
RML_ALL_CASES=1 ./build/tests/api_tests --gtest_filter='NativeRun.EqualsTheOracleOnGeneratedPrograms'
