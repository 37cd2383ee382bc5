#!/usr/bin/env bash
# The size limits of docs/architecture.md ("Size"): no file in src/ or include/ over 600 lines, no
# function in src/ over 80 lines (from its signature's first line to its closing brace, as
# Universal Ctags records them: `line:` and `end:` of each function, lambdas included). Prints each
# file or function over its limit and exits 1 if there is one; 0 and one summary line otherwise.
#   scripts/check-size.sh [FILE_LIMIT [FUNCTION_LIMIT]]
set -euo pipefail
cd "$(dirname "$0")/.."
file_limit="${1:-600}"
function_limit="${2:-80}"
ctags="$(command -v ctags-universal || command -v ctags || true)"
if [[ -z "$ctags" ]] || ! "$ctags" --version 2>/dev/null | grep -q "Universal Ctags"; then
  echo "check-size: needs Universal Ctags (the Debian package universal-ctags)" >&2
  exit 3
fi
mapfile -t files < <(find src include -type f \( -name '*.cpp' -o -name '*.hpp' \) | sort)
over=0
for f in "${files[@]}"; do
  n=$(wc -l < "$f")
  if ((n > file_limit)); then
    echo "$f: $n lines (limit $file_limit)"
    over=$((over + 1))
  fi
done
# One tag per line: NAME<TAB>FILE<TAB>PATTERN;"<TAB>KIND<TAB>FIELDS...; line:N and end:M among them.
while IFS=$'\t' read -r name file rest; do
  line=$(grep -oE $'\tline:[0-9]+' <<<"$rest" | cut -d: -f2)
  end=$(grep -oE $'\tend:[0-9]+' <<<"$rest" | cut -d: -f2)
  [[ -n "$line" && -n "$end" ]] || continue
  scope=$(grep -oE $'\t(class|struct|namespace|function):[^\t]+' <<<"$rest" | head -n 1 | cut -d: -f2-)
  length=$((end - line + 1))
  if ((length > function_limit)); then
    echo "$file:$line: ${scope:+$scope::}$name is $length lines (limit $function_limit)"
    over=$((over + 1))
  fi
done < <("$ctags" --fields=+ne --c++-kinds=f --kinds-c++=f -o - $(printf '%s\n' "${files[@]}" | grep '^src/') 2>/dev/null | grep -v '^!_TAG')
if ((over > 0)); then
  echo "check-size: $over over the limits" >&2
  exit 1
fi
echo "check-size: ${#files[@]} files, none over $file_limit lines; no function in src/ over $function_limit lines"
