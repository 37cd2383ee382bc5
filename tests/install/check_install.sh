#!/usr/bin/env bash
# Installs the built prowl into a temporary prefix and builds two programs against it with
# find_package(prowl), as users do: explore_only links prowl::explore alone, and must not need
# SQLite, libcurl, libpq, yaml-cpp or Graphviz (its dynamic section is read with readelf -d);
# full links prowl::prowl, reads a model file and explores through the command line, writing the
# HTML report with its graph too (prowl::report_html and Graphviz); gtest_user runs a GoogleTest
# suite through prowl::gtest.
# Usage: check_install.sh BUILD_DIR SOURCE_DIR. Prints one line per program and exits 0 when both
# are as they should be.
set -euo pipefail
build="$1"
source="$2"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
cmake --install "$build" --prefix "$tmp/prefix" >/dev/null
for program in explore_only full gtest_user; do
  cmake -S "$source/tests/install/$program" -B "$tmp/$program" -DCMAKE_PREFIX_PATH="$tmp/prefix" \
    -DCMAKE_BUILD_TYPE=Release >/dev/null
  cmake --build "$tmp/$program" >/dev/null
done

"$tmp/explore_only/explore_only"
needed="$(readelf -d "$tmp/explore_only/explore_only" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p')"
if grep -E '^lib(sqlite3|curl|pq|yaml-cpp|gtest|gvc|cgraph)\.' <<<"$needed"; then
  echo "explore_only: links a library that only prowl::systems, prowl::modelfile or" \
    "prowl::report_html should need" >&2
  exit 1
fi
echo "explore_only: needs only $(tr '\n' ' ' <<<"$needed")"

out="$("$tmp/full/full" --quiet --report json:-)"
grep -q "^full: model file 'tiny' has 2 actions$" <<<"$out"
grep -q '"states": 9,' <<<"$out"
echo "full: model file 'tiny' has 2 actions; 9 states"
"$tmp/full/full" --quiet --report html:- | grep -q '<g id="node9" class="node state'
echo "full: html report drawn by Graphviz"

"$tmp/gtest_user/gtest_user" | grep -q '^\[  PASSED  \] 1 test\.$'
echo "gtest_user: 1 test passed"
