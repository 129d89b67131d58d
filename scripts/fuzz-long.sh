#!/usr/bin/env bash
# The longer fuzz run, outside CI: every libFuzzer target, one after the other,
# one process each, SECONDS seconds each (default 720: 5 targets x 12 min = 1 CPU-hour).
#   scripts/fuzz-long.sh [SECONDS] [LOG_DIR]      (run it under `nice -n 19`)
# Builds build-fuzz (clang, ASan+UBSan), starts each target from its seeds (a scratch copy:
# the corpus it grows stays out of the repository), keeps each log and any crash, hang or
# leak input in LOG_DIR (default build-fuzz/fuzz-long), and ends with one line per target:
# seconds, executions, coverage (edges) and features, findings. Exits 1 on any finding.
set -euo pipefail
cd "$(dirname "$0")/.."
SECONDS_EACH="${1:-720}"
LOG_DIR="$(realpath -m "${2:-build-fuzz/fuzz-long}")"
# RML_FUZZ_TARGETS="a b" runs only those (e.g. again after a fix).
read -r -a TARGETS <<< "${RML_FUZZ_TARGETS:-fuzz_frontend fuzz_assume fuzz_trace_csv fuzz_trace_json fuzz_grad_at}"
mkdir -p "$LOG_DIR"

cmake -S . -B build-fuzz -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_COMPILER=clang++ -DRML_FUZZ=ON >/dev/null
cmake --build build-fuzz -j "${RML_JOBS:-2}" --target "${TARGETS[@]}"

summary="$LOG_DIR/summary.txt"
printf '%-16s %8s %12s %8s %8s  %s\n' target seconds execs cov ft findings > "$summary"
status=0
for t in "${TARGETS[@]}"; do
  corpus="$LOG_DIR/corpus-$t"
  rm -rf "$corpus" && mkdir -p "$corpus"
  if [ "$t" = fuzz_frontend ]; then
    seeds="$LOG_DIR/seeds-$t"
    rm -rf "$seeds" && mkdir -p "$seeds"
    cp reference/*/*.rml tests/frontend/diag/*.rml src/prelude/prelude.rml "$seeds"/
    max_len=65536
  else
    seeds="tests/fuzz/seeds/$t"
    max_len=8192
  fi
  log="$LOG_DIR/$t.log"
  start=$(date +%s)
  set +e
  # -timeout: one input over 10 s is a hang; -rss_limit_mb bounds memory. New inputs go to
  # the scratch corpus (the first directory), findings to LOG_DIR.
  ./build-fuzz/tests/fuzz/"$t" -max_total_time="$SECONDS_EACH" -timeout=10 -rss_limit_mb=2048 -max_len=$max_len \
    -print_final_stats=1 -artifact_prefix="$LOG_DIR/$t-" "$corpus" "$seeds" > "$log" 2>&1
  rc=$?
  set -e
  secs=$(( $(date +%s) - start ))
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
  last=$(grep -E '^#[0-9]+' "$log" | tail -n 1)
  cov=$(sed -n 's/.* cov: \([0-9]*\).*/\1/p' <<< "$last")
  ft=$(sed -n 's/.* ft: \([0-9]*\).*/\1/p' <<< "$last")
  findings=$(find "$LOG_DIR" -maxdepth 1 -name "$t-*" -type f | wc -l)
  if [ "$rc" -ne 0 ] || [ "$findings" -ne 0 ]; then
    status=1
    findings="$findings (exit $rc, see $log)"
  fi
  printf '%-16s %8s %12s %8s %8s  %s\n' "$t" "$secs" "${execs:-?}" "${cov:-?}" "${ft:-?}" "$findings" >> "$summary"
done
cat "$summary"
exit $status
