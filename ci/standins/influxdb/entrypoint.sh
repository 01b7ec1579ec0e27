#!/bin/bash
# Initialises a fresh data directory the way the official influxdb:1.8 image does for the
# variables the lab uses (INFLUXDB_DB, INFLUXDB_ADMIN_USER/PASSWORD, INFLUXDB_USER/USER_PASSWORD,
# INFLUXDB_READ_USER/READ_USER_PASSWORD),
# then execs influxd. INFLUXDB_HTTP_AUTH_ENABLED etc. are read by influxd itself.
set -euo pipefail

init_port=8087
auth_args=()
influxql() { influx -host 127.0.0.1 -port "$init_port" "${auth_args[@]}" -execute "$1"; }

initialise() {
  INFLUXDB_HTTP_BIND_ADDRESS=127.0.0.1:$init_port influxd &
  local pid=$!
  for _ in $(seq 120); do
    curl -sf "http://127.0.0.1:$init_port/ping" >/dev/null && break
    sleep 0.5
  done
  if [ -n "${INFLUXDB_ADMIN_USER:-}" ]; then
    : "${INFLUXDB_ADMIN_PASSWORD:?INFLUXDB_ADMIN_PASSWORD is required with INFLUXDB_ADMIN_USER}"
    # The first admin may be created without credentials; everything after needs them.
    influxql "CREATE USER \"$INFLUXDB_ADMIN_USER\" WITH PASSWORD '$INFLUXDB_ADMIN_PASSWORD' WITH ALL PRIVILEGES"
    auth_args=(-username "$INFLUXDB_ADMIN_USER" -password "$INFLUXDB_ADMIN_PASSWORD")
  fi
  if [ -n "${INFLUXDB_DB:-}" ]; then
    influxql "CREATE DATABASE \"$INFLUXDB_DB\""
  fi
  if [ -n "${INFLUXDB_USER:-}" ]; then
    : "${INFLUXDB_USER_PASSWORD:?INFLUXDB_USER_PASSWORD is required with INFLUXDB_USER}"
    influxql "CREATE USER \"$INFLUXDB_USER\" WITH PASSWORD '$INFLUXDB_USER_PASSWORD'"
    if [ -n "${INFLUXDB_DB:-}" ]; then influxql "GRANT ALL ON \"$INFLUXDB_DB\" TO \"$INFLUXDB_USER\""; fi
  fi
  if [ -n "${INFLUXDB_READ_USER:-}" ]; then
    : "${INFLUXDB_READ_USER_PASSWORD:?INFLUXDB_READ_USER_PASSWORD is required with INFLUXDB_READ_USER}"
    influxql "CREATE USER \"$INFLUXDB_READ_USER\" WITH PASSWORD '$INFLUXDB_READ_USER_PASSWORD'"
    if [ -n "${INFLUXDB_DB:-}" ]; then influxql "GRANT READ ON \"$INFLUXDB_DB\" TO \"$INFLUXDB_READ_USER\""; fi
  fi
  kill "$pid"
  wait "$pid" || true
  echo "influxdb init: done"
}

if [ "${1:-}" = influxd ] && [ ! -f /var/lib/influxdb/meta/meta.db ]; then
  initialise
fi
exec "$@"
