#!/usr/bin/env bash
# A throwaway PostgreSQL server for the tests and the benchmark.
#   scripts/pg-server.sh start DIR   creates a fresh cluster in DIR (empty or missing), starts it on
#                                    a free loopback port and prints its libpq DSN on stdout:
#                                    host=127.0.0.1 port=N user=U dbname=postgres
#   scripts/pg-server.sh stop DIR    stops that server (fast mode) and removes DIR
# The cluster trusts every local and loopback connection and runs without fsync: it is for tests
# only. Binaries: the newest /usr/lib/postgresql/*/bin. initdb refuses to run as root, so as root
# the server runs as the `postgres` user, which then owns DIR. Progress goes to stderr.
set -euo pipefail

usage() {
  echo "usage: scripts/pg-server.sh start DIR | stop DIR" >&2
  exit 2
}
(($# == 2)) || usage
cmd="$1"
dir="$2"
marker=".prowl-pg-server"

bin="$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1 || true)"
if [[ -z "$bin" || ! -x "$bin/initdb" ]]; then
  echo "pg-server: no PostgreSQL server binaries in /usr/lib/postgresql/*/bin" \
    "(install the Debian package postgresql)" >&2
  exit 3
fi

as_owner=()
user="$(id -un)"
if [[ $(id -u) -eq 0 ]]; then
  as_owner=(runuser -u postgres --)
  user=postgres
fi

free_port() {
  python3 -c 'import socket
s = socket.socket()
s.bind(("127.0.0.1", 0))
print(s.getsockname()[1])'
}

case "$cmd" in
  start)
    mkdir -p "$dir"
    dir="$(cd "$dir" && pwd)"
    if [[ -n "$(ls -A "$dir")" ]]; then
      echo "pg-server: $dir is not empty" >&2
      exit 2
    fi
    touch "$dir/$marker"
    if ((${#as_owner[@]})); then
      chown -R postgres: "$dir"
      if ! runuser -u postgres -- test -w "$dir"; then
        echo "pg-server: the postgres user cannot write to $dir (is a parent directory private?)" >&2
        exit 3
      fi
    fi
    "${as_owner[@]}" "$bin/initdb" -D "$dir/data" -U "$user" -A trust -E UTF8 --locale=C \
      --no-sync >"$dir/initdb.log" 2>&1 || {
      cat "$dir/initdb.log" >&2
      exit 3
    }
    cat >>"$dir/data/postgresql.conf" <<EOF
listen_addresses = '127.0.0.1'
unix_socket_directories = '$dir'
fsync = off
synchronous_commit = off
full_page_writes = off
max_connections = 200
EOF
    # The port is free when picked but may be taken before the server binds it: try a few.
    for attempt in 1 2 3 4 5; do
      port="$(free_port)"
      if "${as_owner[@]}" "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 \
        -o "-p $port" start >&2; then
        echo "host=127.0.0.1 port=$port user=$user dbname=postgres"
        exit 0
      fi
      echo "pg-server: start on port $port failed (attempt $attempt)" >&2
    done
    tail -n 20 "$dir/server.log" >&2 || true
    exit 3
    ;;
  stop)
    if [[ ! -e "$dir/$marker" ]]; then
      echo "pg-server: $dir was not made by pg-server.sh start; not touching it" >&2
      exit 2
    fi
    if [[ -f "$dir/data/postmaster.pid" ]]; then
      "${as_owner[@]}" "$bin/pg_ctl" -D "$dir/data" -m fast -w -t 60 stop >&2 || true
    fi
    rm -rf "$dir"
    ;;
  *)
    usage
    ;;
esac
