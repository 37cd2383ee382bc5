#!/usr/bin/env bash
# Opens an HTML report in headless Chromium, with the network off, as a reader's browser would,
# and checks the page it built (--dump-dom): each bug's heading with the actions of its shortest
# path in order, and the state graph's SVG nodes and edges. Then takes a screenshot.
#
# Usage: check_html.sh REPORT.html SCREENSHOT.png NAME=ACTION,ACTION,... [NAME=...]
#   One NAME=... per bug, in the page's order: the invariant (or action) its heading names and
#   the actions of its steps. Prints a line per bug and one with the graph's counts; exits 1 when
#   something differs, 2 when Chromium is missing. Leaves no process and no temporary file.
set -euo pipefail
report="$1"
screenshot="$2"
shift 2

chromium="$(command -v chromium || command -v chromium-browser || true)"
if [[ -z "$chromium" ]]; then
  echo "check_html: chromium is not installed (apt-get install chromium; scripts/bootstrap.sh" \
    "installs it)" >&2
  exit 2
fi
if [[ ! -s "$report" ]]; then
  echo "check_html: no report at $report" >&2
  exit 1
fi

tmp="$(mktemp -d)"
group=""
cleanup() {
  if [[ -n "$group" ]]; then kill -KILL -- "-$group" 2>/dev/null || true; fi
  rm -rf "$tmp"
}
trap cleanup EXIT

# Runs Chromium in a process group of its own (setsid), so that its helper processes go with it.
run_chromium() {
  HOME="$tmp" XDG_CONFIG_HOME="$tmp/config" XDG_CACHE_HOME="$tmp/cache" \
    setsid timeout 60 "$chromium" --headless --no-sandbox --disable-gpu \
    --user-data-dir="$tmp/profile" --host-resolver-rules="MAP * ~NOTFOUND" \
    --proxy-server=127.0.0.1:9 --no-first-run --no-default-browser-check \
    --disable-extensions --disable-background-networking --disable-component-update \
    --disable-sync --hide-scrollbars "$@" >"$tmp/out" 2>"$tmp/err" &
  group=$!
  local status=0
  wait "$group" || status=$?
  kill -KILL -- "-$group" 2>/dev/null || true
  group=""
  if ((status != 0)); then
    echo "check_html: chromium exited with $status:" >&2
    tail -n 20 "$tmp/err" >&2
    return 1
  fi
}

url="file://$(realpath "$report")"
run_chromium --dump-dom "$url"
dom="$tmp/dom.html"
mv "$tmp/out" "$dom"

failed=0
bugs="$(grep -c '<article class="bug"' "$dom" || true)"
if ((bugs != $#)); then
  echo "check_html: $bugs bugs in the page, expected $#" >&2
  failed=1
fi
n=0
for expected in "$@"; do
  n=$((n + 1))
  name="${expected%%=*}"
  want="${expected#*=}"
  # The n-th bug's article, up to the end of its first list of steps (its shortest path).
  article="$(awk -v n="$n" '/<article class="bug"/ { k++ } k == n { print } k == n && /<\/ol>/ { exit }' "$dom")"
  if ! grep -qF "<code>$name</code></h3>" <<<"$article"; then
    echo "check_html: bug $n is not headed $name" >&2
    failed=1
  fi
  got="$(grep -o '<code class="action">[^<]*</code>' <<<"$article" | sed 's/<[^>]*>//g' | paste -sd, -)"
  echo "html: bug $n $name steps $got"
  if [[ "$got" != "$want" ]]; then
    echo "check_html: bug $n ($name) has steps $got, expected $want" >&2
    failed=1
  fi
done
nodes="$(grep -c '<g id="node[0-9]*" class="node' "$dom" || true)"
edges="$(grep -c '<g id="edge[0-9]*" class="edge' "$dom" || true)"
shortest="$(grep -c 'class="edge transition path shortest"' "$dom" || true)"
echo "html: graph svg nodes=$nodes edges=$edges shortest_path_edges=$shortest"
if ((nodes == 0 || edges == 0)); then
  echo "check_html: no graph in the page" >&2
  failed=1
fi

run_chromium --screenshot="$screenshot" --window-size=1200,900 "$url"
# A PNG's IHDR holds its width and height as big-endian 32-bit numbers at bytes 16 and 20.
size="$(od -An -tu1 -j16 -N8 "$screenshot" | awk '{ printf "%dx%d", (($1*256+$2)*256+$3)*256+$4, (($5*256+$6)*256+$7)*256+$8 }')"
echo "html: screenshot $size $(stat -c %s "$screenshot") bytes"
if [[ "$(head -c 8 "$screenshot" | od -An -tx1 | tr -d ' \n')" != "89504e470d0a1a0a" || "$size" != "1200x900" ]]; then
  echo "check_html: $screenshot is not a 1200x900 PNG" >&2
  failed=1
fi
exit "$failed"
