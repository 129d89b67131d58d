#!/usr/bin/env bash
# Installs exactly the Debian 12 packages rml needs. Idempotent, non-interactive.
# Run as root (or with sudo available). Nothing is downloaded from outside Debian.
set -euo pipefail
PACKAGES=(
  build-essential cmake ninja-build pkgconf git
  clang libclang-rt-14-dev          # clang builds, libFuzzer and sanitizer runtimes
  libz3-dev z3                      # SMT (checker)
  libboost-graph-dev                # dependency graphs, SCCs
  libeigen3-dev                     # kernels
  libsleef-dev                      # vectorised exp, log, tanh (the executor)
  librapidcheck-dev libgtest-dev libgmock-dev   # tests
  libbenchmark-dev                  # benchmarks
  libcli11-dev nlohmann-json3-dev libfmt-dev
  libadolc-dev python3-torch python3-numpy   # baselines of the AD benchmarks (ADOL-C, PyTorch CPU)
  python3 gtkwave libxml2-utils python3-jsonschema   # readers of rml's VCD, SVG/JUnit XML and SARIF/Kind 2 JSON (tests)
)
missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#PACKAGES[@]} packages present"
  exit 0
fi
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
echo "install-deps: installing ${missing[*]}"
$SUDO env DEBIAN_FRONTEND=noninteractive apt-get update -q
$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}"
