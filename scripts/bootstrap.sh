#!/usr/bin/env bash
# Installs the Debian 12 packages prowl builds and tests with, then configures and builds it.
# Usage: scripts/bootstrap.sh [BUILD_DIR] [extra cmake arguments...]
# Installing needs root (or sudo); packages already present are not installed again.
set -euo pipefail

PACKAGES=(
  build-essential cmake ccache pkg-config git python3
  libgtest-dev libgmock-dev libbenchmark-dev
  libfmt-dev nlohmann-json3-dev libcli11-dev libsqlite3-dev
  libcurl4-openssl-dev libcpp-httplib-dev
  libpq-dev postgresql libyaml-cpp-dev
  libz3-dev libcvc5-dev libeigen3-dev
  clang-format
  libxml2-utils                         # tests: xmllint validates the JUnit report
  python3-jsonschema python3-rfc3987    # tests: the SARIF report against the OASIS schema
  libgraphviz-dev                       # the HTML report lays out the state graph (prowl::report_html)
  graphviz                              # tests: dot -Tsvg reads the DOT report
  chromium fonts-dejavu-core            # tests: the HTML report in headless Chromium, its screenshot
  universal-ctags                       # scripts/check-size.sh: file and function sizes
  clang-16 libclang-rt-16-dev llvm-16   # scripts/fuzz.sh: libFuzzer and its symbolizer
  spin
  libopenmpi-dev openmpi-bin            # prowl::mpi: breadth-first search across processes (--mpi)
)

missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "bootstrap: installing ${missing[*]}"
  SUDO=""
  if [[ $(id -u) -ne 0 ]]; then SUDO="sudo"; fi
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${1:-$root/build}"
shift || true
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release "$@" >/dev/null
cmake --build "$build" -j"$(nproc)"
