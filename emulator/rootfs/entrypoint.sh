#!/usr/bin/env bash
# Entrypoint of the device container: prepares per-container secrets and
# settings, then runs and supervises the device daemon (which serves HTTP/3
# on UDP 443 itself, with nginx's certificate), one sshd per crypto profile
# in use and nginx. If any of them exits, the others are stopped and
# the container exits non-zero, so Docker's restart policy and health status
# reflect the failure.
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
: "${DEVICE_COMMAND_JITTER_MS:=0}"
: "${DEVICE_FLEET_SIZE:=1}"
: "${DEVICE_FLEET_ADDRESSES:=}"
: "${DEVICE_CRYPTO_PROFILE:=}"
: "${DEVICE_FLEET_CRYPTO:=}"
: "${DEVICE_CRYPTO_KEX:=}"
: "${DEVICE_CRYPTO_TLS_GROUP:=}"
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
if ! [[ "$DEVICE_COMMAND_JITTER_MS" =~ ^[0-9]{1,5}$ ]] || (( 10#$DEVICE_COMMAND_JITTER_MS > 60000 )); then
    die "DEVICE_COMMAND_JITTER_MS must be 0..60000 (got '$DEVICE_COMMAND_JITTER_MS')"
fi
# Crypto profiles (emulator/README.md, Crypto profiles): only their form here, which keeps the
# settings file valid JSON; `device fleet` checks the names and the devices they are for.
[[ "$DEVICE_CRYPTO_PROFILE" =~ ^[a-z0-9_]*$ ]] ||
    die "DEVICE_CRYPTO_PROFILE must be a profile name such as modern (got '$DEVICE_CRYPTO_PROFILE')"
[[ "$DEVICE_FLEET_CRYPTO" =~ ^[a-z0-9_:,-]*$ ]] ||
    die "DEVICE_FLEET_CRYPTO must be <device>:<profile> or <first>-<last>:<profile> items, comma-separated, such as 1:modern,3-4:arista_eos (got '$DEVICE_FLEET_CRYPTO')"
# What a crypto sweep holds fixed: one name each, checked against the profiles by `device
# fleet` and against the build by sshd -t and nginx -t below.
[[ "$DEVICE_CRYPTO_KEX" =~ ^([a-z0-9][a-z0-9@.-]*)?$ ]] ||
    die "DEVICE_CRYPTO_KEX must be one SSH key exchange name such as curve25519-sha256 (got '$DEVICE_CRYPTO_KEX')"
[[ "$DEVICE_CRYPTO_TLS_GROUP" =~ ^([A-Za-z0-9][A-Za-z0-9_-]*)?$ ]] ||
    die "DEVICE_CRYPTO_TLS_GROUP must be one TLS group name such as X25519 (got '$DEVICE_CRYPTO_TLS_GROUP')"
# The fleet: device k on the block's network address + k (emulator/README.md, Fleet). The
# netem sidecar puts these addresses on eth0; the device only maps them. `device fleet`
# checks the rest (the derived hostnames) once the settings are written.
if ! [[ "$DEVICE_FLEET_SIZE" =~ ^[0-9]{1,3}$ ]] || (( 10#$DEVICE_FLEET_SIZE < 1 || 10#$DEVICE_FLEET_SIZE > 250 )); then
    die "DEVICE_FLEET_SIZE must be 1..250 (got '$DEVICE_FLEET_SIZE')"
fi
DEVICE_FLEET_SIZE=$((10#$DEVICE_FLEET_SIZE))
if [[ -z "$DEVICE_FLEET_ADDRESSES" ]]; then
    (( DEVICE_FLEET_SIZE == 1 )) ||
        die "DEVICE_FLEET_SIZE=$DEVICE_FLEET_SIZE needs DEVICE_FLEET_ADDRESSES, an IPv4 CIDR block such as 198.18.100.128/25"
else
    octet='(25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])'
    [[ "$DEVICE_FLEET_ADDRESSES" =~ ^$octet\.$octet\.$octet\.$octet/(3[0-2]|[12]?[0-9])$ ]] ||
        die "DEVICE_FLEET_ADDRESSES must be an IPv4 CIDR block such as 198.18.100.128/25 (got '$DEVICE_FLEET_ADDRESSES')"
    IFS=./ read -r a b c d bits <<<"$DEVICE_FLEET_ADDRESSES"
    network=$(( (a << 24) | (b << 16) | (c << 8) | d ))
    (( (network & ((1 << (32 - bits)) - 1)) == 0 )) ||
        die "DEVICE_FLEET_ADDRESSES '$DEVICE_FLEET_ADDRESSES' is not a block's network address"
    # The block's network and broadcast addresses are not hosts.
    hosts=$(( (1 << (32 - bits)) - 2 ))
    (( DEVICE_FLEET_SIZE <= hosts )) ||
        die "DEVICE_FLEET_ADDRESSES $DEVICE_FLEET_ADDRESSES holds $(( hosts > 0 ? hosts : 0 )) devices, DEVICE_FLEET_SIZE is $DEVICE_FLEET_SIZE"
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

# The certificate names the device and every fleet address, so a verifying client can
# connect to any emulated device by address. A certificate whose names differ from these
# (the volume of another fleet or hostname) is replaced.
generate_tls_certificate() {
    local san="DNS:$DEVICE_HOSTNAME,DNS:localhost,IP:127.0.0.1" address
    for address in "${fleet_addresses[@]}"; do
        san+=",IP:$address"
    done
    install -d -m 0700 "$STATE_DIR/tls"
    if [[ -s "$STATE_DIR/tls/cert.pem" && -s "$STATE_DIR/tls/key.pem" ]] &&
        [[ "$(certificate_names "$STATE_DIR/tls/cert.pem")" == "$san" ]]; then
        return
    fi
    log "generating self-signed TLS certificate for $DEVICE_HOSTNAME and ${#fleet_addresses[@]} fleet address(es) (EC P-256)"
    openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 3650 \
        -subj "/CN=$DEVICE_HOSTNAME" -addext "subjectAltName=$san" \
        -keyout "$STATE_DIR/tls/key.pem" -out "$STATE_DIR/tls/cert.pem" 2>/dev/null
    chmod 0600 "$STATE_DIR/tls/key.pem"
}

# The subjectAltName of a certificate in -addext form: "DNS:a,DNS:b,IP:127.0.0.1".
certificate_names() {
    openssl x509 -in "$1" -noout -ext subjectAltName 2>/dev/null |
        tail -n +2 | tr -d ' \n' | sed 's/IPAddress:/IP:/g'
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
  "command_jitter_ms": $((10#$DEVICE_COMMAND_JITTER_MS)),
  "fleet_size": $DEVICE_FLEET_SIZE,
  "fleet_addresses": "$DEVICE_FLEET_ADDRESSES",
  "crypto_profile": "$DEVICE_CRYPTO_PROFILE",
  "fleet_crypto": "$DEVICE_FLEET_CRYPTO",
  "crypto_kex": "$DEVICE_CRYPTO_KEX",
  "crypto_tls_group": "$DEVICE_CRYPTO_TLS_GROUP",
  "started_at": "$(date -u +%Y-%m-%dT%H:%M:%SZ)"
}
JSON
    chmod 0644 "$SETTINGS_FILE"
}

# The fleet as the device reads it (index, name, crypto profile, address a line); this also
# checks what the shell cannot, such as a derived hostname's length or a profile's name.
read_fleet() {
    local listing name address profile
    listing=$(device fleet -settings "$SETTINGS_FILE") ||
        die "DEVICE_HOSTNAME, DEVICE_FLEET_SIZE, DEVICE_FLEET_ADDRESSES, DEVICE_PLATFORM, DEVICE_CRYPTO_PROFILE and DEVICE_FLEET_CRYPTO do not make a fleet (see above; DEVICE_CRYPTO_KEX and DEVICE_CRYPTO_TLS_GROUP must be offered by every profile that lists them)"
    fleet_addresses=() fleet_names=() fleet_profiles=()
    # The address comes last: it is empty for a single device, and read collapses adjacent tabs.
    while IFS=$'\t' read -r _ name profile address; do
        fleet_names+=("$name")
        [[ -z "$address" ]] || fleet_addresses+=("$address")
        [[ " ${fleet_profiles[*]} " == *" $profile "* ]] || fleet_profiles+=("$profile")
    done <<<"$listing"
}

write_settings
read_fleet
generate_host_keys
generate_tls_certificate
create_device_user
# A restarted container keeps /run: clear stale sockets, configuration and pid files.
rm -rf "$RUN_DIR" /run/nginx.pid
install -d -m 0755 "$RUN_DIR" /run/sshd
# One sshd configuration per crypto profile in use (sshd cannot vary its algorithms per
# address), and nginx's server blocks, which nginx.conf includes.
sshd_configs=$(device crypto -settings "$SETTINGS_FILE" -dir "$RUN_DIR/crypto") ||
    die "could not write the crypto profiles' sshd and nginx configuration (see above)"
# A name this OpenSSH or OpenSSL does not implement (a held key exchange or group, say) stops
# the container here, with sshd's or nginx's own message, before anything listens.
while read -r sshd_config; do
    /usr/sbin/sshd -t -f "$sshd_config" ||
        die "sshd refuses $sshd_config (see above; DEVICE_CRYPTO_KEX='$DEVICE_CRYPTO_KEX')"
done <<<"$sshd_configs"
nginx -t -q -c /etc/nginx/nginx.conf ||
    die "nginx refuses its configuration (see above; DEVICE_CRYPTO_TLS_GROUP='$DEVICE_CRYPTO_TLS_GROUP')"

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
while read -r sshd_config; do
    env -u DEVICE_PASSWORD /usr/sbin/sshd -D -e -f "$sshd_config" \
        ${DEVICE_SSHD_DEBUG_LOG:+-o LogLevel=DEBUG1 -E "$DEVICE_SSHD_DEBUG_LOG"} &
    pids+=($!)
done <<<"$sshd_configs"
env -u DEVICE_PASSWORD nginx -c /etc/nginx/nginx.conf &
pids+=($!)
if (( DEVICE_FLEET_SIZE == 1 )); then
    log "started device serve (HTTP/3 on UDP 443), sshd and nginx as $DEVICE_HOSTNAME ($DEVICE_PLATFORM, crypto profile ${fleet_profiles[0]})"
else
    log "started device serve (HTTP/3 on UDP 443), ${#fleet_profiles[@]} sshd and nginx as a fleet of $DEVICE_FLEET_SIZE ($DEVICE_PLATFORM):" \
        "${fleet_names[0]}..${fleet_names[-1]} on ${fleet_addresses[0]}..${fleet_addresses[-1]}," \
        "crypto profiles ${fleet_profiles[*]}"
fi
[[ -z "$DEVICE_CRYPTO_KEX$DEVICE_CRYPTO_TLS_GROUP" ]] ||
    log "held fixed on every device (crypto sweep): SSH key exchange ${DEVICE_CRYPTO_KEX:-as profiled}," \
        "TLS group ${DEVICE_CRYPTO_TLS_GROUP:-as profiled}"

# Wait for the first child to exit; a trapped signal interrupts this wait.
status=0
wait -n "${pids[@]}" || status=$?
log "a supervised process exited (status $status); stopping the container"
stop_children
exit $(( status == 0 ? 1 : status ))
