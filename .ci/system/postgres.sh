#!/usr/bin/env bash
# PostgreSQL server binaries for the postgresStore suites (spec/persistence/postgres-*.spec.ts), which
# start their own throwaway cluster (initdb into a temp dir, as the `postgres` user) and stop it by pid.
# Idempotent; run as root on Debian. Suites look in /usr/lib/postgresql/<version>/bin or at $PG_BIN.
set -euo pipefail
if ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 && id postgres >/dev/null 2>&1; then
  exit 0
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update
apt-get install -y --no-install-recommends postgresql
# Debian's package starts a system cluster on 5432; the suites need only the binaries.
if command -v pg_ctlcluster >/dev/null 2>&1; then
  for cluster in /etc/postgresql/*/main; do
    [ -d "$cluster" ] || continue
    version=$(basename "$(dirname "$cluster")")
    pg_ctlcluster "$version" main stop >/dev/null 2>&1 || true
  done
fi
