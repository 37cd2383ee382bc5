#!/usr/bin/env bash
# Builds prowl's libFuzzer targets (fuzz/) with clang in build-fuzz/ and runs each for a bounded
# time on a copy of its seed corpus: the trace reader for 60 s, the model file loader, the system
# file reader (prowl reach), the policy file reader and the OpenAPI reader (prowl init) for 30 s each, or each for SECONDS. Exits 1 when a fuzzer finds a crash (or a hang, or a leak), after
# printing where the input that triggers it was written; see fuzz/README.md to reproduce it.
# Usage: scripts/fuzz.sh [SECONDS]
# Environment: PROWL_FUZZ_CXX, the clang++ to build with (default clang++-16: clang 14 cannot
# compile prowl's C++20); ASAN_SYMBOLIZER_PATH, the llvm-symbolizer for stacks.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

seconds="${1:-}"
if [[ -n "$seconds" && ! "$seconds" =~ ^[1-9][0-9]*$ ]]; then
  echo "usage: scripts/fuzz.sh [SECONDS]" >&2
  exit 2
fi
cxx="${PROWL_FUZZ_CXX:-clang++-16}"
if ! command -v "$cxx" >/dev/null; then
  echo "fuzz: $cxx not found; scripts/bootstrap.sh installs it (clang-16, libclang-rt-16-dev," \
    "llvm-16)" >&2
  exit 2
fi

# Symbolized stacks in crash reports: llvm-16 has the symbolizer that reads clang 16's DWARF.
if [[ -z "${ASAN_SYMBOLIZER_PATH:-}" ]]; then
  for s in /usr/lib/llvm-16/bin/llvm-symbolizer "$(command -v llvm-symbolizer || true)"; do
    if [[ -x "$s" ]]; then
      export ASAN_SYMBOLIZER_PATH="$s"
      break
    fi
  done
fi

build="$root/build-fuzz"
# -O1 with line tables only (-g1): crash stacks keep their files and lines; the build takes about
# half the time of -O2 -g.
cmake -S "$root" -B "$build" -DCMAKE_CXX_COMPILER="$cxx" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O1 -g1 -DNDEBUG" -DPROWL_BUILD_FUZZERS=ON -DPROWL_BUILD_TESTS=OFF -DPROWL_BUILD_EXAMPLES=OFF \
  -DPROWL_BUILD_BENCH=OFF >/dev/null
cmake --build "$build" -j"$(nproc)" --target fuzzers

# Crash inputs outlive the run in build-fuzz/artifacts; the growing corpora do not.
artifacts="$build/artifacts"
mkdir -p "$artifacts"
work="$(mktemp -d "${TMPDIR:-/tmp}/prowl-fuzz.XXXXXX")"
trap 'rm -rf "$work"' EXIT
trap 'exit 130' INT TERM

failed=0
# run FUZZER CORPUS SECONDS
run() {
  local name="$1" corpus="$2" time="$3"
  local log="$build/$name.log"
  cp -r "$root/fuzz/corpus/$corpus" "$work/$corpus"
  echo "fuzz: $name for ${time}s on a copy of fuzz/corpus/$corpus (log: $log)"
  local rc=0
  ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
    "$build/fuzz/$name" -max_total_time="$time" -timeout=10 -rss_limit_mb=2048 \
    -print_final_stats=1 -dict="$root/fuzz/$name.dict" -artifact_prefix="$artifacts/$name-" \
    "$work/$corpus" >"$log" 2>&1 || rc=$?
  local runs rate cov corp
  runs="$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")"
  rate="$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log")"
  cov="$(sed -n 's/.* cov: \([0-9]*\) .*/\1/p' "$log" | tail -n 1)"
  corp="$(sed -n 's/.* corp: \([0-9]*\)\/.*/\1/p' "$log" | tail -n 1)"
  if ((rc == 0)); then
    echo "fuzz: $name: ${runs:-?} inputs, ${rate:-?} exec/s, ${cov:-?} edges covered," \
      "corpus ${corp:-?} inputs: no crash"
    return
  fi
  failed=1
  # The report starts at the sanitizer's or the fuzzer's first word about the failure.
  local start
  start="$(grep -n -m 1 -E "terminate called|==ERROR|runtime error:|ERROR: libFuzzer|Assertion|^$name: " \
    "$log" | cut -d: -f1 || true)"
  echo "fuzz: $name FAILED (exit code $rc) after ${runs:-?} inputs:"
  if [[ -n "$start" ]]; then
    sed -n "${start},$((start + 49))p" "$log" | cut -c 1-240 | sed 's/^/  | /'
  else
    tail -n 40 "$log" | cut -c 1-240 | sed 's/^/  | /'
  fi
  local inputs
  inputs="$(sed -n 's/.*Test unit written to \(.*\)$/\1/p' "$log")"
  if [[ -n "$inputs" ]]; then
    while IFS= read -r input; do
      echo "fuzz: crash input: $input"
      echo "fuzz: reproduce: $build/fuzz/$name $input"
    done <<<"$inputs"
  else
    echo "fuzz: no crash input was written; see $log"
  fi
}

run trace_reader_fuzzer trace "${seconds:-60}"
run model_file_fuzzer model "${seconds:-30}"
run system_file_fuzzer system "${seconds:-30}"
run policy_file_fuzzer policy "${seconds:-30}"
run openapi_fuzzer openapi "${seconds:-30}"
exit "$failed"
