#!/usr/bin/env bash
# Fails when a C++ file differs from what clang-format (the repository's .clang-format) makes of it.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
mapfile -t files < <(git ls-files '*.cpp' '*.hpp')
bad=0
for f in "${files[@]}"; do
  if ! clang-format --style=file "$f" | cmp -s - "$f"; then
    echo "format: $f differs from clang-format (run: clang-format -i $f)"
    bad=1
  fi
done
if ((bad)); then exit 1; fi
echo "format: ${#files[@]} files formatted"
