#!/usr/bin/env bash
# Entrypoint of the device container: prepares per-container secrets and
# settings, then runs and supervises the device daemon, sshd and nginx. If
# any of them exits, the others are stopped and the container exits non-zero,
# so Docker's restart policy and health status reflect the failure.
set -euo pipefail

STATE_DIR=/var/lib/device          # volume: host keys and TLS certificate
RUN_DIR=/run/device                # sockets
SETTINGS_FILE=/etc/device/device.json

die() { echo "device entrypoint: $*" >&2; exit 1; }
log() { echo "device entrypoint: $*" >&2; }

: "${DEVICE_HOSTNAME:=lab-r1}"
: "${DEVICE_PLATFORM:=cisco_iosxe}"
: "${DEVICE_NETCONF_BASE:=1.1}"
: "${DEVICE_COMMAND_DELAY_MS:=0}"
[[ -n "${DEVICE_USERNAME:-}" && -n "${DEVICE_PASSWORD:-}" ]] ||
    die "DEVICE_USERNAME and DEVICE_PASSWORD must be set (no default credentials are built in)"
[[ "$DEVICE_USERNAME" =~ ^[a-z_][a-z0-9_-]{0,31}$ ]] ||
    die "DEVICE_USERNAME must be a lowercase Unix user name (got '$DEVICE_USERNAME')"
[[ "$DEVICE_USERNAME" != root ]] || die "DEVICE_USERNAME must not be root"
[[ "$DEVICE_HOSTNAME" =~ ^[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?$ ]] ||
    die "DEVICE_HOSTNAME must be letters, digits and hyphens (got '$DEVICE_HOSTNAME')"
[[ "$DEVICE_PLATFORM" =~ ^[a-z0-9_]+$ ]] || die "DEVICE_PLATFORM must match [a-z0-9_]+ (got '$DEVICE_PLATFORM')"
# cisco_iosxe transcripts are the top level of the set; other platforms have a subdirectory.
[[ "$DEVICE_PLATFORM" == cisco_iosxe || -d "/etc/device/transcripts/$DEVICE_PLATFORM" ]] ||
    die "DEVICE_PLATFORM '$DEVICE_PLATFORM' is not supported (cisco_iosxe, arista_eos)"
[[ "$DEVICE_NETCONF_BASE" == 1.0 || "$DEVICE_NETCONF_BASE" == 1.1 ]] ||
    die "DEVICE_NETCONF_BASE must be 1.0 or 1.1 (got '$DEVICE_NETCONF_BASE')"
if ! [[ "$DEVICE_COMMAND_DELAY_MS" =~ ^[0-9]{1,5}$ ]] || (( 10#$DEVICE_COMMAND_DELAY_MS > 60000 )); then
    die "DEVICE_COMMAND_DELAY_MS must be 0..60000 (got '$DEVICE_COMMAND_DELAY_MS')"
fi

# Secrets are created once per volume, never shipped in the image.
generate_host_keys() {
    install -d -m 0700 "$STATE_DIR/ssh"
    local type
    for type in ed25519 ecdsa rsa; do
        local key="$STATE_DIR/ssh/ssh_host_${type}_key"
        if [[ ! -s "$key" ]]; then
            log "generating SSH host key ($type)"
            ssh-keygen -q -t "$type" -N "" -C "$DEVICE_HOSTNAME" -f "$key"
        fi
    done
}

generate_tls_certificate() {
    install -d -m 0700 "$STATE_DIR/tls"
    if [[ ! -s "$STATE_DIR/tls/cert.pem" || ! -s "$STATE_DIR/tls/key.pem" ]]; then
        log "generating self-signed TLS certificate for $DEVICE_HOSTNAME (EC P-256)"
        openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 3650 \
            -subj "/CN=$DEVICE_HOSTNAME" -addext "subjectAltName=DNS:$DEVICE_HOSTNAME,DNS:localhost,IP:127.0.0.1" \
            -keyout "$STATE_DIR/tls/key.pem" -out "$STATE_DIR/tls/cert.pem" 2>/dev/null
        chmod 0600 "$STATE_DIR/tls/key.pem"
    fi
}

# The device account logs in straight into the device CLI.
create_device_user() {
    if ! id "$DEVICE_USERNAME" >/dev/null 2>&1; then
        useradd --create-home --shell /usr/local/bin/device-shell "$DEVICE_USERNAME"
    fi
    printf '%s:%s\n' "$DEVICE_USERNAME" "$DEVICE_PASSWORD" | chpasswd
}

# sshd clears the environment of login shells, so the shell reads its
# settings from this file. Values were validated above, so they need no
# JSON escaping. It holds no secrets: the device account must read it.
write_settings() {
    install -d -m 0755 "$(dirname "$SETTINGS_FILE")"
    cat >"$SETTINGS_FILE" <<JSON
{
  "hostname": "$DEVICE_HOSTNAME",
  "platform": "$DEVICE_PLATFORM",
  "transcripts_dir": "/etc/device/transcripts",
  "events_socket": "$RUN_DIR/events.sock",
  "netconf_socket": "$RUN_DIR/netconf.sock",
  "config_socket": "$RUN_DIR/config.sock",
  "netconf_base": "$DEVICE_NETCONF_BASE",
  "command_delay_ms": $((10#$DEVICE_COMMAND_DELAY_MS)),
  "started_at": "$(date -u +%Y-%m-%dT%H:%M:%SZ)"
}
JSON
    chmod 0644 "$SETTINGS_FILE"
}

generate_host_keys
generate_tls_certificate
create_device_user
write_settings
# A restarted container keeps /run: clear stale sockets and pid files.
rm -rf "$RUN_DIR" /run/sshd.pid /run/nginx.pid
install -d -m 0755 "$RUN_DIR" /run/sshd

pids=()
stop_children() {
    local pid
    for pid in "${pids[@]}"; do
        kill -TERM "$pid" 2>/dev/null || true
    done
    wait || true
}
trap 'log "stopping"; stop_children; exit 0' TERM INT

# DEVICE_PASSWORD is only for the daemon (API authentication): sshd and
# nginx do not inherit it.
device serve -api-socket-group www-data &
pids+=($!)
env -u DEVICE_PASSWORD /usr/sbin/sshd -D -e -f /etc/ssh/sshd_config &
pids+=($!)
env -u DEVICE_PASSWORD nginx -c /etc/nginx/nginx.conf &
pids+=($!)
log "started device serve, sshd and nginx as $DEVICE_HOSTNAME ($DEVICE_PLATFORM)"

# Wait for the first child to exit; a trapped signal interrupts this wait.
status=0
wait -n "${pids[@]}" || status=$?
log "a supervised process exited (status $status); stopping the container"
stop_children
exit $(( status == 0 ? 1 : status ))
