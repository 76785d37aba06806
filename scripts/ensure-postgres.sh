#!/usr/bin/env bash
# Installs what a CI machine needs when it is missing: Debian's PostgreSQL
# server (the throwaway test cluster, and pg_dump / pg_restore / vacuumdb
# for backups and maintenance), and a C++ toolchain with python3, which
# npm ci uses only when better-sqlite3 has no prebuilt binary for the
# platform. Nothing of PostgreSQL builds: the driver is node-postgres, pure
# JavaScript, no libpq-dev (scripts/lockfile-native-builds.test.ts keeps it so).
set -euo pipefail
missing=()
ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || missing+=(postgresql)
command -v make >/dev/null && command -v g++ >/dev/null || missing+=(build-essential)
command -v python3 >/dev/null || missing+=(python3)
if [ ${#missing[@]} -eq 0 ]; then exit 0; fi
if [ "$(id -u)" != "0" ]; then
  echo "missing: run 'sudo apt-get install -y ${missing[*]}'" >&2
  exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq "${missing[@]}" >/dev/null
echo "installed: ${missing[*]}"
