#!/usr/bin/env bash
# Installs what the PostgreSQL engine needs when it is missing: Debian's
# server (for the throwaway test cluster) and libpq's headers plus a C++
# toolchain (npm ci builds the libpq binding behind pg-native).
set -euo pipefail
missing=()
ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || missing+=(postgresql)
[ -f /usr/include/postgresql/libpq-fe.h ] || missing+=(libpq-dev)
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
