#!/usr/bin/env bash
# rml adjoint on every main node of the reference corpus ("every differentiable
# forward node in reference/"): derive (--params update and gradient), then rml-check the
# derived node with the forward file's assumptions plus ASSUME (default: sequences end
# within 4 cycles, for nodes with an `end` input). Prints one line per node and mode.
# Not run in CI (rml-check can take minutes on the larger ones). Needs build/src/rml.
set -uo pipefail
cd "$(dirname "$0")/.."
RML=${RML:-./build/src/rml}
CHECK=${RMLCHECK:-./build/src/rml-check}
OUT=${OUT:-$(mktemp -d)}
for f in $(find reference -name '*.rml' ! -name '*.printed.rml' | sort); do
  main=$(sed -n 's|^// main: \([A-Za-z0-9_]*\).*|\1|p' "$f" | head -n 1)
  [ -n "$main" ] || continue
  for mode in update gradient; do
    out="$OUT/$(basename "$f" .rml).$mode.rml"
    if ! msg=$("$RML" adjoint "$f" --node "$main" --params "$mode" -o "$out" 2>&1); then
      echo "$f $main $mode: rml adjoint refuses: $(echo "$msg" | grep -m1 'error' )"
      continue
    fi
    assume=()
    if grep -q "^node ${main}_adjoint(.*end: bool" "$out"; then assume=(--assume "${ASSUME:-always eventually end within 4}"); fi
    verdict=$(timeout 300 "$CHECK" "$out" --main "${main}_adjoint" "${assume[@]}" --timeout 240 2>/dev/null | grep -E '^  (clocks|causality|productivity|initialisation):' | sed 's/ --.*//' | tr '\n' ' ')
    echo "$f $main $mode: ${verdict:-rml-check gave no verdict}"
  done
done
