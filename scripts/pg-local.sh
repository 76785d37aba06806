#!/usr/bin/env bash
# A throwaway PostgreSQL cluster on a Unix socket in a folder: no TCP port
# (no clash with a server already running), no password (the socket's
# folder is the only way in), nothing outside the folder.
#   scripts/pg-local.sh start [DIR]  -> prints the server URL on stdout
#   scripts/pg-local.sh stop DIR     -> stops the cluster and removes DIR
# The server refuses to run as root, so under root the cluster belongs to
# the `postgres` system user (created when missing).
set -euo pipefail
PG_BIN="${PG_BIN:-$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)}"
if [ ! -x "$PG_BIN/initdb" ]; then
  echo "PostgreSQL server binaries not found (run scripts/ensure-postgres.sh)" >&2
  exit 1
fi

as_owner() {
  if [ "$(id -u)" = "0" ]; then
    runuser -u postgres -- "$@"
  else
    "$@"
  fi
}

case "${1:-}" in
  start)
    dir="${2:-$(mktemp -d "${TMPDIR:-/tmp}/pg-local.XXXXXX")}"
    mkdir -p "$dir"
    dir="$(cd "$dir" && pwd)"
    if [ "$(id -u)" = "0" ]; then
      id -u postgres >/dev/null 2>&1 || useradd --system --home-dir /var/lib/postgresql --shell /usr/sbin/nologin postgres
      chown postgres "$dir"
    fi
    chmod 700 "$dir"
    as_owner "$PG_BIN/initdb" -D "$dir/data" -U postgres -A trust -E UTF8 --locale=C.UTF-8 >"$dir/initdb.log" 2>&1 || {
      cat "$dir/initdb.log" >&2
      exit 1
    }
    as_owner "$PG_BIN/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w \
      -o "-k $dir -c listen_addresses='' -c fsync=off -c max_connections=200" start >/dev/null || {
      cat "$dir/server.log" >&2
      exit 1
    }
    echo "postgresql://postgres@/postgres?host=$dir"
    ;;
  stop)
    dir="${2:?usage: pg-local.sh stop DIR}"
    if [ -f "$dir/data/postmaster.pid" ]; then as_owner "$PG_BIN/pg_ctl" -D "$dir/data" -m fast -w stop >/dev/null || true; fi
    rm -rf "$dir"
    ;;
  *)
    echo "usage: scripts/pg-local.sh start [DIR] | stop DIR" >&2
    exit 2
    ;;
esac
