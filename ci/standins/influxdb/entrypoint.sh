#!/bin/bash
# Entrypoint of the influxdb stand-in (1.12 line). On a fresh data directory it initialises the
# server as the official image does: INFLUXDB_DB; with auth enabled and INFLUXDB_ADMIN_USER,
# the admin and the optional INFLUXDB_USER (all on INFLUXDB_DB), INFLUXDB_WRITE_USER and
# INFLUXDB_READ_USER, each with its *_PASSWORD (a missing one is generated and printed);
# then *.sh and *.iql from /docker-entrypoint-initdb.d. Then it execs influxd.
set -euo pipefail

# Not 8086, so a healthcheck on 8086 stays red until the real server is up.
init_port=8087
config=${INFLUXDB_CONFIG_PATH:-/etc/influxdb/influxdb.conf}
meta_dir=${INFLUXDB_META_DIR:-/var/lib/influxdb/meta}
auth_args=()

influxql() { influx -host 127.0.0.1 -port "$init_port" "${auth_args[@]}" -execute "$1"; }
# InfluxQL identifier and string literal quoting.
ident() { local s=${1//\\/\\\\}; printf '"%s"' "${s//\"/\\\"}"; }
literal() { local s=${1//\\/\\\\}; printf "'%s'" "${s//\'/\\\'}"; }

auth_enabled() {
  if [ -n "${INFLUXDB_HTTP_AUTH_ENABLED:-}" ]; then
    [[ ${INFLUXDB_HTTP_AUTH_ENABLED,,} == *true* ]]
  else
    grep -qiE '^[[:space:]]*auth-enabled[[:space:]]*=[[:space:]]*true' "$config" 2>/dev/null
  fi
}

password_for() {  # password_for VAR: prints $VAR, or generates, announces and prints one
  local value=${!1:-}
  if [ -z "$value" ]; then
    value=$(tr -dc 'A-Za-z0-9_-' </dev/urandom | head -c 32 || true)
    echo "$1:$value" >&2
  fi
  printf '%s' "$value"
}

create_user() {  # create_user NAME PASSWORD-VAR [PRIVILEGE-ON-DB]
  local name=$1 password
  password=$(password_for "$2")
  influxql "CREATE USER $(ident "$name") WITH PASSWORD $(literal "$password")"
  influxql "REVOKE ALL PRIVILEGES FROM $(ident "$name")"
  if [ -n "${3:-}" ] && [ -n "${INFLUXDB_DB:-}" ]; then
    influxql "GRANT $3 ON $(ident "$INFLUXDB_DB") TO $(ident "$name")"
  fi
}

initialise() {
  local with_users=
  if auth_enabled && [ -n "${INFLUXDB_ADMIN_USER:-}" ]; then with_users=1; fi
  if [ -z "$with_users" ] && [ -z "${INFLUXDB_DB:-}" ] \
     && [ -z "$(ls -A /docker-entrypoint-initdb.d 2>/dev/null)" ]; then
    return 0
  fi

  INFLUXDB_HTTP_BIND_ADDRESS=127.0.0.1:$init_port INFLUXDB_HTTP_HTTPS_ENABLED=false influxd "$@" &
  local pid=$! up=
  for _ in $(seq 60); do
    if curl -sf "http://127.0.0.1:$init_port/ping" >/dev/null; then up=1; break; fi
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.5
  done
  if [ -z "$up" ]; then echo "influxdb init: influxd did not start" >&2; exit 1; fi

  if [ -n "$with_users" ]; then
    local admin_password
    admin_password=$(password_for INFLUXDB_ADMIN_PASSWORD)
    # The first admin may be created without credentials; everything after needs them.
    influxql "CREATE USER $(ident "$INFLUXDB_ADMIN_USER") WITH PASSWORD $(literal "$admin_password") WITH ALL PRIVILEGES"
    auth_args=(-username "$INFLUXDB_ADMIN_USER" -password "$admin_password")
  fi
  if [ -n "${INFLUXDB_DB:-}" ]; then
    influxql "CREATE DATABASE $(ident "$INFLUXDB_DB")"
  fi
  if [ -n "$with_users" ]; then
    if [ -n "${INFLUXDB_USER:-}" ]; then create_user "$INFLUXDB_USER" INFLUXDB_USER_PASSWORD ALL; fi
    if [ -n "${INFLUXDB_WRITE_USER:-}" ]; then create_user "$INFLUXDB_WRITE_USER" INFLUXDB_WRITE_USER_PASSWORD WRITE; fi
    if [ -n "${INFLUXDB_READ_USER:-}" ]; then create_user "$INFLUXDB_READ_USER" INFLUXDB_READ_USER_PASSWORD READ; fi
  fi

  local f
  for f in /docker-entrypoint-initdb.d/*; do
    [ -e "$f" ] || continue
    case $f in
      *.sh) echo "influxdb init: running $f"
            # shellcheck source=/dev/null  # the user's init scripts, unknown here
            . "$f" ;;
      *.iql) echo "influxdb init: running $f"; influxql "$(cat "$f")" ;;
      *) echo "influxdb init: ignoring $f" ;;
    esac
  done

  kill -TERM "$pid"
  if ! wait "$pid"; then echo "influxdb init: influxd did not stop cleanly" >&2; exit 1; fi
  echo "influxdb init: done"
}

# Options alone are options for influxd.
if [[ ${1:-} == -* ]]; then set -- influxd "$@"; fi

if [ "${1:-}" = influxd ] && [ ! -e "$meta_dir" ]; then
  initialise "${@:2}"
fi
exec "$@"
